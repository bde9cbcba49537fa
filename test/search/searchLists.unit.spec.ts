// The pure rules of search lists: cursors (token, binding, exclusion, derived page id), the sort orders, the price cap
// and how a like-work's identifier is read.
import { describe, expect, it } from "vitest";
import {
  assertContinues,
  exclusionAfter,
  nextPageQueryId,
  pageStateOf,
  requestFingerprint,
  type ListIdentity,
} from "../../src/usecases/search/paging.js";
import { cursorOf, queryIdOfCursor } from "../../src/domain/cursors.js";
import { sortRows } from "../../src/usecases/search/sortOrder.js";
import { capToCost } from "../../src/domain/costCap.js";
import { workCondition } from "../../src/usecases/search/moreLikeThis.js";
import { doiOfQuery } from "../../src/usecases/search/identifierQuery.js";
import { Rejection } from "../../src/domain/rejection.js";
import { shapeList } from "../../src/usecases/search/pipeline.js";

const identity: ListIdentity = {
  collections: ["scifact"],
  query: "vitamin d",
  filters: null,
  minRelevance: 0,
  onePerDocument: false,
  sort: "relevance",
};
const codeOf = (fn: () => unknown): string | undefined => {
  try {
    fn();
    return undefined;
  } catch (err) {
    return err instanceof Rejection ? err.code : "not a rejection";
  }
};

describe("cursors", () => {
  const queryId = "0b3c6a39-31a9-4b7e-9d7e-0c5f7f0f3a11";

  it("round-trips a query id through an opaque token and refuses anything else", () => {
    expect(queryIdOfCursor(cursorOf(queryId))).toBe(queryId);
    expect(cursorOf(queryId)).not.toContain(queryId);
    for (const bad of [
      "",
      "abc",
      "c1.",
      `c1.${Buffer.from("x".repeat(36)).toString("base64url")}`,
      cursorOf(queryId) + "A",
      cursorOf(queryId).replace("c1.", "c2."),
    ]) {
      expect(
        codeOf(() => queryIdOfCursor(bad)),
        bad,
      ).toBe("VALIDATION_ERROR");
    }
  });

  it("binds to the list: the same request in any key order or name case agrees; other query, filter, sort not", () => {
    const fp = requestFingerprint(identity);
    expect(requestFingerprint({ ...identity, collections: ["SciFact"], filters: null })).toBe(fp);
    expect(requestFingerprint({ ...identity, filters: { b: 1, a: 2 } })).toBe(
      requestFingerprint({ ...identity, filters: { a: 2, b: 1 } }),
    );
    for (const other of [
      { query: "vitamin c" },
      { collections: ["biomedical"] },
      { filters: { year: 2020 } },
      { sort: "cited_by_count" },
      { minRelevance: 0.2 },
      { onePerDocument: true },
      { query: undefined, like: "W1" },
    ]) {
      expect(requestFingerprint({ ...identity, ...other }), JSON.stringify(other)).not.toBe(fp);
    }
  });

  it("honours a cursor only for its organization, kind and request, while the list goes on and is fresh", () => {
    const fp = requestFingerprint(identity);
    const page = pageStateOf(fp, undefined, true, false);
    const previous = { orgId: "org_a", kind: "search", page, fresh: true };
    expect(assertContinues(previous, "org_a", "search", fp)).toBe(page);
    expect(codeOf(() => assertContinues(undefined, "org_a", "search", fp))).toBe("VALIDATION_ERROR");
    expect(codeOf(() => assertContinues(previous, "org_b", "search", fp))).toBe("VALIDATION_ERROR");
    expect(codeOf(() => assertContinues(previous, "org_a", "preview", fp))).toBe("VALIDATION_ERROR");
    expect(
      codeOf(() => assertContinues(previous, "org_a", "search", requestFingerprint({ ...identity, query: "other" }))),
    ).toBe("VALIDATION_ERROR");
    expect(
      codeOf(() => assertContinues({ ...previous, page: { ...page, continues: false } }, "org_a", "search", fp)),
    ).toBe("VALIDATION_ERROR");
    expect(codeOf(() => assertContinues({ ...previous, fresh: false }, "org_a", "search", fp))).toBe(
      "CACHED_RESULT_EXPIRED",
    );
    expect(codeOf(() => assertContinues({ ...previous, page: undefined }, "org_a", "search", fp))).toBe(
      "VALIDATION_ERROR",
    );
  });

  it("leaves out every earlier page and its documents, and counts pages", () => {
    const row = (id: string, doc: string, doi?: string) => ({
      id,
      physical: "scifact",
      metadata: { doc_id: doc, doi },
    });
    const first = exclusionAfter(
      pageStateOf("fp", undefined, true, true),
      [row("a", "1"), row("b", "2", "10.1/X")],
      true,
    );
    expect([...first.ids]).toEqual(["a", "b"]);
    // every key of each work: its collection's id and its DOI (a cursor of an earlier release holds one of them)
    expect([...first.documents]).toEqual(["scifact\u00001", "scifact\u00002", "doi\u000010.1/x"]);
    expect(first.number).toBe(2);
    const second = exclusionAfter(pageStateOf("fp", first, true, true), [row("c", "3")], true);
    expect([...second.ids]).toEqual(["a", "b", "c"]);
    expect(second.documents.size).toBe(4);
    expect(second.number).toBe(3);
    expect(exclusionAfter(pageStateOf("fp", undefined, true, false), [row("a", "1")], false).documents.size).toBe(0);
    // a titled work is also kept by its title and year, so a later page never sells its reprint under another DOI
    const titled = { ...row("t", "4", "10.1/t"), metadata: { doc_id: "4", doi: "10.1/t" } };
    Object.assign(titled.metadata, { title: "One randomized trial of a therapy for women", publication_date: "2008" });
    const third = exclusionAfter(pageStateOf("fp", second, true, true), [titled], true);
    expect([...third.documents].slice(4)).toEqual([
      "scifact\u00004",
      "doi\u000010.1/t",
      "title\u0000one randomized trial of a therapy for women\u00002008",
      "title\u0000one randomized trial of a therapy for women\u00002009",
    ]);
  });

  it("derives the next page id from the page before and the key alone (a key continues a cursor once)", () => {
    const id = nextPageQueryId(queryId, "key_a");
    expect(id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-8[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(nextPageQueryId(queryId, "key_a")).toBe(id);
    const others = [nextPageQueryId(queryId, "key_b"), nextPageQueryId(id, "key_a")];
    expect(new Set([id, ...others]).size).toBe(3);
  });
});

describe("sort orders", () => {
  const rows = [
    { id: "a", relevance: 0.9, metadata: { publication_date: "2001-05-01", cited_by_count: 3 } },
    { id: "b", relevance: 0.5, metadata: { publication_date: "2019-01-01", cited_by_count: 40 } },
    { id: "c", relevance: 0.7, metadata: { publication_date: null } },
    { id: "d", relevance: 0.6, metadata: { publication_date: "2019-01-01", cited_by_count: 40 } },
    { id: "e", relevance: 0.8, metadata: { publication_date: "1995", cited_by_count: 0 } },
  ];
  const ids = (order: Parameters<typeof sortRows>[1]) => sortRows(rows, order).map((r) => r.id);

  it("orders by the key, relevance breaking ties, rows without the key last in either direction", () => {
    expect(ids("relevance")).toEqual(["a", "b", "c", "d", "e"]);
    expect(ids("publication_date")).toEqual(["d", "b", "a", "e", "c"]);
    expect(ids("publication_date_asc")).toEqual(["e", "a", "d", "b", "c"]);
    expect(ids("cited_by_count")).toEqual(["d", "b", "a", "e", "c"]);
  });
});

describe("the price cap", () => {
  // 100 tokens at 0.030 per 1000 = 3000 micro-credits a row
  const row = (id: string, collection = "scifact", tokens = 100, price = "30000") => ({
    id,
    collection,
    tokens,
    pricePer1000Micros: price,
  });

  it("keeps the best rows while they fit, holds back the rest and names the first one held back", () => {
    const rows = [row("a"), row("b", "scifact", 300), row("c")];
    expect(capToCost(rows, undefined)).toMatchObject({ withheld: 0, nextRowCostMicros: null, costMicros: 15000n });
    const capped = capToCost(rows, 11999n);
    expect(capped.kept.map((r) => r.id)).toEqual(["a"]);
    // a prefix: the cheaper third row does not jump the dearer second
    expect([capped.withheld, capped.nextRowCostMicros, capped.costMicros]).toEqual([2, 9000n, 3000n]);
    expect(capToCost(rows, 15000n).withheld).toBe(0);
  });

  it("rounds once per collection as the charge does, and keeps nothing when the first row does not fit", () => {
    // 0.4 micro-credits a row: three round to 1 together, the fourth makes 2
    const tiny = ["a", "b", "c", "d"].map((id) => row(id, "scifact", 1, "400"));
    expect(capToCost(tiny, 1n).kept.map((r) => r.id)).toEqual(["a", "b", "c"]);
    expect(capToCost([row("a")], 2999n)).toMatchObject({
      kept: [],
      withheld: 1,
      nextRowCostMicros: 3000n,
      costMicros: 0n,
    });
    expect(capToCost([], 0n)).toMatchObject({ kept: [], withheld: 0, nextRowCostMicros: null });
  });

  it("names what the row held back would add, which never fits in what the cap has left", () => {
    // an audit's unlock at a price override of 0.0333 per 1000: rows listed at 6,693 and 5,461 micro-credits charge
    // 12,155 together (12,154.5 rounded once), so a cap of their listed sum keeps one, and the next adds 5,462
    const rows = [row("a", "scifact", 201, "33300"), row("b", "scifact", 164, "33300")];
    const capped = capToCost(rows, 12154n);
    expect([capped.kept.map((r) => r.id), capped.costMicros, capped.nextRowCostMicros]).toEqual([["a"], 6693n, 5462n]);
    expect(capped.nextRowCostMicros! > 12154n - capped.costMicros).toBe(true);
    expect(capToCost(rows, 12154n + 1n).withheld).toBe(0);
  });
});

describe("a like-work's identifier", () => {
  it("reads DOIs in every spelling, pmid:, OpenAlex ids and doc_ids", () => {
    expect(workCondition("10.1002/SIM.5566")).toEqual({ kind: "eq", field: "doi", value: "10.1002/sim.5566" });
    expect(workCondition("https://doi.org/10.1002/sim.5566")).toEqual({
      kind: "eq",
      field: "doi",
      value: "10.1002/sim.5566",
    });
    expect(workCondition("doi:10.1002/sim.5566")).toEqual({ kind: "eq", field: "doi", value: "10.1002/sim.5566" });
    expect(workCondition("pmid:26702166")).toEqual({ kind: "eq", field: "pmid", value: "26702166" });
    expect(workCondition("https://openalex.org/w2125158795")).toEqual({
      kind: "eq",
      field: "doc_id",
      value: "W2125158795",
    });
    expect(workCondition(" 4983 ")).toEqual({ kind: "eq", field: "doc_id", value: "4983" });
    expect(codeOf(() => workCondition("pmid:abc"))).toBe("VALIDATION_ERROR");
  });
});

describe("a DOI as the whole query", () => {
  it("reads a bare DOI, doi: and a doi.org link, a copied full stop aside; never a DOI among words", () => {
    expect(doiOfQuery("10.1037/a0014044")).toBe("10.1037/a0014044");
    expect(doiOfQuery("  https://doi.org/10.1037/A0014044.  ")).toBe("10.1037/a0014044");
    expect(doiOfQuery("doi: 10.1056/NEJMoa1703068")).toBe("10.1056/nejmoa1703068");
    expect(doiOfQuery("doi:10.1056/nejmoa1703068;")).toBe("10.1056/nejmoa1703068");
    expect(doiOfQuery("vitamin D 10.1056/nejmoa1703068")).toBeNull();
    expect(doiOfQuery("10.5 mg of folate")).toBeNull();
    expect(doiOfQuery("pmid:12345678")).toBeNull();
  });
});

describe("what a sorted request's threshold held back", () => {
  it("counts the candidates kept out of the order, where a relevance-ordered list counts its rows held back", () => {
    const row = (id: string, relevance: number, date: string) => ({
      id,
      physical: "scifact",
      collection: "scifact",
      relevance,
      tokens: 10,
      pricePer1000Micros: "1000",
      metadata: { doc_id: id, publication_date: date },
    });
    const ranked = [
      row("a", 0.9, "2001"),
      row("b", 0.5, "2020"),
      row("c", 0.3, "2015"),
      row("d", 0.2, "2023"),
      row("e", 0.1, "2024"),
    ] as unknown as Parameters<typeof shapeList>[0];
    const input = { collections: ["scifact"], query: "q", limit: 10, filters: undefined };
    const selection = { minRelevance: 0.4, onePerDocument: false };
    const sorted = shapeList(ranked, { ...input, selection, sort: "publication_date" }, true);
    expect(sorted.rows.map((r) => r.id)).toEqual(["b", "a"]);
    expect(sorted.sorted).toEqual({ by: "publication_date", minRelevance: 0.4, candidates: 2 });
    expect(sorted.belowMinRelevance).toBe(3);
    const byRelevance = shapeList(ranked, { ...input, selection }, true);
    expect(byRelevance.rows.map((r) => r.id)).toEqual(["a", "b"]);
    expect(byRelevance.belowMinRelevance).toBe(3);
    expect(shapeList(ranked, { ...input, selection, limit: 2 }, true).belowMinRelevance).toBe(0);
  });
});
