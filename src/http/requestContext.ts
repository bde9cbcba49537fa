// Per-request state carried on ctx.state: the request id, the logger bound to it, and who is calling.
import type { Logger } from "pino";
import type { AuthContext } from "../usecases/auth/context.js";

export interface RequestState {
  requestId: string;
  log: Logger;
  auth?: AuthContext;
  startedAt: number;
}

declare module "koa" {
  interface Request {
    /** the parsed JSON body, set by the jsonBody middleware */
    body?: unknown;
  }
}

/**
 * The address this request came to (scheme and host as the client used them; Koa 3's ctx.origin is the Origin header).
 */
export const requestBaseUrl = (ctx: { protocol: string; host: string }): string => `${ctx.protocol}://${ctx.host}`;

/**
 * Runs `then` once this request's successful response has been written in full ('finish': the last byte handed to the
 * socket); never when the client went away first or the answer became an error. Proof of delivery for paid answers.
 */
export function afterResponseFlushed(ctx: { res: import("node:http").ServerResponse }, then: () => void): void {
  ctx.res.once("finish", () => {
    if (ctx.res.statusCode < 300) then();
  });
}
