// The HTTP shell's middleware: request id and access log, and error rendering.
import { randomUUID } from 'node:crypto';
import type { Context, Next } from 'koa';
import type { Logger } from 'pino';
import { ApiError } from './errors.js';
import { statusOf } from '../domain/errorCodes.js';
import { Rejection } from '../domain/rejection.js';
import type { RequestState } from './requestContext.js';

export function toApiError(err: unknown): ApiError | undefined {
  if (err instanceof ApiError) return err;
  if (err instanceof Rejection) {
    const retryAfter = typeof err.details?.retryAfterSeconds === 'number' ? { 'Retry-After': String(err.details.retryAfterSeconds) } : undefined;
    const { retryAfterSeconds: _omit, ...details } = err.details ?? {};
    return new ApiError(statusOf(err.code), err.code, err.message, Object.keys(details).length ? details : undefined, retryAfter);
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
