// The spec's error codes and the HTTP status each one answers with: owned by the domain, rendered by the HTTP shell.

export const STATUS_OF = {
  UNAUTHORIZED: 401,
  INVALID_API_KEY: 401,
  API_KEY_REVOKED: 401,
  INSUFFICIENT_CREDITS: 402,
  BILLING_SUSPENDED: 402,
  NO_COLLECTION_ACCESS: 403,
  SANDBOX_UNSUPPORTED_ENDPOINT: 403,
  FORBIDDEN: 403,
  COLLECTION_NOT_FOUND: 404,
  NOT_FOUND: 404,
  WORK_NOT_FOUND: 404,
  METHOD_NOT_ALLOWED: 405,
  IDEMPOTENCY_KEY_IN_PROGRESS: 409,
  CONFLICT: 409,
  CACHED_RESULT_EXPIRED: 410,
  RESULT_WITHDRAWN: 410,
  VALIDATION_ERROR: 422,
  INVALID_FILTER: 422,
  INVALID_QUERY: 422,
  IDEMPOTENCY_KEY_REUSED: 422,
  TOOL_ERROR: 422,
  QUOTA_EXCEEDED: 429,
  API_KEY_BUDGET_EXCEEDED: 429,
  PREVIEW_RATE_LIMIT_EXCEEDED: 429,
  SEARCH_RATE_LIMITED: 429,
  INTERNAL_ERROR: 500,
  SERVICE_UNAVAILABLE: 503,
} as const;

export type ErrorCode = keyof typeof STATUS_OF;

export const statusOf = (code: ErrorCode): number => STATUS_OF[code];

export const isErrorCode = (value: unknown): value is ErrorCode =>
  typeof value === "string" && Object.hasOwn(STATUS_OF, value);
