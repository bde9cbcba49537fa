// The one error type of the HTTP surface; the error middleware renders it as {error:{code,message,requestId}}.

export type ErrorCode =
  | 'UNAUTHORIZED'
  | 'INVALID_API_KEY'
  | 'API_KEY_REVOKED'
  | 'INSUFFICIENT_CREDITS'
  | 'BILLING_SUSPENDED'
  | 'NO_COLLECTION_ACCESS'
  | 'SANDBOX_UNSUPPORTED_ENDPOINT'
  | 'COLLECTION_NOT_FOUND'
  | 'NOT_FOUND'
  | 'IDEMPOTENCY_KEY_IN_PROGRESS'
  | 'CACHED_RESULT_EXPIRED'
  | 'VALIDATION_ERROR'
  | 'INVALID_FILTER'
  | 'INVALID_QUERY'
  | 'IDEMPOTENCY_KEY_REUSED'
  | 'TOOL_ERROR'
  | 'QUOTA_EXCEEDED'
  | 'API_KEY_BUDGET_EXCEEDED'
  | 'PREVIEW_RATE_LIMIT_EXCEEDED'
  | 'SEARCH_RATE_LIMITED'
  | 'INTERNAL_ERROR'
  | 'SERVICE_UNAVAILABLE';

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
    this.name = 'ApiError';
  }
}
