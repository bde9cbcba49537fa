// A business rule said no: carries the spec's error code; the HTTP layer maps it to a status.
import type { ErrorCode } from "./errorCodes.js";

export class Rejection extends Error {
  constructor(
    readonly code: ErrorCode,
    message: string,
    readonly details?: Record<string, unknown>,
  ) {
    super(message);
    this.name = "Rejection";
  }
}
