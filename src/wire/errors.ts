// The one error type of the HTTP surface; the error middleware renders it as {error:{code,message,requestId}}.

import { statusOf, type ErrorCode } from "../domain/errorCodes.js";
import { Rejection } from "../domain/rejection.js";

export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: ErrorCode,
    message: string,
    readonly details?: Record<string, unknown>,
    /** extra response headers, e.g. Retry-After */
    readonly headers?: Record<string, string>,
  ) {
    super(message);
    this.name = "ApiError";
  }
}

/** The ApiError a thrown error stands for: itself, or a use case's Rejection with its status; else undefined. */
export function toApiError(err: unknown): ApiError | undefined {
  if (err instanceof ApiError) return err;
  if (err instanceof Rejection) {
    const retryAfter =
      typeof err.details?.retryAfterSeconds === "number"
        ? { "Retry-After": String(err.details.retryAfterSeconds) }
        : undefined;
    const { retryAfterSeconds: _omit, ...details } = err.details ?? {};
    return new ApiError(
      statusOf(err.code),
      err.code,
      err.message,
      Object.keys(details).length ? details : undefined,
      retryAfter,
    );
  }
  return undefined;
}
