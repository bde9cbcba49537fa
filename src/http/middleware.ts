// The HTTP shell's middleware: request id and access log, error rendering, and bounded JSON bodies.
import { randomUUID } from 'node:crypto';
import type { Context, Next } from 'koa';
import type { Logger } from 'pino';
import { ApiError, type ErrorCode } from './errors.js';
import { Rejection } from '../domain/rejection.js';
import type { RequestState } from './requestContext.js';

const STATUS_OF: Record<ErrorCode, number> = {
  UNAUTHORIZED: 401,
  INVALID_API_KEY: 401,
  API_KEY_REVOKED: 401,
  INSUFFICIENT_CREDITS: 402,
  BILLING_SUSPENDED: 402,
  NO_COLLECTION_ACCESS: 403,
  SANDBOX_UNSUPPORTED_ENDPOINT: 403,
  COLLECTION_NOT_FOUND: 404,
  NOT_FOUND: 404,
  IDEMPOTENCY_KEY_IN_PROGRESS: 409,
  CACHED_RESULT_EXPIRED: 410,
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
};

export const statusOf = (code: ErrorCode) => STATUS_OF[code];

export function toApiError(err: unknown): ApiError | undefined {
  if (err instanceof ApiError) return err;
  if (err instanceof Rejection) {
    const retryAfter = typeof err.details?.retryAfterSeconds === 'number' ? { 'Retry-After': String(err.details.retryAfterSeconds) } : undefined;
    const { retryAfterSeconds: _omit, ...details } = err.details ?? {};
    return new ApiError(STATUS_OF[err.code], err.code, err.message, Object.keys(details).length ? details : undefined, retryAfter);
  }
  return undefined;
}

/** Assigns the request id (honouring a sane incoming X-Request-Id), logs one line per request. */
export function requestIdentity(rootLog: Logger) {
  return async (ctx: Context, next: Next) => {
    const incoming = ctx.get('X-Request-Id');
    const requestId = /^[A-Za-z0-9._:-]{8,100}$/.test(incoming) ? incoming : `req_${randomUUID().replace(/-/g, '')}`;
    const state = ctx.state as RequestState;
    state.requestId = requestId;
    state.startedAt = performance.now();
    state.log = rootLog.child({ requestId });
    ctx.set('X-Request-Id', requestId);
    try {
      await next();
    } finally {
      state.log.info({ method: ctx.method, path: ctx.path, status: ctx.status, ms: Math.round(performance.now() - state.startedAt), keyId: state.auth?.key.id }, 'request');
    }
  };
}

/** Renders every error as {error:{code,message,requestId}}; the unexpected becomes a logged 500 without internals. */
export function errorRenderer() {
  return async (ctx: Context, next: Next) => {
    const state = ctx.state as RequestState;
    try {
      await next();
      if (ctx.status === 404 && ctx.body === undefined) {
        throw new ApiError(404, 'NOT_FOUND', `no route for ${ctx.method} ${ctx.path}`);
      }
    } catch (err) {
      let apiError = toApiError(err);
      if (!apiError) {
        state.log.error({ err }, 'unhandled error');
        apiError = new ApiError(500, 'INTERNAL_ERROR', `unexpected error; quote request id ${state.requestId} to support`);
      }
      ctx.status = apiError.status;
      for (const [k, v] of Object.entries(apiError.headers ?? {})) ctx.set(k, v);
      ctx.body = { error: { code: apiError.code, message: apiError.message, requestId: state.requestId, ...(apiError.details ? { details: apiError.details } : {}) } };
    }
  };
}

/** Reads a JSON body up to `limitBytes`; malformed or oversized bodies are 422 VALIDATION_ERROR. */
export function jsonBody(limitBytes: number) {
  return async (ctx: Context, next: Next) => {
    if (ctx.method === 'GET' || ctx.method === 'HEAD' || ctx.method === 'DELETE') return next();
    const declared = Number(ctx.get('Content-Length') || '0');
    if (declared > limitBytes) throw new ApiError(422, 'VALIDATION_ERROR', `request body is larger than ${limitBytes} bytes`);
    const chunks: Buffer[] = [];
    let size = 0;
    for await (const chunk of ctx.req) {
      size += (chunk as Buffer).length;
      if (size > limitBytes) throw new ApiError(422, 'VALIDATION_ERROR', `request body is larger than ${limitBytes} bytes`);
      chunks.push(chunk as Buffer);
    }
    const raw = Buffer.concat(chunks).toString('utf8');
    if (raw.trim() === '') {
      ctx.request.body = undefined;
    } else {
      try {
        ctx.request.body = JSON.parse(raw);
      } catch (err) {
        throw new ApiError(422, 'VALIDATION_ERROR', `request body is not valid JSON: ${(err as Error).message}`);
      }
    }
    return next();
  };
}
