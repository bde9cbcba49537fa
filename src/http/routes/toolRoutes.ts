// /api/v1/tools/{prefix}/{tool}: tool calls that share the per-minute budget with search. HTTP translation only.
import Router from "@koa/router";
import type { Context } from "koa";
import { ApiError } from "../../wire/errors.js";
import type { RequestState } from "../requestContext.js";
import type { ToolCalls } from "../../usecases/tools/toolCalls.js";
import { setBillingHeaders } from "./billingHeaders.js";

export interface ToolRouteDeps {
  toolCalls: ToolCalls;
}

export function toolRoutes(deps: ToolRouteDeps): Router {
  const router = new Router({ prefix: "/api/v1/tools", sensitive: true, strict: true });
  router.post("/:prefix/:tool", async (ctx: Context) => {
    const auth = (ctx.state as RequestState).auth;
    if (!auth) throw new ApiError(401, "UNAUTHORIZED", "missing API key");
    const { prefix, tool } = ctx.params as { prefix: string; tool: string };
    const { requestId } = ctx.state as RequestState;
    const outcome = await deps.toolCalls.invoke(auth, prefix, tool, ctx.request.body ?? null, requestId);
    setBillingHeaders(ctx, auth, {
      mode: auth.billingMode,
      tokens: 0,
      costMicros: outcome.costMicros,
      balanceMicros: outcome.balanceMicros,
    });
    ctx.body = outcome.answer ?? {};
  });
  return router;
}
