// A work's references and the works citing it: pages through the cursor of their list, each with what it covers.
import type { AuthContext } from "../auth/context.js";
import { Rejection } from "../../domain/rejection.js";
import { listCursorOf, offsetOfCursor, placeOfCursor } from "../../domain/cursors.js";
import {
  citingDocumentCount,
  citingPage,
  citingRows,
  referencesOf,
  rowsByDocuments,
  type CitingPosition,
  type CitingRow,
} from "./worksReads.js";
import { admit, entriesFor, resolve, scopeOf, workKey, worksOf, type WorksContext } from "./worksContext.js";
import {
  citedByNote,
  citingOrder,
  citingPlace,
  groupCiting,
  notFound,
  placeOrder,
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

/**
 * A page of the works citing a work. Where no two of its citing documents are copies of one work (the usual case),
 * the page is read from the citing indexes after the cursor's place (21 entries, however deep); where some are, or for
 * a cursor that names only an offset, every citing document is read and grouped (citingOrder), the same list.
 */
export async function citedBy(
  ctx: WorksContext,
  auth: AuthContext,
  id: string,
  page: { limit: number; cursor?: string },
): Promise<GraphPage> {
  const opened = await openList(ctx, auth, id, "cited-by", page.cursor);
  if (!opened) return syntheticPage(id, "cited-by");
  const { keys, work } = opened;
  const place = placeOfCursor(page.cursor, "cited-by", workKey(work));
  const identity = { doi: work.ids.doi, pmid: work.ids.pmid, openalex: work.ids.openalex };
  // the citing works as worksOf counted them (groupRows): one per citing document unless copies were grouped, which
  // worksOf learnt while counting them (citingApart), else a count of the citing documents tells
  const held = work.citedByHeld;
  const apart = ctx.citingApart.get(work);
  const ungrouped = apart ?? (await citingDocumentCount(ctx.db, keys, identity)) === held;
  let shown: CitingRow[][];
  let more: boolean;
  if (ungrouped && (place.after !== undefined || place.offset === 0)) {
    const rows = await citingPage(ctx.db, keys, identity, placeOfRow(place.after), page.limit + 1);
    shown = rows.slice(0, page.limit).map((r) => [r]);
    more = rows.length > page.limit;
  } else {
    const citing = citingOrder(
      groupCiting((await citingRows(ctx.db, keys, [identity], true)).get(0) ?? [], keys),
      keys,
    );
    const after = placeOfRow(place.after);
    const found = after ? citing.findIndex((g) => placeOrder(citingPlace(g), after) > 0) : place.offset;
    const start = found < 0 ? citing.length : found;
    shown = citing.slice(start, start + page.limit);
    more = start + page.limit < citing.length;
  }
  const found = await rowsByDocuments(ctx.db, shown.flat());
  const groups = shown
    .map((g) => g.flatMap((r) => found.get(`${r.indexKey}\u0000${r.docId}`) ?? []))
    .filter((g) => g.length > 0);
  const items = (await worksOf(ctx, groups, keys)).map((w) => ({ held: true as const, ...w }));
  const last = shown.at(-1);
  const next =
    more && last
      ? listCursorOf({
          list: "cited-by",
          work: workKey(work),
          offset: place.offset + shown.length,
          after: cursorPlace(last),
        })
      : null;
  const recorded = work.citedByCount;
  const note = citedByNote(recorded, held);
  return { work: { ids: work.ids }, items, nextCursor: next, coverage: { recorded, held, note } };
}

const placeOfRow = (after: [string, string, string, string] | undefined): CitingPosition | null =>
  after ? { date: after[0], key: after[1], indexKey: after[2], docId: after[3] } : null;

const cursorPlace = (g: readonly CitingRow[]): [string, string, string, string] => {
  const p = citingPlace(g);
  return [p.date, p.key, p.indexKey, p.docId];
};
