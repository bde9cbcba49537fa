// Contention is not an outage: an append that lost its stream version or log position to another writer is decided
// again on fresh state, after a short jittered pause, until a deadline; only then does the caller hear "busy".
import { Rejection } from "../domain/rejection.js";
import { StreamVersionConflict } from "./eventStore.js";

/** How long a command keeps waiting its turn behind other writers before it answers 503. */
const CONTENTION_DEADLINE_MS = 10_000;

/** The pause before the n-th retry: a few milliseconds, doubling up to 50, jittered so colliding writers spread out. */
function pauseMs(attempt: number): number {
  const ceiling = Math.min(50, 2 ** Math.min(attempt, 6));
  return ceiling / 2 + Math.random() * (ceiling / 2);
}

/**
 * Runs `attempt` until it does not end in a StreamVersionConflict. Any other error is the caller's at once; conflicts
 * past `deadlineMs` become 503 SERVICE_UNAVAILABLE saying the store is busy (it answered, it was never unreachable).
 */
export async function retryConflicts<T>(attempt: () => Promise<T>, deadlineMs = CONTENTION_DEADLINE_MS): Promise<T> {
  const deadline = Date.now() + deadlineMs;
  for (let n = 0; ; n++) {
    try {
      return await attempt();
    } catch (err) {
      if (!(err instanceof StreamVersionConflict)) throw err;
      if (Date.now() >= deadline) {
        throw new Rejection(
          "SERVICE_UNAVAILABLE",
          `the billing store stayed busy with other writers for ${Math.round(deadlineMs / 1000)} s; nothing ` +
            "was charged, retry with backoff",
        );
      }
    }
    await new Promise((resolve) => setTimeout(resolve, pauseMs(n)));
  }
}
