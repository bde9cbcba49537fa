// The MCP tools of one API key, as a table: each tool is a definition (name, description, input schema, handler) in
// tools/, running the use case of its REST twin (same validation, billing, limits, sandbox rules and error codes) and
// answering with the REST presenter's fields. The MCP shell (server.ts) only lists and calls them.
import type { AuthContext } from "../usecases/auth/context.js";
import { priceLabelOf, reachableEntries } from "../usecases/catalogue/collectionsList.js";
import { getBalanceTool, listCollectionsTool, listJournalsTool, requestJournalTool } from "./tools/accountTools.js";
import { assistedSearchTool } from "./tools/assistedTool.js";
import { findAuthorsTool, getAuthorTool } from "./tools/authorTools.js";
import { alertsTool } from "./tools/alertsTool.js";
import { boundSearchTool, confirmTool, getResultsTool, previewTool, searchTool } from "./tools/searchTools.js";
import { callToolTool, findToolsTool, gatewayCall, gatewayTools, inspectToolTool } from "./tools/toolGateway.js";
import {
  exportResultsTool,
  getWorksTool,
  getWorkTool,
  workCitedByTool,
  workFacetsTool,
  workReferencesTool,
} from "./tools/workTools.js";
import {
  BOUND_SEARCH,
  toolOf,
  type KeyTools,
  type McpDeps,
  type McpTool,
  type ToolContext,
  type ToolDefinition,
  type ToolsRequest,
} from "./toolKit.js";

/** What find-tools shows (and call-tool calls by name), before the gateway's tools. */
const CATALOGUE = [searchTool, listCollectionsTool, listJournalsTool, assistedSearchTool, getResultsTool];

/**
 * What tools/list shows, before the bound search tools; request_journal only to a key that reaches a collection.
 * get_results is listed: it is how a paid answer whose connection dropped is recovered, and a host that offers its
 * model only listed tools must still reach it.
 */
const LISTED = [
  getBalanceTool,
  findToolsTool,
  inspectToolTool,
  previewTool,
  confirmTool,
  callToolTool,
  requestJournalTool,
  assistedSearchTool,
  getResultsTool,
  getWorkTool,
  getWorksTool,
  workReferencesTool,
  workCitedByTool,
  workFacetsTool,
  findAuthorsTool,
  getAuthorTool,
  exportResultsTool,
  alertsTool,
];

/**
 * The server instructions' line of what each tool costs, from the definitions: every tool a key may call by name is
 * in it once, free or billed, so an agent never guesses a price from a name.
 */
export function costLine(): string {
  const definitions = [...new Set([...LISTED, ...CATALOGUE])];
  const named = (d: ToolDefinition) => (d.costNote ? `${d.name} (${d.costNote})` : d.name);
  const of = (cost: ToolDefinition["cost"]) => definitions.filter((d) => d.cost === cost).map(named);
  return `Free: ${of("free").join(", ")}. Billed: ${[...of("billed"), `${BOUND_SEARCH}<name> (at once)`].join(", ")}.`;
}

/**
 * The tools of one key. `listed` is what tools/list shows (the reference's fixed tools and one `search-<name>` per
 * reachable collection, with `assisted_search` and `get_results`); `catalogue` is what find-tools shows (`search`,
 * `list_collections`, `list_journals`, `assisted_search`, `get_results` and the gateway's tools), also callable
 * directly by name.
 */
export function toolsFor(deps: McpDeps, auth: AuthContext, request: ToolsRequest) {
  const reachable = reachableEntries(deps.catalog, auth);
  const tools: KeyTools = { listed: [], catalogue: [], bound: [], catalogueTool };
  const ctx: ToolContext = { deps, auth, request, tools };
  const bind = (definitions: ToolDefinition[]) => definitions.map((d) => toolOf(ctx, d));

  /**
   * A catalogue tool by name; a `prefix--tool` name not described still goes to the gateway, which answers 404 as REST
   * does.
   */
  function catalogueTool(name: string): McpTool | undefined {
    const known = tools.catalogue.find((t) => t.name === name);
    if (known) return known;
    const split = name.indexOf("--");
    if (split <= 0) return undefined;
    const prefix = name.slice(0, split);
    const tool = name.slice(split + 2);
    return {
      name,
      description: "",
      inputSchema: { type: "object" },
      run: (args) => gatewayCall(ctx, prefix, tool, args),
    };
  }

  tools.catalogue = [...bind(CATALOGUE), ...gatewayTools(ctx)];
  tools.bound = bind(reachable.map((entry) => boundSearchTool(entry, priceLabelOf(deps.catalog, auth, entry))));
  tools.listed = [
    ...bind(reachable.length > 0 ? LISTED : LISTED.filter((d) => d !== requestJournalTool)),
    ...tools.bound,
  ];

  return {
    /** what tools/list shows this key */
    listed: tools.listed,
    /** a tool callable by name with tools/call: a listed one, or one of the catalogue */
    find: (name: string): McpTool | undefined => tools.listed.find((t) => t.name === name) ?? catalogueTool(name),
  };
}
