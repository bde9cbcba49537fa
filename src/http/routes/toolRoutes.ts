// /api/v1/tools/{prefix}/{tool}: tool calls that share the per-minute budget with search. Declared once: its handler
// (HTTP translation only) and its OpenAPI words.
import { ApiError } from "../../wire/errors.js";
import type { RequestState } from "../requestContext.js";
import type { ToolCalls } from "../../usecases/tools/toolCalls.js";
import { BILLING_HEADERS } from "../openapi/operation.js";
import { declareRoute } from "../routeDeclaration.js";
import { setBillingHeaders } from "./billingHeaders.js";

export interface ToolRouteDeps {
  toolCalls: ToolCalls;
}

export const TOOL_ROUTES = [
  declareRoute<ToolRouteDeps>({
    method: "post",
    path: "/api/v1/tools/:prefix/:tool",
    tag: "tools",
    access: "apiKey",
    operationId: "callTool",
    summary: "Call a tool",
    description:
      "Shares the per-minute budget with search. A domain error from the tool is 422 TOOL_ERROR carrying its message.",
    freeBody: "The tool's arguments, as its input schema describes them.",
    response: "ToolResult",
    headers: BILLING_HEADERS,
    errors: [401, 403, 404, 422, 429, 503],
    handler: async (ctx, deps) => {
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
    },
  }),
];
