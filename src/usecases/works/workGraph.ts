// A work's references and the works citing it: pages through the cursor of their list, each with what it covers.
import type { AuthContext } from "../auth/context.js";
import { Rejection } from "../../domain/rejection.js";
import { listCursorOf, offsetOfCursor } from "../../domain/cursors.js";
import { citingRows, referencesOf, rowsByDocuments } from "./worksReads.js";
import { admit, entriesFor, resolve, scopeOf, workKey, worksOf, type WorksContext } from "./worksContext.js";
import {
  citedByNote,
  citingOrder,
  groupRows,
  notFound,
  referencesNote,
  syntheticPage,
  type GraphPage,
} from "./workShapes.js";

/** The work a list belongs to, the reachable index keys and where the page starts; null for a sandbox key. */
async function openList(
  ctx: WorksContext,
  auth: AuthContext,
  id: string,
  list: "references" | "cited-by",
  cursor: string | undefined,
) {
  await admit(ctx, auth);
  if (auth.billingMode === "sandbox") return null;
  const keys = scopeOf(ctx, auth);
  const [one] = await resolve(ctx, keys, [id]);
  if (!one?.work) throw new Rejection("WORK_NOT_FOUND", notFound(id));
  return { keys, rows: one.rows, work: one.work, offset: offsetOfCursor(cursor, list, workKey(one.work)) };
}

export async function references(
  ctx: WorksContext,
  auth: AuthContext,
  id: string,
  page: { limit: number; cursor?: string },
): Promise<GraphPage> {
  const opened = await openList(ctx, auth, id, "references", page.cursor);
  if (!opened) return syntheticPage(id, "references");
  const { keys, work, offset, rows } = opened;
  const holder = rows.find((r) => r.referencesRecorded !== null) ?? rows[0]!;
  const refs = await referencesOf(ctx.db, holder.indexKey, holder.docId);
  const items = await entriesFor(ctx, keys, refs.slice(offset, offset + page.limit));
  const next =
    offset + page.limit < refs.length
      ? listCursorOf({ list: "references", work: workKey(work), offset: offset + page.limit })
      : null;
  const recorded = work.referencesRecorded;
  const note = referencesNote(ctx.collectionOf.get(holder.indexKey), recorded, refs.length, work.referencesHeld);
  return {
    work: { ids: work.ids },
    items,
    nextCursor: next,
    coverage: { recorded, held: work.referencesHeld, note },
  };
}

export async function citedBy(
  ctx: WorksContext,
  auth: AuthContext,
  id: string,
  page: { limit: number; cursor?: string },
): Promise<GraphPage> {
  const opened = await openList(ctx, auth, id, "cited-by", page.cursor);
  if (!opened) return syntheticPage(id, "cited-by");
  const { keys, work, offset } = opened;
  // the citing works ordered from their ids and dates; only the page's works are read whole and answered
  const identity = { doi: work.ids.doi, pmid: work.ids.pmid, openalex: work.ids.openalex };
  const citing = citingOrder(groupRows((await citingRows(ctx.db, keys, [identity], true)).get(0) ?? []), keys);
  const shown = citing.slice(offset, offset + page.limit);
  const found = await rowsByDocuments(ctx.db, shown.flat());
  const groups = shown
    .map((g) => g.flatMap((r) => found.get(`${r.indexKey}\u0000${r.docId}`) ?? []))
    .filter((g) => g.length > 0);
  const items = (await worksOf(ctx, groups, keys)).map((w) => ({ held: true as const, ...w }));
  const held = citing.length;
  const next =
    offset + page.limit < held
      ? listCursorOf({ list: "cited-by", work: workKey(work), offset: offset + page.limit })
      : null;
  const recorded = work.citedByCount;
  const note = citedByNote(recorded, held);
  return { work: { ids: work.ids }, items, nextCursor: next, coverage: { recorded, held, note } };
}
