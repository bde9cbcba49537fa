// The MCP tools over the catalogue of tools: find-tools, inspect-tool and call-tool, and the gateway's own tools
// (`prefix--tool`, POST /api/v1/tools/{prefix}/{tool}) as they are listed and called.
import { formatCredits } from "../../domain/money.js";
import { parseOr422 } from "../../wire/schemas.js";
import {
  callToolArgs,
  callToolSchemas,
  findToolsArgs,
  findToolsSchemas,
  inspectToolArgs,
  inspectToolSchemas,
  leanSchema,
} from "../toolSchemas.js";
import { balanceOf, toolNotFound, type McpTool, type ToolContext, type ToolDefinition } from "../toolKit.js";

const firstSentence = (text: string) => /^.*?[.!?](?=\s|$)/s.exec(text)?.[0] ?? text;

/**
 * A tool as find-tools lists it (first sentence, listed schema; a billed tool's whole description, whose second
 * sentence says what it bills) or inspect-tool gives it (all its text, the full schema).
 */
const describeTool = (t: McpTool, full: boolean) => ({
  name: t.name,
  description: full
    ? [t.description, t.details?.text].filter(Boolean).join(" ")
    : t.cost === "billed"
      ? t.description
      : firstSentence(t.description),
  inputSchema: full ? (t.details?.inputSchema ?? t.inputSchema) : t.inputSchema,
  ...(t.price !== undefined ? { price: t.price } : {}),
});

/**
 * A gateway tool's call, as POST /api/v1/tools/{prefix}/{tool}: its answer, with what the billing headers say there
 * (`cost`, `billing_mode`, `balance_remaining`) added when the answer is an object, as a search adds them.
 */
export async function gatewayCall({ deps, auth, request }: ToolContext, prefix: string, tool: string, args: unknown) {
  const outcome = await deps.toolCalls.invoke(auth, prefix, tool, args ?? {}, request.requestId);
  const answer = outcome.answer ?? {};
  if (typeof answer !== "object" || Array.isArray(answer)) return answer;
  return {
    ...answer,
    cost: formatCredits(outcome.costMicros, 6),
    billing_mode: auth.billingMode,
    balance_remaining: balanceOf(auth, outcome.balanceMicros),
  };
}

/**
 * The gateway's tools (shipped and mounted upstream), each with its price per call; find-tools lists their lean schema,
 * inspect-tool the full one.
 */
export function gatewayTools(ctx: ToolContext): McpTool[] {
  return ctx.deps.tools.describe().map((t): McpTool => ({
    name: t.name,
    description: t.description,
    inputSchema: leanSchema(t.inputSchema),
    details: { inputSchema: t.inputSchema },
    price: formatCredits(t.priceMicros, 6),
    run: (args) => gatewayCall(ctx, t.prefix, t.tool, args),
  }));
}

export const findToolsTool: ToolDefinition = {
  name: "find-tools",
  cost: "free",
  description:
    "Free: lists the tools behind this server (search, list_collections, list_journals, get_results, gateway " +
    "tools); `query` filters them.",
  details:
    "Each with the first sentence of its description and its input schema. `integration` lists one provider (a " +
    "gateway prefix); `format` is json (default) or text.",
  schemas: findToolsSchemas,
  run: async ({ tools }, args) => {
    const a = parseOr422(findToolsArgs, args);
    const terms = (a.query ?? "").toLowerCase().split(/\s+/).filter(Boolean);
    const matches = (t: McpTool) =>
      terms.length === 0 || terms.some((term) => `${t.name} ${t.description}`.toLowerCase().includes(term));
    const inIntegration = (t: McpTool) => a.integration === undefined || t.name.startsWith(`${a.integration}--`);
    const found = tools.catalogue.filter((t) => inIntegration(t) && matches(t)).map((t) => describeTool(t, false));
    return a.format === "text"
      ? found.map((t) => `${t.name}: ${t.description}`).join("\n") || "no tool matches"
      : found;
  },
};

export const inspectToolTool: ToolDefinition = {
  name: "inspect-tool",
  cost: "free",
  description: "Free: one tool's full description and input schema. Read it before a tool's first call.",
  schemas: inspectToolSchemas,
  run: async ({ tools }, args) => {
    const { tool_name } = parseOr422(inspectToolArgs, args);
    const tool =
      tools.catalogue.find((t) => t.name === tool_name) ??
      tools.bound.find((t) => t.name === tool_name) ??
      tools.listed.find((t) => t.name === tool_name);
    if (!tool) throw toolNotFound(tool_name);
    return describeTool(tool, true);
  },
};

export const callToolTool: ToolDefinition = {
  name: "call-tool",
  cost: "billed",
  costNote: "at once, what the tool costs",
  description: "Runs a find-tools tool with its `arguments`. Bills at once what that tool costs.",
  details:
    "search, list_collections, list_journals, or a gateway tool `prefix--tool` (POST " +
    "/api/v1/tools/{prefix}/{tool}); calls share the per-minute budget with search.",
  schemas: callToolSchemas,
  run: async ({ tools }, args) => {
    const { tool_name, arguments: a } = parseOr422(callToolArgs, args);
    const tool = tools.catalogueTool(tool_name);
    if (!tool) throw toolNotFound(tool_name);
    return tool.run(a);
  },
};
