// doi_not_in_collection: pinned DOIs the searched collections lack, where they are instead, the ten-DOI cover and the
// time budget (embedded engine on disk).
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createCollectionCatalog } from "../../src/domain/collectionDefinitions.js";
import { checkPinnedDois, doiNotInCollectionWarnings } from "../../src/filters/doiReach.js";
import { doiHoldersIn } from "../../src/usecases/search/doiHolders.js";
import { createEmbeddedEngine } from "../../src/retrieval/engines/embedded/embeddedEngine.js";
import type { ChunkRecord, SearchEngine } from "../../src/retrieval/port.js";

const DIMS = 4;

function chunk(collection: string, n: number, doi: string | null): ChunkRecord {
  return {
    id: `${collection}:${n}:0`,
    text: `chunk ${n} of ${collection}`,
    tokens: 4,
    metadata: { doc_id: String(n), chunk_index: 0, ...(doi ? { doi } : {}) },
    vector: Float32Array.from([1, 0, 0, 0]),
  };
}

/**
 * Collections a, b, c, d: a holds 10.1/a1 and 10.1/shared, b holds 10.1/b1 and 10.1/shared, c holds 10.1/c1, d is not
 * indexed.
 */
const HOLDINGS: Record<string, Array<string | null>> = {
  a: ["10.1/a1", "10.1/shared", null],
  b: ["10.1/b1", "10.1/shared", "10.1/B-UPPER"],
  c: ["10.1/c1"],
};

const catalog = createCollectionCatalog({
  collections: ["a", "b", "c", "d"].map((name) => ({
    name,
    displayName: name,
    description: null,
    kind: "scholarly",
    retrieval: "dense",
    pricePer1000: "0.010",
    openAccessOnly: false,
    scanFilterable: true,
    source: { reader: "beir", files: ["x.jsonl"] },
  })),
  metaCollections: [{ name: "ab", displayName: "a and b", description: null, members: ["a", "b"] }],
});

let dir: string;
let engine: SearchEngine;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "doi-reach-"));
  engine = createEmbeddedEngine({ dir });
  for (const [collection, dois] of Object.entries(HOLDINGS)) {
    await engine.ensureIndex(collection, DIMS);
    await engine.indexChunks(
      collection,
      dois.map((doi, n) => chunk(collection, n, doi)),
    );
    await engine.commit(collection);
  }
});

afterAll(async () => {
  await engine?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

/** The real engine, each count answered `delayMs` late. */
function slowEngine(delayMs: number): Pick<SearchEngine, "countChunks" | "hasIndex"> {
  return {
    hasIndex: (index) => engine.hasIndex(index),
    countChunks: async (index, filter) => {
      await new Promise((resolve) => setTimeout(resolve, delayMs));
      return engine.countChunks(index, filter);
    },
  };
}

describe("doi_not_in_collection", () => {
  it("warns for each pinned DOI no searched collection holds, and only for those, in filter order", async () => {
    const warnings = await doiNotInCollectionWarnings({
      holders: doiHoldersIn(engine),
      dois: ["10.1/a1", "10.1/c1", "10.1/none", "10.1/shared"],
      searched: ["a"],
      unsearchedInScope: ["b"],
      outOfScope: ["c", "d"],
    });
    expect(warnings.map((warning) => [warning.code, warning.field, warning.doi, warning.reason])).toEqual([
      ["doi_not_in_collection", "doi", "10.1/c1", "outside_key_scope"],
      ["doi_not_in_collection", "doi", "10.1/none", "not_held"],
    ]);
    expect(warnings[0].message).toContain('"10.1/c1"');
    expect(warnings[0].message).toContain("only by collections this API key cannot reach");
    expect(warnings[0].message).not.toContain('"c"');
    expect(warnings[1].message).toContain('"10.1/none"');
    expect(warnings[1].message).toContain("no collection of this service holds it");
  });

  it("names the unsearched collections the key can reach that hold the DOI", async () => {
    const [warning] = await doiNotInCollectionWarnings({
      holders: doiHoldersIn(engine),
      dois: ["10.1/b1"],
      searched: ["a", "c"],
      unsearchedInScope: ["b", "d"],
      outOfScope: [],
    });
    expect(warning.message).toBe(
      'The filter asks for DOI "10.1/b1", but it is not in "a", "c": "b" holds it; search that collection to reach it.',
    );
    expect(warning.reason).toBe("in_other_collection");
  });

  it("matches stored DOIs case-insensitively, as the filter does", async () => {
    expect(
      await doiNotInCollectionWarnings({
        holders: doiHoldersIn(engine),
        dois: ["10.1/b-upper"],
        searched: ["b"],
        unsearchedInScope: [],
        outOfScope: [],
      }),
    ).toEqual([]);
  });

  it("checks at most ten DOIs", async () => {
    const dois = Array.from({ length: 14 }, (_, n) => `10.9/missing-${n}`);
    const warnings = await doiNotInCollectionWarnings({
      holders: doiHoldersIn(engine),
      dois,
      searched: ["a"],
      unsearchedInScope: [],
      outOfScope: [],
    });
    expect(warnings).toHaveLength(10);
    expect(warnings.map((warning) => /"(10\.9\/missing-\d+)"/.exec(warning.message)?.[1])).toEqual(dois.slice(0, 10));
  });

  it("omits every warning when the check cannot finish within its budget", async () => {
    const input = { dois: ["10.1/none"], searched: ["a"], unsearchedInScope: ["b"], outOfScope: ["c"] };
    expect(
      await doiNotInCollectionWarnings({ ...input, holders: doiHoldersIn(slowEngine(20)), budgetMs: 2_000 }),
    ).toHaveLength(1);
    const started = performance.now();
    expect(
      await doiNotInCollectionWarnings({ ...input, holders: doiHoldersIn(slowEngine(1_000)), budgetMs: 50 }),
    ).toEqual([]);
    expect(performance.now() - started).toBeLessThan(900);
  });

  it("omits every warning when the engine fails rather than guess", async () => {
    const failing: Pick<SearchEngine, "countChunks" | "hasIndex"> = {
      hasIndex: async () => true,
      countChunks: (index, filter) => engine.countChunks(`${index}-gone`, filter),
    };
    expect(
      await doiNotInCollectionWarnings({
        holders: doiHoldersIn(failing),
        dois: ["10.1/none"],
        searched: ["a"],
        unsearchedInScope: [],
        outOfScope: [],
      }),
    ).toEqual([]);
  });

  it("derives reachable and unreachable collections from the key scope, meta-collections included", async () => {
    const scoped = await checkPinnedDois({
      holders: doiHoldersIn(engine),
      catalog,
      keyScope: ["a"],
      searched: ["a"],
      dois: ["10.1/b1"],
    });
    expect(scoped[0].message).toContain("only by collections this API key cannot reach");
    const viaMeta = await checkPinnedDois({
      holders: doiHoldersIn(engine),
      catalog,
      keyScope: ["AB"],
      searched: ["a"],
      dois: ["10.1/b1", "10.1/c1"],
    });
    expect(viaMeta.map((warning) => warning.message)).toEqual([
      'The filter asks for DOI "10.1/b1", but it is not in "a": "b" holds it; search that collection to reach it.',
      'The filter asks for DOI "10.1/c1", but it is not in "a": it is held only by collections this API key ' +
        "cannot reach.",
    ]);
    const organizationWide = await checkPinnedDois({
      holders: doiHoldersIn(engine),
      catalog,
      keyScope: null,
      searched: ["c"],
      dois: ["10.1/shared"],
    });
    expect(organizationWide[0].message).toContain('"a", "b" hold it; search one of them');
    expect(
      await checkPinnedDois({ holders: doiHoldersIn(engine), catalog, keyScope: null, searched: ["a", "b"], dois: [] }),
    ).toEqual([]);
  });
});
