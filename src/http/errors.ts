// The one error type of the HTTP surface; the error middleware renders it as {error:{code,message,requestId}}.

import type { ErrorCode } from "../domain/errorCodes.js";

export type { ErrorCode };

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
