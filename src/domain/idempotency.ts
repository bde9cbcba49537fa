// Idempotency-Key: what a repeat of a key gets, given what the first request with the key became. One rule for every
// operation that takes a key (preview, assisted search; an unlock takes none: identical unlocks join one run). Pure.
//
// One key, one answer: while the first request runs, a repeat is told so (409, with the operation's name and a
// Retry-After) and sent again later gets the first answer, free; 410 only when the first request's run ended without
// an answer. A run that cannot be asked how it stands is not a run that ended: that repeat is 503, safe to retry with
// the same key, never "use a new key" (a client that obeys pays twice).
import { Rejection } from "./rejection.js";

/** The operations that take an Idempotency-Key, by the name a customer knows them. */
export type KeyedOperation = "preview" | "assisted search" | "search";

/**
 * How the run of the first request with the key stands, as its workflow tells. (A key claimed whose request has not
 * started its run yet is in progress too: `keyInProgress`.)
 */
export type KeyedRun =
  /** running, or charged and waiting to hand its answer over */
  | "running"
  /** over: finished, cancelled, failed or refunded, or no longer known to the workflow service */
  | "ended"
  /** could not be asked (the workflow service did not answer) */
  | "unknown";

type KeyedRepeat = "replay" | "in_progress" | "gone" | "unavailable";

/**
 * What a repeat of the key gets. `answerStored`: the first request's answer is in the store, read after the run was
 * asked (a run that stores its answer and ends between the two reads is then seen with its answer, never as one that
 * ended without). A stored answer is the answer, however the run stands.
 */
export function repeatOfKey(facts: { answerStored: boolean; run: KeyedRun }): KeyedRepeat {
  if (facts.answerStored) return "replay";
  switch (facts.run) {
    case "running":
      return "in_progress";
    case "ended":
      return "gone";
    case "unknown":
      return "unavailable";
  }
}

/** How long a repeat waits before it asks again: about how long the operation's next step takes. */
const IN_PROGRESS_RETRY_AFTER_SECONDS: Record<KeyedOperation, number> = {
  preview: 1,
  "assisted search": 2,
  search: 1,
};

const WITH_ARTICLE: Record<KeyedOperation, string> = {
  preview: "a preview",
  "assisted search": "an assisted search",
  search: "a search",
};

/** 409: the first request with the key is still running; the same key later answers with its result. */
export function keyInProgress(operation: KeyedOperation): Rejection {
  const seconds = IN_PROGRESS_RETRY_AFTER_SECONDS[operation];
  return new Rejection(
    "IDEMPOTENCY_KEY_IN_PROGRESS",
    `${WITH_ARTICLE[operation]} with this Idempotency-Key is still running; retry with the same key in ${seconds} s ` +
      `to get its answer${operation === "preview" ? "" : " (charged once)"}`,
    { retryAfterSeconds: seconds },
  );
}

/** 410: the first request's run ended without an answer to give (nothing is kept under the key); a new key runs it. */
export function keyRunGone(operation: KeyedOperation, queryId: string): Rejection {
  return new Rejection(
    "CACHED_RESULT_EXPIRED",
    `the ${operation} ${queryId} made with this Idempotency-Key ended without an answer, and nothing was charged ` +
      "for it; run it again with a new key",
  );
}

/** 503: how the first request's run stands could not be learned; the same key is safe to send again. */
export function keyRunUnknown(operation: KeyedOperation): Rejection {
  return new Rejection(
    "SERVICE_UNAVAILABLE",
    `could not learn how the ${operation} made with this Idempotency-Key stands; retry with the same key in a few ` +
      "seconds (it is charged once)",
    { retryAfterSeconds: 5 },
  );
}
