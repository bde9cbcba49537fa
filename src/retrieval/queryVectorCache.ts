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
    rememberQueryVector(embedder, key, vector, capacity);
    return vector;
  }
  return pending;
}

/** The vector this embedder already holds for the query (nothing is embedded). */
export function knownQueryVector(embedder: Embedder, text: string): Float32Array | undefined {
  return cacheOf(embedder).done.get(cacheKey(text));
}

/**
 * Keeps a vector this embedder made for the query before (stored by its modelName), so the next search of it skips
 * the model.
 */
export function rememberQueryVector(
  embedder: Embedder,
  text: string,
  vector: Float32Array,
  capacity = QUERY_VECTOR_CACHE_ENTRIES,
): void {
  const cache = cacheOf(embedder);
  cache.done.set(cacheKey(text), vector);
  while (cache.done.size > capacity) cache.done.delete(cache.done.keys().next().value as string);
}
