// The k-NN query the OpenSearch adapter asks: ef_search grows with the largest shard's chunks unless the engine was
// given one, and is never below k; the filter goes inside the knn clause, so Lucene applies it during the graph walk.
// A dense score is turned back into the cosine it stands for.
import { describe, expect, it } from "vitest";
import {
  DENSE_SCORE_COSINE_ERROR,
  cosineFromScore,
  denseQuery,
  efSearchFor,
  largestPrimaryShard,
} from "../../src/retrieval/engines/opensearch/denseScoring.js";

const vector = Float32Array.from([0.6, 0.8]);
/** the service's ef_search and a small graph's, read through the rule that picks them */
const HNSW_EF_SEARCH = efSearchFor(undefined);
const SMALL_GRAPH_EF_SEARCH = efSearchFor(0);
/** the shard size up to which a graph is small (denseScoring.ts says why) */
const SMALL_GRAPH_CHUNKS = 150_000;
const filter = { range: { "metadata.publication_date": { gte: "2016" } } };

function knnClause(query: Record<string, unknown>): Record<string, unknown> {
  return (query.knn as Record<string, Record<string, unknown>>).vector_knn!;
}

describe("dense k-NN query", () => {
  it("asks the service ef_search for a small k and k itself for a larger one", () => {
    expect(knnClause(denseQuery(vector, "knn", [], 10))).toMatchObject({
      k: 10,
      method_parameters: { ef_search: HNSW_EF_SEARCH },
    });
    const large = HNSW_EF_SEARCH + 50;
    expect(knnClause(denseQuery(vector, "knn", [], large))).toMatchObject({
      k: large,
      method_parameters: { ef_search: large },
    });
  });

  it("searches shards up to SMALL_GRAPH_CHUNKS with the smaller ef_search, larger or uncounted the larger", () => {
    expect([SMALL_GRAPH_EF_SEARCH, HNSW_EF_SEARCH]).toEqual([400, 800]);
    expect(efSearchFor(10_144)).toBe(SMALL_GRAPH_EF_SEARCH);
    expect(efSearchFor(SMALL_GRAPH_CHUNKS)).toBe(SMALL_GRAPH_EF_SEARCH);
    expect(efSearchFor(SMALL_GRAPH_CHUNKS + 1)).toBe(HNSW_EF_SEARCH);
    // a million chunks in 8 shards of 125,000: each graph is small
    expect(efSearchFor(125_000)).toBe(SMALL_GRAPH_EF_SEARCH);
    expect(efSearchFor(undefined)).toBe(HNSW_EF_SEARCH);
    expect(knnClause(denseQuery(vector, "knn", [], 100, efSearchFor(0)))).toMatchObject({
      method_parameters: { ef_search: SMALL_GRAPH_EF_SEARCH },
    });
  });

  it("reads the largest primary shard from _cat/shards rows: replicas and unassigned shards do not count", () => {
    const rows = [
      { prirep: "p", docs: "124522" },
      { prirep: "r", docs: "200000" },
      { prirep: "p", docs: "125489" },
      { prirep: "p", docs: null },
    ];
    expect(largestPrimaryShard(rows)).toBe(125_489);
    expect(efSearchFor(largestPrimaryShard(rows))).toBe(SMALL_GRAPH_EF_SEARCH);
    expect(largestPrimaryShard([{ prirep: "p", docs: "150001" }])).toBe(150_001);
    expect(largestPrimaryShard([])).toBe(0);
  });

  it("takes the engine ef_search when one is given, still never below k", () => {
    expect(knnClause(denseQuery(vector, "knn", [], 10, 50))).toMatchObject({ method_parameters: { ef_search: 50 } });
    expect(knnClause(denseQuery(vector, "knn", [], 100, 50))).toMatchObject({ method_parameters: { ef_search: 100 } });
  });

  it("puts the filter inside the knn clause, and none when there is none", () => {
    expect(knnClause(denseQuery(vector, "knn", [filter], 10)).filter).toEqual({ bool: { filter: [filter] } });
    expect(knnClause(denseQuery(vector, "knn", [], 10))).not.toHaveProperty("filter");
  });
});

describe("cosine from a dense score", () => {
  it("inverts Lucene's (1 + cosine) / 2 and the script's 1 + cosine, each a float, within the error bound", () => {
    for (const cosine of [-1, -0.25, 0, 0.1234567891, 0.61803398875, 0.999999, 1]) {
      expect(Math.abs(cosineFromScore("knn", Math.fround((1 + cosine) / 2)) - cosine)).toBeLessThanOrEqual(2 ** -23);
      expect(Math.abs(cosineFromScore("binary", Math.fround(1 + cosine)) - cosine)).toBeLessThanOrEqual(2 ** -23);
    }
    // JSON carries the float's shortest decimal: the float it names is recovered before inverting
    expect(cosineFromScore("knn", 0.56915605)).toBe(2 * Math.fround(0.56915605) - 1);
    expect(DENSE_SCORE_COSINE_ERROR).toBeGreaterThan(384 * 2 ** -24);
  });
});
