// Groups calls to the store: calls that arrive while a group is being answered wait, then go together in one
// statement (or one transaction: the charge batches). A lone call goes at once. On the embedded store every statement
// costs a fixed share of the one thread that runs them all, so under load one statement for many requests is most of
// the saving; on PostgreSQL a charge batch shares one WAL flush.

/** One group's answers, in the order of its inputs; an input may fail on its own by answering an Error. */
type GroupRunner<I, O> = (inputs: I[]) => Promise<Array<O | Error>>;

export function groupCalls<I, O>(run: GroupRunner<I, O>, maxGroup: number): (input: I) => Promise<O> {
  const queue: { input: I; resolve: (output: O) => void; reject: (err: unknown) => void }[] = [];
  let draining = false;

  async function drain(): Promise<void> {
    draining = true;
    try {
      while (queue.length > 0) {
        const group = queue.splice(0, maxGroup);
        try {
          const outputs = await run(group.map((call) => call.input));
          for (const [i, call] of group.entries()) {
            const output = outputs[i];
            if (output instanceof Error) call.reject(output);
            else call.resolve(output as O);
          }
        } catch (err) {
          for (const call of group) call.reject(err);
        }
      }
    } finally {
      draining = false;
    }
  }

  return (input: I) =>
    new Promise<O>((resolve, reject) => {
      queue.push({ input, resolve, reject });
      if (!draining) void drain();
    });
}
