// Query embeddings remembered per embedder: a repeated query text skips the model (its biggest cost), and
// concurrent requests for the same text share one inference.
import type { Embedder } from "../embedding/port.js";

/**
 * Entries kept per embedder (384 floats each: about 1.5 KB, so about 25 MB at most). An uncached query costs the
 * float32 model about 5 ms of CPU (issue 54; docs/measurements.md), a kept one 1.5 KB: 16,384 since 29 Nov (4,096
 * before), so a day's distinct queries of a busy deployment stay in it.
 */
const QUERY_VECTOR_CACHE_ENTRIES = 16_384;

interface QueryVectorCache {
  /** insertion-ordered: the first key is the least recently used */
  done: Map<string, Float32Array>;
  pending: Map<string, Promise<Float32Array>>;
}

const caches = new WeakMap<Embedder, QueryVectorCache>();

/** The embedder's word-piece tokenizer splits on whitespace, so runs of whitespace do not change the vector. */
function cacheKey(text: string): string {
  return text.trim().replace(/\s+/g, " ");
}

function cacheOf(embedder: Embedder): QueryVectorCache {
  let cache = caches.get(embedder);
  if (!cache) {
    cache = { done: new Map(), pending: new Map() };
    caches.set(embedder, cache);
  }
  return cache;
}

/** The query's embedding, from the cache when this embedder already embedded the same text. */
export async function embedQueryCached(
  embedder: Embedder,
  text: string,
  capacity = QUERY_VECTOR_CACHE_ENTRIES,
): Promise<Float32Array> {
  const cache = cacheOf(embedder);
  const key = cacheKey(text);
  const known = cache.done.get(key);
  if (known) {
    cache.done.delete(key);
    cache.done.set(key, known);
    return known;
  }
  let pending = cache.pending.get(key);
  if (!pending) {
    pending = embedder.embedQuery(key).finally(() => cache.pending.delete(key));
    cache.pending.set(key, pending);
    const vector = await pending;
    cache.done.set(key, vector);
    while (cache.done.size > capacity) cache.done.delete(cache.done.keys().next().value as string);
    return vector;
  }
  return pending;
}
