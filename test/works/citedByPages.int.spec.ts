// A cited-by list read page by page from the citing indexes (each edge keeping its citing work's date, key and ids)
// answers what the list read whole from the works table answered before: the same works, order and totals, on a store
// whose citing works tie in dates, with copies of citing works in a second collection, and after a citing work is
// ingested again with another date or deleted.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Db } from "../../src/eventstore/db.js";
import { writeWorks, type StoredWork } from "../../src/ingest/works.js";
import { manifestKey } from "../../src/ingest/manifest.js";
import { listCursorOf } from "../../src/domain/cursors.js";
import { createWorks } from "../../src/usecases/works/works.js";
import { groupRows, pick } from "../../src/usecases/works/workShapes.js";
import type { CitingRow } from "../../src/usecases/works/worksReads.js";
import type { GraphEntry } from "../../src/usecases/works/workShapes.js";
import { freshStore, STORE_KINDS } from "../support/stores.js";
import { UNLIMITED_BENCH_AUTH } from "../../bench/benchAuth.js";
import { storedWork } from "../support/storedWork.js";

const A = manifestKey("embedded", "c-a");
const B = manifestKey("embedded", "c-b");
const DATES = ["2021-03-01", "2020-07-15", "2020", null];

const work = (docId: string, ids: Partial<StoredWork>, date: string | null, refs: StoredWork["references"]) =>
  storedWork(docId, ids, refs, date);

/**
 * 70 works citing W1 (by OpenAlex id, DOI or both, some twice): four dates, so most tie; keys of every kind (doc_ids
 * upper case: the order before compared keys by locale, now by code unit, and the two agree on these).
 */
function citingWorks(): StoredWork[] {
  return Array.from({ length: 70 }, (_, i) => {
    const ids =
      i % 4 === 0
        ? { openalex: `W${100 + ((i * 37) % 70)}`, doi: `10.5/c${i}` }
        : i % 4 === 1
          ? { doi: `10.6/c${(i * 13) % 70}` }
          : i % 4 === 2
            ? { pmid: String(500 + ((i * 11) % 70)) }
            : {};
    const refs =
      i % 3 === 0 ? [{ openalex: "W1" }, { doi: "10.1/t" }] : i % 3 === 1 ? [{ openalex: "W1" }] : [{ doi: "10.1/t" }];
    return work(`D${(i * 29) % 70}`, ids, DATES[i % DATES.length]!, [...refs, { openalex: "W9" }]);
  });
}

/** The list as it was read before (every citing document from the works table, grouped, ordered, sliced). */
async function listBefore(db: Db, keys: string[]): Promise<{ held: number; docIds: string[][] }> {
  const rows = await db.query<CitingRow & { index_key: string; doc_id: string }>(
    `SELECT DISTINCT w.index_key, w.doc_id, w.doi, w.pmid, w.openalex, w.fields->>'publication_date' AS date
     FROM work_references e JOIN works w ON w.index_key = e.index_key AND w.doc_id = e.doc_id
     WHERE (e.openalex = 'W1' OR e.doi = '10.1/t') AND e.index_key = ANY($1::text[])`,
    [keys],
  );
  const order = new Map(keys.map((k, i) => [k, i]));
  const groups = groupRows(rows.map((r) => ({ ...r, indexKey: r.index_key, docId: r.doc_id })))
    .map((g) => [...g].sort((a, b) => order.get(a.indexKey)! - order.get(b.indexKey)!))
    .map((g) => ({
      g,
      date: g.map((r) => r.date).find((d) => d !== null) ?? null,
      key: pick(g, (r) => r.openalex) ?? pick(g, (r) => r.doi) ?? pick(g, (r) => r.pmid) ?? g[0]!.docId,
    }))
    // the order as it was written: newest first, then by key (localeCompare)
    .sort((a, b) => (b.date ?? "").localeCompare(a.date ?? "") || a.key.localeCompare(b.key));
  return { held: groups.length, docIds: groups.map(({ g }) => g.map((r) => r.docId)) };
}

describe.each(STORE_KINDS)("cited-by pages (%s)", (kind) => {
  let db: Db;
  const catalog = { collections: [{ name: "c-a" }, { name: "c-b" }] } as never;
  let api: ReturnType<typeof createWorks>;
  beforeAll(async () => {
    db = await freshStore(kind);
    const rowIntegrity = async () => new Map();
    const integrity = async (works: readonly unknown[]) => works.map(() => undefined as never);
    api = createWorks({
      db,
      catalog,
      engineKind: "embedded",
      integrity,
      rowIntegrity,
      clock: () => new Date(),
    } as never);
    await db.transaction((tx) =>
      writeWorks(tx, A, {
        upserts: [work("t", { openalex: "W1", doi: "10.1/t" }, null, []), ...citingWorks()],
        deletes: [],
      }),
    );
  });
  afterAll(() => db.close());

  /** Every page by its nextCursor, 20 a page. */
  async function walk(): Promise<{ held: number; docIds: string[][]; pages: number }> {
    const docIds: string[][] = [];
    let cursor: string | undefined;
    let held: number;
    let pages = 0;
    do {
      const page = await api.citedBy(UNLIMITED_BENCH_AUTH, "W1", { limit: 20, cursor });
      held = page.coverage.held;
      pages++;
      for (const item of page.items as Extract<GraphEntry, { held: true }>[]) docIds.push(idsOf(item));
      cursor = page.nextCursor ?? undefined;
    } while (cursor);
    return { held, docIds, pages };
  }
  // an item names its first row's doc_id; a copy's other rows are compared through the reference's first
  const idsOf = (item: Extract<GraphEntry, { held: true }>) => [item.ids.docId];
  const firsts = (list: { held: number; docIds: string[][] }) => ({
    held: list.held,
    docIds: list.docIds.map((g) => [g[0]!]),
  });

  it("one collection: the pages read from the citing indexes list what the whole list did, in its order", async () => {
    const before = await listBefore(db, [A, B]);
    expect(before.held).toBe(70);
    const after = await walk();
    expect(after.pages).toBe(4);
    expect({ held: after.held, docIds: after.docIds }).toEqual(firsts(before));
  });

  it("a cursor that names only an offset, as earlier pages handed out, still continues the list", async () => {
    const before = await listBefore(db, [A, B]);
    const cursor = listCursorOf({ list: "cited-by", work: "W1", offset: 40 });
    const page = await api.citedBy(UNLIMITED_BENCH_AUTH, "W1", { limit: 20, cursor });
    expect(page.items.map((i) => idsOf(i as never))).toEqual(firsts(before).docIds.slice(40, 60));
    const rest = await api.citedBy(UNLIMITED_BENCH_AUTH, "W1", { limit: 20, cursor: page.nextCursor! });
    expect(rest.items.map((i) => idsOf(i as never))).toEqual(firsts(before).docIds.slice(60));
    expect(rest.nextCursor).toBeNull();
  });

  it("a citing work ingested again with another date moves; a deleted one leaves the list and its count", async () => {
    const moved = citingWorks().find((w) => w.docId === "D5")!;
    await db.transaction((tx) =>
      writeWorks(tx, A, {
        upserts: [{ ...moved, fields: { ...moved.fields, publication_date: "2024-01-01" } }],
        deletes: ["D7"],
      }),
    );
    const before = await listBefore(db, [A, B]);
    expect(before.held).toBe(69);
    expect(before.docIds[0]).toEqual(["D5"]);
    const after = await walk();
    expect({ held: after.held, docIds: after.docIds }).toEqual(firsts(before));
  });

  it("copies of citing works in a second collection group as before, the first collection's row first", async () => {
    // copies: same OpenAlex id or DOI, other dates, one without the id that keys its first copy
    const copies = citingWorks()
      .filter((_, i) => i % 4 < 2 && i % 5 === 0)
      .map((w, k) => ({
        ...w,
        docId: `b${w.docId}`,
        openalex: k % 2 ? null : w.openalex,
        fields: { ...w.fields, publication_date: k % 3 ? "2022-02-02" : null },
      }));
    await db.transaction((tx) => writeWorks(tx, B, { upserts: copies, deletes: [] }));
    const before = await listBefore(db, [A, B]);
    expect(before.held).toBe(69);
    expect(before.docIds.some((g) => g.length === 2)).toBe(true);
    const after = await walk();
    expect({ held: after.held, docIds: after.docIds }).toEqual(firsts(before));
  });
});
