// Cross-origin access for browsers: off unless origins are configured, then granted to those origins on the API-key
// routes only.
import type { Context, Next } from "koa";

// what a browser client sends and may read; credentials are bearer keys, never cookies, so none are allowed
const ALLOWED_REQUEST_HEADERS = "Authorization, X-API-Key, Content-Type, Idempotency-Key, X-Request-Id";
const EXPOSED_RESPONSE_HEADERS = [
  "X-Request-Id",
  "Retry-After",
  "Idempotency-Status",
  "X-Cache",
  "X-Cache-Expires",
  "X-RateLimit-Limit",
  "X-RateLimit-Remaining",
  "X-RateLimit-Reset",
  "X-Tokens-Used",
  "X-Query-Cost",
  "X-Billing-Mode",
  "X-Credits-Remaining",
].join(", ");
const PREFLIGHT_MAX_AGE_SECONDS = "600";

interface CrossOriginOptions {
  /** exact origins (scheme://host[:port]), or '*' for any; empty: CORS off */
  origins: readonly string[];
  /** the methods the cross-origin routes serve on a path; empty when the path is not one of them */
  methodsOn(path: string): string[];
}

export function crossOriginAccess({ origins, methodsOn }: CrossOriginOptions) {
  const anyOrigin = origins.includes("*");
  const allowed = new Set(origins);
  return async (ctx: Context, next: Next) => {
    if (allowed.size === 0) return next();
    const methods = methodsOn(ctx.path);
    if (methods.length === 0) return next();
    if (!anyOrigin) ctx.vary("Origin");
    const origin = ctx.get("Origin");
    if (!origin || !(anyOrigin || allowed.has(origin))) return next();
    const requestedMethod = ctx.get("Access-Control-Request-Method").toUpperCase();
    if (ctx.method === "OPTIONS" && requestedMethod) {
      // a preflight for a method the path does not serve is left ungranted (the router answers the OPTIONS)
      if (!methods.includes(requestedMethod)) return next();
      ctx.set("Access-Control-Allow-Origin", anyOrigin ? "*" : origin);
      ctx.set("Access-Control-Allow-Methods", methods.join(", "));
      ctx.set("Access-Control-Allow-Headers", ALLOWED_REQUEST_HEADERS);
      ctx.set("Access-Control-Max-Age", PREFLIGHT_MAX_AGE_SECONDS);
      ctx.status = 204;
      return;
    }
    // set before the route runs so error responses are readable by the page too
    ctx.set("Access-Control-Allow-Origin", anyOrigin ? "*" : origin);
    ctx.set("Access-Control-Expose-Headers", EXPOSED_RESPONSE_HEADERS);
    return next();
  };
}
