// Works as export entries: by ids (one slot of the budget), or a kept search's rows with what the works table keeps.
import type { AuthContext } from "../auth/context.js";
import { manifestKey } from "../../ingest/manifest.js";
import { rowsWithIntegrity } from "./integrityRows.js";
import { exportWorkOf, exportWorksOfRows, type ExportWork } from "./citationExport.js";
import { rowsByDocuments } from "./worksReads.js";
import { admit, resolve, scopeOf, type WorksContext } from "./worksContext.js";
import { exportExtrasOf, firstOfWork, syntheticWork } from "./workShapes.js";

/** The found works of these ids as export entries, in order (unknown ids left out); one call of the budget. */
export async function exportIds(ctx: WorksContext, auth: AuthContext, ids: readonly string[]): Promise<ExportWork[]> {
  await admit(ctx, auth);
  if (auth.billingMode === "sandbox") return ids.map((id) => exportWorkOf(syntheticWork(id)));
  const resolved = await resolve(ctx, scopeOf(ctx, auth), ids);
  // one entry per work: ids naming the same work (its DOI, PMID and OpenAlex id sent together) export it once
  const seen = new Set<string>();
  return resolved.flatMap(({ work, rows }) => {
    if (!work || !firstOfWork(seen, work)) return [];
    return [exportWorkOf(work, exportExtrasOf(rows))];
  });
}

/**
 * A kept search's rows as export entries (one per work, in result order) with what the works table keeps of each
 * (its abstract, keywords and MeSH headings) and its integrity under the lists in force now, whichever door asks
 * (the dashboard's rows are stored without it). The rows are the caller's own search, so their collections are read
 * as they are.
 */
export async function exportRows(
  { deps, db, catalog }: WorksContext,
  stored: readonly { collection: string; metadata: Record<string, unknown> }[],
) {
  const rows = await rowsWithIntegrity(stored, deps.rowIntegrity);
  const indexKeysOf = (collection: string): string[] => {
    const entry = catalog.resolveCollection(collection);
    const members = entry ? catalog.physicalMembers(entry).map((c) => c.name) : [];
    return [...new Set([collection, ...members])].map((name) => manifestKey(deps.engineKind, name));
  };
  const documents = rows.flatMap((r) =>
    typeof r.metadata.doc_id === "string"
      ? indexKeysOf(r.collection).map((indexKey) => ({ indexKey, docId: r.metadata.doc_id as string }))
      : [],
  );
  const found = await rowsByDocuments(db, documents);
  return exportWorksOfRows(rows, (collection, docId) => {
    const row = indexKeysOf(collection)
      .map((k) => found.get(`${k}\u0000${docId}`))
      .find((r) => r !== undefined);
    return row ? exportExtrasOf([row]) : undefined;
  });
}
