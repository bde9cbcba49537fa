// The gateway's tools: the shipped ones (retractions/check, works/lookup, journals/lookup) and those of the mounted
// upstream MCP servers, each with its configured price per call (free unless TOOL_PRICES names it).
import type { Logger } from "pino";
import type { CollectionCatalog } from "../../domain/collectionDefinitions.js";
import type { ToolUpstreamConfig } from "./upstreamTools.js";
import type { LiveRetractions } from "../../ingest/liveRetractions.js";
import type { JournalRecord } from "../../journals/table.js";
import type { SearchEngine } from "../../retrieval/port.js";
import { journalsLookupTool } from "./journalsLookup.js";
import { retractionsCheckTool } from "./retractionsCheck.js";
import { createToolRegistry, type RegisteredTool, type ToolRegistry } from "./toolRegistry.js";
import { mountUpstream } from "./upstreamTools.js";
import { worksLookupTool } from "./worksLookup.js";
import type { HeldIntegrity, RetractedHeld } from "../works/integrityRows.js";

const SHIPPED_PREFIXES = ["retractions", "works", "journals"] as const;

function shippedTools(deps: {
  retractions: Pick<LiveRetractions, "notices" | "exclusionFilter">;
  retractedHeld?: RetractedHeld;
  heldIntegrity?: HeldIntegrity;
  engine: Pick<SearchEngine, "findChunks" | "hasIndex">;
  catalog: CollectionCatalog;
  journals: readonly JournalRecord[];
  metricsBasis?: string;
}): Record<string, RegisteredTool> {
  return {
    "retractions/check": retractionsCheckTool(
      deps.retractions,
      deps.heldIntegrity ? { heldIntegrity: deps.heldIntegrity, catalog: deps.catalog } : undefined,
    ),
    "works/lookup": worksLookupTool(deps),
    "journals/lookup": journalsLookupTool(deps.journals, deps.metricsBasis),
  };
}

/** Every tool at its price: a price for a tool that is not registered (a typo, an upstream down at start) is logged. */
export function pricedRegistry(
  tools: Record<string, RegisteredTool>,
  prices: ReadonlyMap<string, bigint>,
  log?: Pick<Logger, "warn">,
): ToolRegistry {
  for (const path of prices.keys())
    if (!(path in tools)) log?.warn({ tool: path }, "TOOL_PRICES names a tool that is not registered");
  return createToolRegistry(
    Object.fromEntries(
      Object.entries(tools).map(([path, tool]) => [
        path,
        { ...tool, priceMicros: prices.get(path) ?? tool.priceMicros ?? 0n },
      ]),
    ),
  );
}

/** The registry the service starts with: retractions/check on the list in force, upstreams listed once. */
export async function createGatewayTools(deps: {
  retractions: Pick<LiveRetractions, "notices" | "exclusionFilter">;
  /** the works the key's collections hold retracted: works/lookup names them so */
  retractedHeld?: RetractedHeld;
  /** the works the key's collections hold, with their integrity: retractions/check answers their own source's word */
  heldIntegrity?: HeldIntegrity;
  engine: Pick<SearchEngine, "findChunks" | "hasIndex">;
  catalog: CollectionCatalog;
  journals: readonly JournalRecord[];
  /** the journals table's sentence saying what its metrics were computed from */
  metricsBasis?: string;
  prices: ReadonlyMap<string, bigint>;
  upstreams: readonly ToolUpstreamConfig[];
  log?: Pick<Logger, "warn">;
}): Promise<ToolRegistry> {
  for (const u of deps.upstreams) {
    if ((SHIPPED_PREFIXES as readonly string[]).includes(u.prefix))
      throw new Error(`TOOL_UPSTREAMS: the prefix ${u.prefix} belongs to a shipped tool`);
  }
  const [, mounted] = await Promise.all([deps.retractions.notices(), Promise.all(deps.upstreams.map(mountUpstream))]);
  const tools = shippedTools({
    retractions: deps.retractions,
    retractedHeld: deps.retractedHeld,
    heldIntegrity: deps.heldIntegrity,
    engine: deps.engine,
    catalog: deps.catalog,
    journals: deps.journals,
    metricsBasis: deps.metricsBasis,
  });
  for (const m of mounted) {
    if (m.error)
      deps.log?.warn(
        { prefix: m.prefix, err: m.error },
        "upstream MCP server could not be listed; its tools are not mounted until the next start",
      );
    Object.assign(tools, m.tools);
  }
  return pricedRegistry(tools, deps.prices, deps.log);
}
