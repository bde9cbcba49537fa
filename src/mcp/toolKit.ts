// What every MCP tool is made of: the tool as the shell lists and calls it, a definition in the tool table, the
// context of one key's request, and the helpers the tools share (argument checks, the reference's spellings, billing).
import { isLowBalance } from "../domain/organization.js";
import { formatCredits } from "../domain/money.js";
import { Rejection } from "../domain/rejection.js";
import type { AuthContext } from "../usecases/auth/context.js";
import type { BillingOutcome } from "../usecases/search/searchService.js";
import type { ToolCalls } from "../usecases/tools/toolCalls.js";
import type { ToolRegistry } from "../usecases/tools/toolRegistry.js";
import type { SearchRouteDeps } from "../wire/presenters/searchPresenters.js";
import type { ToolSchemas } from "./toolSchemas.js";
import type { Works } from "../usecases/works/works.js";
import type { WorkFacets } from "../usecases/works/workFacets.js";
import type { Authors } from "../usecases/authors/authors.js";

/** What the REST routes of the same use cases get, and the gateway's tools for find-tools and inspect-tool. */
export interface McpDeps extends SearchRouteDeps {
  /** the tool gateway's calls (the /api/v1/tools routes' use case) */
  toolCalls: ToolCalls;
  /** the gateway's tools (shipped and mounted upstream) */
  tools: ToolRegistry;
  /** the service's address as its users reach it (PUBLIC_URL); unset: the address the request came to */
  publicUrl?: string;
  /** works by identifier, their references and citing works */
  works: Works;
  /** facets of works: counts per year, journal, subject, author, article type, open access, integrity */
  workFacets: WorkFacets;
  /** people by OpenAlex author id or ORCID, by name, and their works */
  authors: Authors;
}

export interface McpTool {
  name: string;
  /** what tools/list shows: when to use the tool and what it costs */
  description: string;
  /** what tools/list shows of the arguments (lean: no prose) */
  inputSchema: Record<string, unknown>;
  /** what inspect-tool adds: the rest of the description, and the arguments with every option and its prose */
  details?: { text?: string; inputSchema: Record<string, unknown> };
  /** per call, for gateway tools with a fixed price */
  price?: string;
  /** the service's own tools: free, or billed (their description then says how) */
  cost?: "free" | "billed";
  run(args: unknown, call?: ToolCallContext): Promise<unknown>;
}

/**
 * What a tool may do while it runs: report progress (sent as MCP progress notifications when the client asked for
 * them).
 */
interface ToolCallContext {
  progress?: (message: string) => void;
}

/** What the tools of one request know of it: its id, and the dashboard's address as this client reaches the service. */
export interface ToolsRequest {
  requestId: string;
  dashboardUrl: string;
  /** runs a step once the tool's answer has been sent in full (the HTTP response flushed): proof of delivery */
  afterAnswerSent?: (then: () => void) => void;
}

/** The tools one key has, for the tools that describe or call others (find-tools, inspect-tool, call-tool). */
export interface KeyTools {
  /** what tools/list shows */
  listed: McpTool[];
  /** what find-tools shows, also callable by name */
  catalogue: McpTool[];
  /** one `search-<name>` per reachable collection */
  bound: McpTool[];
  /** a catalogue tool by name, or a `prefix--tool` the gateway answers */
  catalogueTool(name: string): McpTool | undefined;
}

/** One key's request as its tools see it. */
export interface ToolContext {
  deps: McpDeps;
  auth: AuthContext;
  request: ToolsRequest;
  tools: KeyTools;
}

/** A row of the tool table: what tools/list shows of it, and its handler for one key's request. */
export interface ToolDefinition {
  name: string;
  /** one or two sentences: when to use it and what it costs (tools/list) */
  description: string;
  /** what a call costs, for the server's instructions: free, or billed (the description says how) */
  cost: "free" | "billed";
  /** a few words beside the name in the instructions' list of what is free and what is billed */
  costNote?: string;
  /** the rest, for inspect-tool: what the answer holds, the rules a caller needs once */
  details?: string;
  schemas: ToolSchemas;
  run(ctx: ToolContext, args: unknown, call?: ToolCallContext): Promise<unknown>;
}

/** A definition bound to one key's request. */
export const toolOf = (ctx: ToolContext, d: ToolDefinition): McpTool => ({
  name: d.name,
  description: d.description,
  inputSchema: d.schemas.listed,
  details: { ...(d.details ? { text: d.details } : {}), inputSchema: d.schemas.full },
  cost: d.cost,
  run: (args, call) => d.run(ctx, args, call),
});

/** The prefix of the bound search tools: `search-<collection>`. */
export const BOUND_SEARCH = "search-";

export const bad = (message: string) => new Rejection("VALIDATION_ERROR", message);

export const toolNotFound = (name: string) =>
  new Rejection("NOT_FOUND", `no tool "${name}" is available to this key; find-tools lists the tools`);

/** The queryId in either of the reference's spellings (`queryId`, `query_id`); both given must agree. */
export function queryIdOf(args: { queryId?: string; query_id?: string }): string | undefined {
  if (args.queryId !== undefined && args.query_id !== undefined && args.queryId !== args.query_id)
    throw bad("queryId and query_id differ; send one of them");
  return args.queryId ?? args.query_id;
}

export function objectArgs(args: unknown): Record<string, unknown> {
  return args && typeof args === "object" && !Array.isArray(args) ? (args as Record<string, unknown>) : {};
}

/**
 * `full_metadata`, the MCP-only argument of the search tools, taken off their arguments before the REST body schema
 * checks the rest (which refuses unknown fields).
 */
export function takeFullMetadata(args: unknown): { rest: unknown; full: boolean } {
  if (!args || typeof args !== "object" || Array.isArray(args) || !("full_metadata" in args))
    return { rest: args, full: false };
  const { full_metadata: full, ...rest } = args as Record<string, unknown>;
  if (full !== undefined && typeof full !== "boolean") throw bad("full_metadata: true or false");
  return { rest, full: full === true };
}

/**
 * The bound search tools take the collection from their name; a collection in the arguments is refused as on POST
 * /{collection}.
 */
export function refuseCollectionArgument(args: unknown): void {
  const a = objectArgs(args);
  if ("collection" in a || "collections" in a)
    throw bad("the collection is given by the tool name; remove collection/collections from the arguments");
}

/** The balance as the account shows it: hidden balances are null. */
export function balanceOf(auth: AuthContext, micros: bigint): string | null {
  return auth.org.hideBalance ? null : formatCredits(micros, 6);
}

/** The key's organization has a low balance it may see (a sandbox key's never is: it spends nothing). */
export function isLowBalanceOf(auth: AuthContext): boolean {
  return auth.billingMode !== "sandbox" && isLowBalance(auth.org);
}

/**
 * The reference service's MCP spellings beside ours: `query_id` (its skills tell agents to keep it and to pass it to
 * confirm) and each result's `source_collection` (which collection holds it, a meta-collection's member for its rows,
 * so open-access rows can be labelled).
 */
export function withReferenceNames<
  T extends { queryId: string; results: Array<{ collection: string | null; memberCollection?: string }> },
>(body: T) {
  return {
    ...body,
    query_id: body.queryId,
    results: body.results.map((r) => ({ ...r, source_collection: r.memberCollection ?? r.collection })),
  };
}

/**
 * A billed answer as the MCP tools give it: the REST presenter's body with the reference's spellings, then what the
 * REST billing headers say, so a client reconciles without HTTP headers. `cost` is what the search cost unless the
 * tool names its cost otherwise (confirm's `cost_charged`).
 */
export function billedAnswer<T extends { queryId: string; results: Array<{ collection: string | null }> }>(
  auth: AuthContext,
  body: T,
  billing: BillingOutcome,
  cost: Record<string, string> = { cost: formatCredits(billing.costMicros, 6) },
) {
  return {
    ...withReferenceNames(body),
    ...cost,
    tokens_used: billing.tokens,
    billing_mode: billing.mode,
    balance_remaining: balanceOf(auth, billing.balanceMicros),
  };
}
