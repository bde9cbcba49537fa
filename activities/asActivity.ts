// How an activity fails: a Rejection becomes a failure typed with the spec's code, final when it is a business answer
// (4xx) and retryable when it is a fault (5xx); anything else stays a plain, retryable error.
import { ApplicationFailure, Context } from "@temporalio/activity";
import { Rejection } from "../src/domain/rejection.js";
import { isBusinessAnswer } from "../workflows/shared.js";

/** Whether this code runs as a Temporal activity (not when the in-process driver calls the activity's body). */
function inActivity(): boolean {
  try {
    Context.current();
    return true;
  } catch {
    return false;
  }
}

/** Runs an activity's body; outside an activity its errors, a Rejection too, pass as they are. */
export async function asActivity<T>(fn: () => Promise<T>): Promise<T> {
  try {
    return await fn();
  } catch (err) {
    if (err instanceof Rejection && inActivity()) {
      throw ApplicationFailure.create({
        message: err.message,
        type: err.code,
        nonRetryable: isBusinessAnswer(err.code),
        details: err.details ? [err.details] : undefined,
      });
    }
    throw err;
  }
}

/**
 * Beats every `everyMs` while `fn` runs, so a dead worker is noticed within the activity's heartbeat timeout and a live
 * one never is. Outside an activity (the in-process driver) it only runs `fn`.
 */
export async function heartbeating<T>(fn: () => Promise<T>, everyMs = 2000): Promise<T> {
  if (!inActivity()) return fn();
  const context = Context.current();
  const timer = setInterval(() => context.heartbeat(), everyMs);
  try {
    return await fn();
  } finally {
    clearInterval(timer);
  }
}
