// Binds the filter language to the search pipeline: journals table and bounds in, a FilterPlanner out; FilterError
// becomes 422.
import { existsSync } from "node:fs";
import { join } from "node:path";
import { compileFilterForCollections, FilterError, type CollectionFilterProfile } from "./parse.js";
import { JournalMetricIndex } from "../journals/metricIndex.js";
import { OutdatedJournalTable, readJournalTable, type JournalTable } from "../journals/table.js";
import { metricsBasisSentence } from "../journals/metricsBasis.js";
import { runBuildJournals } from "../journals/build.js";
import { DEFAULT_METRIC_BOUNDS, readMetricBounds, type MetricBoundsTable } from "../journals/bounds.js";
import { Rejection } from "../domain/rejection.js";
import type { CatalogEntry, PlainCollection } from "../domain/collectionDefinitions.js";
import type { FilterNode } from "./ast.js";

/** Files in the data directory: the journals table (`journals build`) and the recomputed bounds (`journals bounds`). */
export const JOURNALS_FILE = "journals.json";
export const JOURNAL_BOUNDS_FILE = "journal-bounds.json";

/**
 * The journals table of the data directory (filters, catalogue and tools share it), built from the data root's works on
 * first use, and again when it predates the record of what its metrics were computed from (only the data root could
 * build such a table). A table built here keeps the spec's bounds; `journals build --openalex-sources` writes its own.
 */
export async function loadJournalTable(dataDir: string, dataRoot: string): Promise<JournalTable> {
  const journalsPath = join(dataDir, JOURNALS_FILE);
  if (!existsSync(journalsPath)) await runBuildJournals({ dataRoot, outPath: journalsPath });
  try {
    return await readJournalTable(journalsPath);
  } catch (error) {
    if (!(error instanceof OutdatedJournalTable)) throw error;
    await runBuildJournals({ dataRoot, outPath: journalsPath });
    return readJournalTable(journalsPath);
  }
}

/**
 * The one-ended bounds recomputed from the current snapshot when `journals bounds` wrote them, else the spec's
 * table: the spec's bounds "derive from a dataset snapshot and can move when refreshed".
 */
export async function loadMetricBounds(boundsPath: string): Promise<MetricBoundsTable> {
  return existsSync(boundsPath) ? readMetricBounds(boundsPath) : DEFAULT_METRIC_BOUNDS;
}

/**
 * The planner the service runs with: the journals table (loaded here unless given) and bounds from the data directory.
 */
export async function loadFilterPlanner(
  dataDir: string,
  dataRoot: string,
  table?: JournalTable,
): Promise<FilterPlanner> {
  const [loaded, bounds] = await Promise.all([
    table ?? loadJournalTable(dataDir, dataRoot),
    loadMetricBounds(join(dataDir, JOURNAL_BOUNDS_FILE)),
  ]);
  return createFilterPlanner(new JournalMetricIndex(loaded.journals), {
    bounds,
    metricsBasis: metricsBasisSentence(loaded.metricsBasis),
  });
}

/** `metricsBasis`: the sentence saying what the metrics were computed from, carried by every expansion entry. */
function createFilterPlanner(
  journals: JournalMetricIndex,
  options: { bounds?: MetricBoundsTable; metricsBasis?: string } = {},
): FilterPlanner {
  return (filters, targets) => {
    // a physical collection reached directly anywhere in the request is checked as directly named
    const profiles = new Map<string, CollectionFilterProfile>();
    for (const t of targets) {
      for (const c of t.physical) {
        const isMetaMember = t.requested.type === "meta";
        const prior = profiles.get(c.name);
        profiles.set(c.name, {
          name: c.name,
          editorial: c.kind === "editorial",
          openAccessOnly: c.openAccessOnly,
          scanFilterable: c.scanFilterable,
          isMetaMember: prior ? prior.isMetaMember && isMetaMember : isMetaMember,
        });
      }
    }
    try {
      const compiled = compileFilterForCollections(filters, [...profiles.values()], {
        journals,
        bounds: options.bounds,
      });
      const perCollection = new Map<string, FilterNode | "skip" | undefined>();
      for (const plan of compiled.collections)
        perCollection.set(plan.collection, plan.outcome === "skip" ? "skip" : plan.ast);
      const plan: FilterPlan = {
        perCollection,
        filterWarnings: compiled.warnings,
        journalMetricExpansions: options.metricsBasis
          ? compiled.expansions.map((expansion) => ({ ...expansion, metricsBasis: options.metricsBasis }))
          : compiled.expansions,
        filtersApplied: compiled.applied,
        pinnedDois: compiled.pinnedDois,
      };
      return plan;
    } catch (err) {
      if (err instanceof FilterError) {
        throw new Rejection("INVALID_FILTER", err.message, {
          field: err.details.field ?? null,
          filter: err.details.filter ?? filters,
          ...err.details,
        });
      }
      throw err;
    }
  };
}

export interface FilterPlan {
  /** per physical collection: the compiled filter, or 'skip' when the collection cannot take part */
  perCollection: Map<string, FilterNode | "skip" | undefined>;
  filterWarnings: unknown[];
  journalMetricExpansions: unknown[];
  filtersApplied: unknown;
  /** DOIs the filter pins (eq/in outside negation), checked for `doi_not_in_collection` */
  pinnedDois?: string[];
}

/** Turns a request's filters into per-collection ASTs; throws a Rejection (INVALID_FILTER) when they cannot apply. */
export type FilterPlanner = (
  filters: unknown,
  targets: { requested: CatalogEntry; physical: PlainCollection[] }[],
) => Promise<FilterPlan> | FilterPlan;
