// When to call an operator's HTTP server again and how long to wait first: one rule for the clients of the servers an
// operator points the service at (the LLM reasoner, the embedding server); pure, so its schedule is tested.

export interface RetryPolicy {
  /** the wait before the first retry, before jitter; it doubles with each further attempt */
  baseMs: number;
  /** the longest wait the doubling reaches */
  maxMs: number;
  /** the longest wait a server's Retry-After is honoured for (default maxMs): a server asking for an hour is not */
  retryAfterCapMs?: number;
}

/** A status worth trying again: the server is throttling (429) or failing (5xx), not refusing the request itself. */
export function isRetryableStatus(status: number): boolean {
  return status === 429 || (status >= 500 && status <= 599);
}

/** A status that says the server is overloaded: the client should also send less at once (backpressure). */
export function isThrottleStatus(status: number): boolean {
  return status === 429 || status === 503;
}

/** Retry-After in milliseconds: delta-seconds or an HTTP date; undefined when absent or unreadable. */
export function retryAfterMs(header: string | null | undefined, now: number): number | undefined {
  if (header == null) return undefined;
  const text = header.trim();
  if (/^\d+$/.test(text)) return Number(text) * 1000;
  const at = Date.parse(text);
  return Number.isNaN(at) ? undefined : Math.max(0, at - now);
}

/**
 * The wait before attempt `attempt` (2 is the first retry): baseMs doubled per further attempt up to maxMs, with
 * jitter between half and all of it (`random` in [0, 1)) so many clients do not retry in step; never shorter than
 * a Retry-After the server sent (up to retryAfterCapMs).
 */
export function retryDelayMs(
  attempt: number,
  policy: RetryPolicy,
  retryAfter?: number,
  random: () => number = Math.random,
): number {
  if (!Number.isInteger(attempt) || attempt < 2) throw new RangeError(`a retry is attempt 2 or later, got ${attempt}`);
  const doubled = Math.min(policy.maxMs, policy.baseMs * 2 ** (attempt - 2));
  const jittered = Math.round(doubled * (0.5 + 0.5 * random()));
  const asked = retryAfter === undefined ? 0 : Math.min(retryAfter, policy.retryAfterCapMs ?? policy.maxMs);
  return Math.max(jittered, asked);
}

/**
 * The request both clients send an operator's server: a JSON POST, with a bearer where a key is configured, given up
 * after `timeoutMs` (the abort is a TimeoutError, which the retry rule reads as a timeout).
 */
export function jsonPostInit(body: unknown, apiKey: string | undefined, timeoutMs: number): RequestInit {
  return {
    method: "POST",
    headers: { "content-type": "application/json", ...(apiKey ? { authorization: `Bearer ${apiKey}` } : {}) },
    body: JSON.stringify(body),
    signal: AbortSignal.timeout(timeoutMs),
  };
}
