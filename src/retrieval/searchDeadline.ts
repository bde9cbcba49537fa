// The search deadline: an engine that has not answered a search within it is given up on, so a stalled node costs a
// caller a few seconds and a 503 with Retry-After, never the HTTP client's half-minute of waits and retries.
import type { SearchEngine } from "./port.js";

/** SEARCH_DEADLINE_MS's default: hybrid p95 is well under a second here; five seconds is a node in trouble. */
export const DEFAULT_SEARCH_DEADLINE_MS = 5000;

/** The engine did not answer a search within the deadline (the request itself is left to the engine's client). */
export class SearchDeadlineError extends Error {
  constructor(
    readonly index: string,
    readonly deadlineMs: number,
  ) {
    super(`the search engine did not answer a search of ${index} within ${deadlineMs} ms`);
    this.name = "SearchDeadlineError";
  }
}

/** `work`'s answer if it comes within `deadlineMs`, else `onLate()`'s error; the timer never outlives the race. */
export function withinDeadline<T>(work: Promise<T>, deadlineMs: number, onLate: () => Error): Promise<T> {
  if (!Number.isFinite(deadlineMs) || deadlineMs <= 0)
    throw new RangeError(`a deadline must be a positive number of milliseconds, got ${deadlineMs}`);
  let timer: ReturnType<typeof setTimeout> | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(onLate()), deadlineMs);
  });
  return Promise.race([work, late]).finally(() => clearTimeout(timer));
}

/**
 * Retry-After, in seconds, of a search that ran past its deadline: a stalled node seldom recovers in less than the
 * deadline itself, and a client told sooner would only stall again; at least 1.
 */
export function deadlineRetryAfterSeconds(deadlineMs: number): number {
  return Math.max(1, Math.ceil(deadlineMs / 1000));
}

/** The engine, with every search given up on after `deadlineMs` (a SearchDeadlineError); other calls unchanged. */
export function withSearchDeadline(engine: SearchEngine, deadlineMs: number): SearchEngine {
  return {
    ...engine,
    search: (req) =>
      withinDeadline(engine.search(req), deadlineMs, () => new SearchDeadlineError(req.index, deadlineMs)),
  };
}
