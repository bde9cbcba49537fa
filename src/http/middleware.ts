// The HTTP shell's middleware: request id and access log, and error rendering.
import { randomUUID } from "node:crypto";
import { STATUS_CODES } from "node:http";
import type { Context, Next } from "koa";
import type { Logger } from "pino";
import { ApiError, toApiError } from "../wire/errors.js";
import type { ErrorCode } from "../domain/errorCodes.js";
import type { RequestState } from "./requestContext.js";

/** The path as the request log keeps it: an invite link's token is a secret (only its hash is stored), so it is not. */
const loggedPath = (path: string): string => path.replace(/^(\/dashboard\/invite\/)[^/]+/i, "$1[token]");

/**
 * Assigns the request id, logs one line per request. A sane incoming X-Request-Id is kept, unless it is shaped as the
 * service's own ("req_"): those are only ever the service's, so one never names two requests (another organization's
 * sent back, say).
 */
export function requestIdentity(rootLog: Logger) {
  return async (ctx: Context, next: Next) => {
    const incoming = ctx.get("X-Request-Id");
    const requestId =
      /^[A-Za-z0-9._:-]{8,100}$/.test(incoming) && !/^req_/i.test(incoming)
        ? incoming
        : `req_${randomUUID().replace(/-/g, "")}`;
    const state = ctx.state as RequestState;
    state.requestId = requestId;
    state.startedAt = performance.now();
    state.log = rootLog.child({ requestId });
    ctx.set("X-Request-Id", requestId);
    try {
      await next();
    } finally {
      state.log.info(
        {
          method: ctx.method,
          path: loggedPath(ctx.path),
          status: ctx.status,
          ms: Math.round(performance.now() - state.startedAt),
          keyId: state.auth?.key.id,
        },
        "request",
      );
    }
  };
}

// the code for an error that carries only an HTTP status (the router's 405, Koa's and http-errors' own)
const CODE_OF_STATUS: Record<number, ErrorCode> = {
  401: "UNAUTHORIZED",
  404: "NOT_FOUND",
  405: "METHOD_NOT_ALLOWED",
  409: "CONFLICT",
  503: "SERVICE_UNAVAILABLE",
};

/**
 * An error that carries only a status (http-errors, Koa's ctx.throw/assert) as an ApiError; client errors keep their
 * status.
 */
function fromHttpStatus(status: number, message: string, headers?: Record<string, string>): ApiError | undefined {
  const code = CODE_OF_STATUS[status] ?? (status >= 400 && status < 500 ? "VALIDATION_ERROR" : undefined);
  return code ? new ApiError(status, code, message, undefined, headers) : undefined;
}

function httpErrorOf(err: unknown): ApiError | undefined {
  if (typeof err !== "object" || err === null) return undefined;
  const { status, expose, message, headers } = err as {
    status?: unknown;
    expose?: unknown;
    message?: unknown;
    headers?: unknown;
  };
  if (typeof status !== "number" || status < 400 || status >= 500) return undefined;
  const text = expose === true && typeof message === "string" ? message : (STATUS_CODES[status] ?? "bad request");
  const stringHeaders =
    headers && typeof headers === "object"
      ? Object.fromEntries(Object.entries(headers).filter(([, v]) => typeof v === "string"))
      : undefined;
  return fromHttpStatus(status, text, stringHeaders as Record<string, string> | undefined);
}

function statusOnlyMessage(ctx: Context): string {
  if (ctx.status === 404) return `no route for ${ctx.method} ${ctx.path}`;
  if (ctx.status === 405) return `${ctx.method} is not allowed on ${ctx.path}; allowed: ${ctx.response.get("Allow")}`;
  return STATUS_CODES[ctx.status] ?? "error";
}

/** nginx's status for a request its client abandoned; never sent (there is no one to send it to), only logged. */
const CLIENT_CLOSED_REQUEST = 499;

/** A read of the request that failed because its client's connection went away (ECONNRESET "aborted" mid-body). */
function isClientAbort(ctx: Context, err: unknown): boolean {
  const code = (err as NodeJS.ErrnoException | undefined)?.code;
  if (code !== "ECONNRESET" && code !== "ECONNABORTED" && code !== "ERR_STREAM_PREMATURE_CLOSE") return false;
  // only the incoming side: the same codes from an upstream call (OpenSearch, a tool) stay the service's fault
  return ctx.req.destroyed && (ctx.req.readableAborted || ctx.req.socket?.destroyed !== false);
}

/** Renders every error as {error:{code,message,requestId}}: thrown errors, and a status set without a body (404, the
 *  router's 405, whose Allow header stays); the unexpected becomes a logged 500 without internals. */
export function errorRenderer() {
  return async (ctx: Context, next: Next) => {
    const state = ctx.state as RequestState;
    try {
      await next();
      if (ctx.status >= 400 && ctx.body == null) {
        throw (
          fromHttpStatus(ctx.status, statusOnlyMessage(ctx)) ?? new Error(`status ${ctx.status} set without a body`)
        );
      }
    } catch (err) {
      if (isClientAbort(ctx, err)) {
        // the client hung up mid-request: nothing to answer and no fault of the service (not a 500, not an error line),
        // so a caller cannot inflate the 5xx rate and its alerts; logged as 499, as proxies call it
        state.log.info(
          { code: (err as NodeJS.ErrnoException).code },
          "client closed the connection before the request was read",
        );
        ctx.status = CLIENT_CLOSED_REQUEST;
        ctx.body = {
          error: {
            code: "VALIDATION_ERROR",
            message: "the client closed the connection before its request was read",
            requestId: state.requestId,
          },
        };
        return;
      }
      let apiError = toApiError(err) ?? httpErrorOf(err);
      // an outage answered 503 keeps what the component said in the log only
      if (apiError && apiError.status >= 500)
        state.log.warn({ err: (err as Error).cause ?? err, code: apiError.code }, "service unavailable");
      if (!apiError) {
        state.log.error({ err }, "unhandled error");
        apiError = new ApiError(
          500,
          "INTERNAL_ERROR",
          `unexpected error; quote request id ${state.requestId} to support`,
        );
      }
      ctx.status = apiError.status;
      for (const [k, v] of Object.entries(apiError.headers ?? {})) ctx.set(k, v);
      ctx.body = {
        error: {
          code: apiError.code,
          message: apiError.message,
          requestId: state.requestId,
          ...(apiError.details ? { details: apiError.details } : {}),
        },
      };
    }
  };
}
