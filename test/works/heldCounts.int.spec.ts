// The counts every works answer carries, kept right as works arrive, change and leave: a work's count of held
// references (kept with its edges in work_reference_holds at ingestion) equals the lookup of each cited id in the works
// table that it replaced, for a key reaching both collections and for a key reaching one, after the cited work arrives
// after the citing one, changes ids, is deleted, has a twin, or its collection is retired; and a work's count of
// citing works is the length of its cited-by list when its citing works are held in two collections.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Db } from "../../src/eventstore/db.js";
import { clearWorks, worksMissing, writeWorks, type StoredWork, type WorksChange } from "../../src/ingest/works.js";
import { manifestKey } from "../../src/ingest/manifest.js";
import { createWorks } from "../../src/usecases/works/works.js";
import type { GraphEntry } from "../../src/usecases/works/workShapes.js";
import type { AuthContext } from "../../src/usecases/auth/context.js";
import { freshStore, STORE_KINDS } from "../support/stores.js";
import { UNLIMITED_BENCH_AUTH } from "../../bench/benchAuth.js";
import { storedWork } from "../support/storedWork.js";

const A = manifestKey("embedded", "c-a");
const B = manifestKey("embedded", "c-b");
const ONLY_A = { ...UNLIMITED_BENCH_AUTH, key: { id: "key_a", collections: ["c-a"] } } as unknown as AuthContext;

const work = (docId: string, ids: Partial<StoredWork>, refs: StoredWork["references"] = []) =>
  storedWork(docId, ids, refs);

/** The count as it was read before it was kept: each of the holder's entries looked up in the works table. */
async function lookedUp(db: Db, indexKey: string, docId: string, keys: string[]): Promise<number> {
  const [row] = await db.query<{ n: number | string }>(
    `SELECT count(*) AS n FROM work_references e WHERE e.index_key = $1 AND e.doc_id = $2 AND (
       EXISTS (SELECT 1 FROM works w WHERE e.doi IS NOT NULL AND w.doi = e.doi AND w.index_key = ANY($3::text[]))
       OR EXISTS (SELECT 1 FROM works w WHERE e.pmid IS NOT NULL AND w.pmid = e.pmid AND w.index_key = ANY($3::text[]))
       OR EXISTS (SELECT 1 FROM works w WHERE e.openalex IS NOT NULL AND w.openalex = e.openalex
         AND w.index_key = ANY($3::text[])))`,
    [indexKey, docId, keys],
  );
  return Number(row!.n);
}

describe.each(STORE_KINDS)("kept counts (%s)", (kind) => {
  let db: Db;
  const collections = [{ name: "c-a" }, { name: "c-b" }];
  const catalog = {
    collections,
    resolveCollection: (name: string) => collections.find((c) => c.name === name),
    physicalMembers: (entry: { name: string }) => [entry],
  } as never;
  let api: ReturnType<typeof createWorks>;
  beforeAll(async () => {
    db = await freshStore(kind);
    api = createWorks({
      db,
      catalog,
      engineKind: "embedded",
      integrity: async (works: readonly unknown[]) => works.map(() => undefined as never),
      rowIntegrity: async () => new Map(),
      clock: () => new Date(),
    } as never);
  });
  afterAll(() => db.close());

  const write = (indexKey: string, change: Partial<WorksChange>) =>
    db.transaction((tx) => writeWorks(tx, indexKey, { upserts: [], deletes: [], ...change }));
  /** W100's count of held references for a key reaching both collections and for one reaching c-a, checked against
   * the lookup it replaced. */
  async function held(): Promise<[number, number]> {
    const both = (await api.get(UNLIMITED_BENCH_AUTH, "W100")).referencesHeld;
    const onlyA = (await api.get(ONLY_A, "W100")).referencesHeld;
    expect([both, onlyA]).toEqual([await lookedUp(db, A, "c", [A, B]), await lookedUp(db, A, "c", [A])]);
    return [both, onlyA];
  }
  const citing = (refs: StoredWork["references"]) => work("c", { openalex: "W100" }, refs);

  it("follows the cited works as they arrive after the citing one, change ids, have twins and leave", async () => {
    await write(A, {
      upserts: [
        citing([{ openalex: "W2" }, { doi: "10.1/x" }, { pmid: "77" }, { openalex: "W404" }, { doi: "10.1/y" }]),
      ],
    });
    expect(await held()).toEqual([0, 0]);
    await write(B, { upserts: [work("w2", { openalex: "W2" })] });
    expect(await held()).toEqual([1, 0]);
    await write(A, { upserts: [work("x", { doi: "10.1/x" })] });
    expect(await held()).toEqual([2, 1]);
    await write(A, { upserts: [work("y1", { doi: "10.1/y" }), work("y2", { doi: "10.1/y" })] });
    expect(await held()).toEqual([3, 2]);
    // one twin deleted: the other still holds the entry
    await write(A, { deletes: ["y1"] });
    expect(await held()).toEqual([3, 2]);
    await write(A, { deletes: ["y2"] });
    expect(await held()).toEqual([2, 1]);
    // the cited work ingested again under another id: the entry naming its old id is no longer held
    await write(B, { upserts: [work("w2", { openalex: "W3" })] });
    expect(await held()).toEqual([1, 1]);
    await write(A, { deletes: ["x"] });
    expect(await held()).toEqual([0, 0]);
  });

  it("follows the citing work ingested again, a replacing ingestion and a retired collection", async () => {
    await write(B, { upserts: [work("p", { pmid: "77" })] });
    expect(await held()).toEqual([1, 0]);
    await write(A, { upserts: [citing([{ pmid: "77" }, { openalex: "W3" }, { openalex: "W100" }])] });
    // W3 is w2 in c-b; the work citing itself is held in c-a
    expect(await held()).toEqual([3, 1]);
    await db.transaction((tx) => writeWorks(tx, B, { upserts: [], deletes: [], keepOnly: ["p"] }));
    expect(await held()).toEqual([2, 1]);
    await clearWorks(db, B);
    expect(await held()).toEqual([1, 1]);
    const rows = await db.query<{ n: number | string }>(
      "SELECT count(*) AS n FROM work_reference_holds WHERE index_key = $1 OR held_key = $1",
      [B],
    );
    expect(Number(rows[0]!.n)).toBe(0);
  });

  it("counts a work's citing works as its cited-by list lists them, citing works held in two collections", async () => {
    // b (c-b) shares a DOI with a (c-a) and an OpenAlex id with c (c-b): one work, however its rows are read
    await write(A, {
      upserts: [work("t", { openalex: "W1" }), work("a", { doi: "10.7/x" }, [{ openalex: "W1" }])],
    });
    await write(B, {
      upserts: [
        work("cb", { openalex: "W5" }, [{ openalex: "W1" }]),
        work("bb", { doi: "10.7/x", openalex: "W5" }, [{ openalex: "W1" }]),
        work("d", { pmid: "8" }, [{ openalex: "W1" }]),
        work("d2", { pmid: "8" }, [{ openalex: "W1" }]),
        work("e", { doi: "10.7/e" }, [{ openalex: "W1" }]),
      ],
    });
    const target = await api.get(UNLIMITED_BENCH_AUTH, "W1");
    const listed: GraphEntry[] = [];
    let cursor: string | undefined;
    let held: number;
    do {
      const page = await api.citedBy(UNLIMITED_BENCH_AUTH, "W1", { limit: 2, cursor });
      held = page.coverage.held;
      listed.push(...page.items);
      cursor = page.nextCursor ?? undefined;
    } while (cursor);
    expect(target.citedByHeld).toBe(3);
    expect(held).toBe(3);
    expect(listed).toHaveLength(3);
  });

  it("has an index read again at start until its works say whether their source gave text (records kept)", async () => {
    const key = manifestKey("embedded", "c-read-again");
    expect(await worksMissing(db, key)).toBe(true);
    // recorded before documents without text were kept as records: no work says has_text
    await write(key, { upserts: [work("old", { doi: "10.1/old" })] });
    expect(await worksMissing(db, key)).toBe(true);
    const recorded = work("new", { doi: "10.1/new" });
    await write(key, { upserts: [{ ...recorded, fields: { ...recorded.fields, has_text: true } }] });
    expect(await worksMissing(db, key)).toBe(false);
  });
});
