// Headers every response carries, errors and 404s included: set first, before anything can answer.
import type { Context, Next } from "koa";

export function securityHeaders() {
  return async (ctx: Context, next: Next) => {
    // bodies are JSON or CSV; a browser must never guess them into HTML or script
    ctx.set("X-Content-Type-Options", "nosniff");
    return next();
  };
}
