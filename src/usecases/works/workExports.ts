// Works as export entries: by ids (one slot of the budget), or a kept search's rows with what the works table keeps.
import type { AuthContext } from "../auth/context.js";
import { manifestKey } from "../../ingest/manifest.js";
import { rowsWithIntegrity } from "./integrityRows.js";
import { exportWorkOf, exportWorksOfRows, type ExportExtras, type ExportWork } from "./citationExport.js";
import { addWork, seenWork } from "../../retrieval/rowSelection.js";
import type { CachedRow } from "../../domain/resultRow.js";
import { rowsByDocuments } from "./worksReads.js";
import { admit, resolve, scopeOf, type WorksContext } from "./worksContext.js";
import { exportExtrasOf, firstOfWork, notFound, syntheticWork } from "./workShapes.js";
import { Rejection } from "../../domain/rejection.js";

/**
 * What an export adds to a work it may not sell: its keywords and MeSH headings, never its abstract, which is the text
 * search and unlock sell (a title-and-abstract collection's rows are their abstracts).
 */
const unpaid = (extras: ExportExtras): ExportExtras => ({ ...extras, abstract: null });

/**
 * The found works of these ids as export entries, in order (unknown ids left out), without their abstracts (a batch
 * buys nothing); one call of the budget.
 */
export async function exportIds(ctx: WorksContext, auth: AuthContext, ids: readonly string[]): Promise<ExportWork[]> {
  await admit(ctx, auth);
  if (auth.billingMode === "sandbox") return ids.map((id) => exportWorkOf(syntheticWork(id)));
  const resolved = await resolve(ctx, scopeOf(ctx, auth), ids);
  // one entry per work: ids naming the same work (its DOI, PMID and OpenAlex id sent together) export it once
  const seen = new Set<string>();
  return resolved.flatMap(({ work, rows }) => {
    if (!work || !firstOfWork(seen, work)) return [];
    return [exportWorkOf(work, unpaid(exportExtrasOf(rows)))];
  });
}

/** One work as an export entry (GET /works/{id}?format=…): 404 naming the spellings that would find it, as GET. */
export async function exportId(ctx: WorksContext, auth: AuthContext, id: string): Promise<ExportWork[]> {
  const entries = await exportIds(ctx, auth, [id]);
  if (entries.length === 0) throw new Rejection("WORK_NOT_FOUND", notFound(id));
  return entries;
}

/**
 * A kept search's rows as export entries (one per work, in result order) with what the works table keeps of each (its
 * keywords and MeSH headings, and its abstract where the key paid for a row of the work: a search's rows, a preview's
 * unlocked ones; `paid` names them) and its integrity under the lists in force now, whichever door asks (the
 * dashboard's rows are stored without it). A locked preview row exports its metadata, not the text it would sell. The
 * rows are the caller's own search, so their collections are read as they are.
 */
export async function exportRows(
  { deps, db, catalog }: WorksContext,
  stored: readonly CachedRow[],
  paid: ReadonlySet<string>,
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
  // the works a paid row belongs to, by every key (a work's first row may be locked and a later one unlocked)
  const paidWorks = new Set<string>();
  for (const r of rows) if (paid.has(r.id)) addWork(paidWorks, r);
  return exportWorksOfRows(rows, (row) => {
    const docId = String(row.metadata.doc_id);
    const kept = indexKeysOf(row.collection)
      .map((k) => found.get(`${k}\u0000${docId}`))
      .find((r) => r !== undefined);
    if (!kept) return undefined;
    const extras = exportExtrasOf([kept]);
    return seenWork(paidWorks, row) ? extras : unpaid(extras);
  });
}
