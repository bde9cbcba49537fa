// Binds the filter language to the search pipeline: journals table in, a FilterPlanner out; FilterError becomes 422.
import { existsSync } from 'node:fs';
import { compileFilterForCollections, FilterError, type CollectionFilterProfile } from './parse.js';
import { JournalMetricIndex } from '../journals/metricIndex.js';
import { readJournalTable } from '../journals/table.js';
import { runBuildJournals } from '../journals/build.js';
import { Rejection } from '../domain/rejection.js';
import type { FilterPlanner, FilterPlan } from '../search/pipeline.js';
import type { FilterNode } from './ast.js';

/** Loads the journals table, building it from the data root on first use. */
export async function loadJournalIndex(journalsPath: string, dataRoot: string): Promise<JournalMetricIndex> {
  if (!existsSync(journalsPath)) await runBuildJournals({ dataRoot, outPath: journalsPath });
  const table = await readJournalTable(journalsPath);
  return new JournalMetricIndex(table.journals);
}

export function createFilterPlanner(journals: JournalMetricIndex): FilterPlanner {
  return (filters, targets) => {
    // a physical collection reached directly anywhere in the request is checked as directly named
    const profiles = new Map<string, CollectionFilterProfile>();
    for (const t of targets) {
      for (const c of t.physical) {
        const isMetaMember = t.requested.type === 'meta';
        const prior = profiles.get(c.name);
        profiles.set(c.name, { name: c.name, editorial: c.kind === 'editorial', openAccessOnly: c.openAccessOnly, scanFilterable: c.scanFilterable, isMetaMember: prior ? prior.isMetaMember && isMetaMember : isMetaMember });
      }
    }
    try {
      const compiled = compileFilterForCollections(filters, [...profiles.values()], { journals });
      const perCollection = new Map<string, FilterNode | 'skip' | undefined>();
      for (const plan of compiled.collections) perCollection.set(plan.collection, plan.outcome === 'skip' ? 'skip' : plan.ast);
      const plan: FilterPlan = {
        perCollection,
        filterWarnings: compiled.warnings,
        journalMetricExpansions: compiled.expansions,
        filtersApplied: compiled.applied,
      };
      return plan;
    } catch (err) {
      if (err instanceof FilterError) {
        throw new Rejection('INVALID_FILTER', err.message, { field: err.details.field ?? null, filter: err.details.filter ?? filters, ...err.details });
      }
      throw err;
    }
  };
}
