// Concurrent query embeddings in one model run: the first query of a batch waits at most `waitMs` for others (or
// until `maxTexts` are queued), then all of them run together. A lone query on an idle service waits `waitMs` once;
// under load, one run serves several searches and pays the session's fixed cost per run once.

export interface QueryBatcherOptions {
  /** most texts in one run */
  maxTexts: number;
  /** how long the first text of a batch waits for others, in milliseconds */
  waitMs: number;
}

/** `run` embeds a batch of texts, one vector per text in order; the returned function queues one text. */
export function createQueryBatcher<V>(
  run: (texts: string[]) => Promise<V[]>,
  options: QueryBatcherOptions,
): (text: string) => Promise<V> {
  if (!Number.isInteger(options.maxTexts) || options.maxTexts < 1)
    throw new RangeError(`maxTexts must be a positive integer, got ${options.maxTexts}`);
  let queued: Array<{ text: string; resolve: (v: V) => void; reject: (err: unknown) => void }> = [];
  let timer: ReturnType<typeof setTimeout> | undefined;
  function flush(): void {
    if (timer !== undefined) clearTimeout(timer);
    timer = undefined;
    const batch = queued;
    queued = [];
    if (batch.length === 0) return;
    run(batch.map((q) => q.text))
      .then(
        (vectors) => {
          if (vectors.length !== batch.length)
            throw new Error(`query batch: ${vectors.length} vectors for ${batch.length} texts`);
          batch.forEach((q, i) => q.resolve(vectors[i]!));
        },
        (err: unknown) => batch.forEach((q) => q.reject(err)),
      )
      .catch((err: unknown) => batch.forEach((q) => q.reject(err)));
  }
  return (text) =>
    new Promise<V>((resolve, reject) => {
      queued.push({ text, resolve, reject });
      if (queued.length >= options.maxTexts) flush();
      else if (timer === undefined) timer = setTimeout(flush, options.waitMs);
    });
}
