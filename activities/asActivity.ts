// How an activity fails: a Rejection becomes a failure typed with the spec's code, final when it is a business answer
// (4xx) and retryable when it is a fault (5xx); anything else stays a plain, retryable error.
import { ApplicationFailure } from "@temporalio/activity";
import { Rejection } from "../src/domain/rejection.js";
import { isBusinessAnswer } from "../workflows/shared.js";

export async function asActivity<T>(fn: () => Promise<T>): Promise<T> {
  try {
    return await fn();
  } catch (err) {
    if (err instanceof Rejection) {
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
