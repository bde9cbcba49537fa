// The retraction list in force: the shipped lists ingestion excluded by, plus every list an operator loaded since
// (RetractionsLoaded events on the retractions stream). Searches exclude the works of the loaded lists at query time
// and retractions/check answers from the whole list; each process re-reads the stream's version at most once a
// RETRACTIONS_RECHECK_MS, so every API process follows a load within that time (the loading one at once). The list in
// force is retractionsInForce.ts, loading one retractionsLoad.ts; this factory wires them.
import type { Actor } from "../domain/events.js";
import type { FilterNode } from "../filters/ast.js";
import type { SearchEngine } from "../retrieval/port.js";
import type { CollectionCatalog } from "../domain/collectionDefinitions.js";
import type { RetractionNotice } from "./retractions.js";
import { workIntegrity, type Integrity, type ListsInForce, type WorkEvidence } from "../domain/integrity.js";
import {
  allNotices,
  listsInForce,
  refresh,
  refreshFlagged,
  retractionsContext,
  type HeldDois,
  type LiveRetractionsDeps,
} from "./retractionsInForce.js";
import { loadRetractions, type RetractionsLoad } from "./retractionsLoad.js";

export interface LiveRetractions {
  /** every retracted work's notice by DOI (lower-case) */
  notices(): Promise<ReadonlyMap<string, RetractionNotice>>;
  /** the lists in force as the retraction rule reads them (src/domain/integrity.ts) */
  lists(): Promise<ListsInForce>;
  /**
   * each work's integrity (status and notices) by the retraction rule: its own source's notices and the lists' in
   * force; a work neither names is status none
   */
  integrity(works: readonly WorkEvidence[]): Promise<Integrity[]>;
  /** the DOIs the loaded lists added (ingestion excluded the shipped ones already); empty before any load */
  addedDois(): Promise<readonly string[]>;
  /** a filter excluding the works the loaded lists added, or undefined when there are none */
  exclusionFilter(): Promise<FilterNode | undefined>;
  /**
   * reads the files (relative paths under the data root) and records them as the list in force; a bad file is 422 and
   * changes nothing
   */
  load(files: readonly string[], actor: Actor, requestId?: string): Promise<RetractionsLoad>;
}

/**
 * A collection's engine filter with the loaded lists' works left out, for a collection that excludes retractions (a
 * search, and works/lookup: a collection no longer holds a work retracted since it was ingested). 'skip' stays.
 */
export function withoutRetracted(
  collection: { excludeRetracted: boolean },
  filter: FilterNode | "skip" | undefined,
  retracted: FilterNode | undefined,
): FilterNode | "skip" | undefined {
  if (!retracted || !collection.excludeRetracted || filter === "skip") return filter;
  return filter ? { kind: "and", children: [filter, retracted] } : retracted;
}

/**
 * HeldDois over the engine: each collection that excludes retractions is asked for its chunks with these DOIs, 500 at a
 * time.
 */
export function heldDoisIn(deps: {
  engine: Pick<SearchEngine, "findChunks" | "hasIndex">;
  catalog: Pick<CollectionCatalog, "collections">;
}): HeldDois {
  const BATCH = 500;
  const LIMIT = 5000;
  return async (dois) => {
    const held = new Set<string>();
    const collections = deps.catalog.collections.filter((c) => c.excludeRetracted);
    for (let from = 0; from < dois.length; from += BATCH) {
      const batch = dois.slice(from, from + BATCH);
      for (const collection of collections) {
        if (!(await deps.engine.hasIndex(collection.name))) continue;
        const chunks = await deps.engine.findChunks(
          collection.name,
          { kind: "in", field: "doi", values: batch },
          LIMIT,
        );
        // a full page may hide some: the whole batch counts as held (excluded), the safe side
        if (chunks.length >= LIMIT) batch.forEach((doi) => held.add(doi));
        else
          for (const chunk of chunks)
            if (typeof chunk.metadata.doi === "string") held.add(chunk.metadata.doi.toLowerCase());
      }
    }
    return held;
  };
}

export function createLiveRetractions(deps: LiveRetractionsDeps): LiveRetractions {
  const ctx = retractionsContext(deps);
  return {
    notices: () => allNotices(ctx),
    lists: () => listsInForce(ctx),
    async integrity(works) {
      const inForce = await listsInForce(ctx);
      return works.map((work) => workIntegrity(work, inForce));
    },
    async addedDois() {
      await refresh(ctx);
      return [...ctx.state.added.keys()];
    },
    async exclusionFilter() {
      await refresh(ctx);
      await refreshFlagged(ctx);
      return ctx.state.filter;
    },
    load: (files, actor, requestId) => loadRetractions(ctx, files, actor, requestId),
  };
}
