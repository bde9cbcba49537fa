// Entry point of the filter language: filter JSON in, one AST per searched collection plus warnings, expansions and
// echo out.
import { bindToCollection, type CollectionFilterPlan, type CollectionFilterProfile } from "./bindToCollection.js";
import { expandMetricConditions, type JournalMetricExpansion } from "./journalMetricConditions.js";
import { parseFilterSyntax } from "./syntax.js";
import {
  dedupeWarnings,
  openAccessCollectionExcludedWarning,
  unindexedFieldWarning,
  type FilterWarning,
} from "./warnings.js";
import { DEFAULT_METRIC_BOUNDS, type MetricBoundsTable } from "../journals/bounds.js";
import type { JournalMetricIndex } from "../journals/metricIndex.js";

export type { CollectionFilterProfile } from "./bindToCollection.js";
export { FilterError } from "./errors.js";

interface FilterContext {
  journals: JournalMetricIndex;
  /** one-ended metric bounds; defaults to the spec's table (src/journals/bounds.json) */
  bounds?: MetricBoundsTable;
}

interface CompiledFilter {
  /** one plan per profile, in the order given */
  collections: CollectionFilterPlan[];
  /** the validated filter for `filtersApplied` */
  applied: unknown;
  warnings: FilterWarning[];
  /** for `journalMetricExpansions`; empty when the filter has no metric condition */
  expansions: JournalMetricExpansion[];
  /** DOIs the filter asks for with eq/in outside any negation, for the search layer's doi_not_in_collection check */
  pinnedDois: string[];
}

/**
 * Validates `json` once and checks it against every collection of the search (each one is checked on
 * a multi-collection search). Throws FilterError when the filter cannot be applied to any one of them.
 */
export function compileFilterForCollections(
  json: unknown,
  profiles: readonly CollectionFilterProfile[],
  context: FilterContext,
): CompiledFilter {
  const parsed = parseFilterSyntax(json);
  const metrics = expandMetricConditions(
    parsed.metricTests,
    parsed.listValueCount,
    context.journals,
    context.bounds ?? DEFAULT_METRIC_BOUNDS,
  );
  const collections: CollectionFilterPlan[] = [];
  const scannedBy = new Map<string, string[]>();
  const warnings: FilterWarning[] = [...metrics.warnings];
  for (const profile of profiles) {
    const binding = bindToCollection(parsed.tree, metrics.nodes, profile);
    collections.push(binding.plan);
    if (binding.plan.outcome === "skip" && binding.plan.reason === "open_access_collection_excluded") {
      warnings.push(openAccessCollectionExcludedWarning(profile.name));
    }
    for (const field of binding.scannedFields) {
      scannedBy.set(field, [...(scannedBy.get(field) ?? []), profile.name]);
    }
  }
  for (const [field, names] of scannedBy) warnings.push(unindexedFieldWarning(field, names));
  return {
    collections,
    applied: parsed.applied,
    warnings: dedupeWarnings(warnings),
    expansions: metrics.expansions,
    pinnedDois: parsed.pinnedDois,
  };
}
