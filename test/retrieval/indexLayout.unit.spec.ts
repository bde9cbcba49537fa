// OPENSEARCH_SHARDS and OPENSEARCH_REPLICAS reach the create-index bodies: a collection's index takes both, the
// inventory index one shard and the same replicas (losing a node must not lose the inventories either). Commit's
// merge of k-NN graphs judges each shard apart.
import { describe, expect, it } from "vitest";
import { graphsWorthMerging } from "../../src/retrieval/engines/opensearch/graphMerge.js";
import {
  chunkIndexBody,
  DEFAULT_INDEX_LAYOUT,
  inventoryIndexBody,
} from "../../src/retrieval/engines/opensearch/indexMapping.js";

const indexSettings = (body: Record<string, unknown>) =>
  (body as { settings: { index: Record<string, unknown> } }).settings.index;

describe("index layout", () => {
  it("is one shard and no replica by default", () => {
    expect(DEFAULT_INDEX_LAYOUT).toEqual({ shards: 1, replicas: 0 });
    expect(indexSettings(chunkIndexBody(384, "knn"))).toMatchObject({ number_of_shards: 1, number_of_replicas: 0 });
    expect(indexSettings(inventoryIndexBody())).toMatchObject({ number_of_shards: 1, number_of_replicas: 0 });
  });

  it("splits and copies a collection's index as configured, and copies the inventory as often", () => {
    const layout = { shards: 3, replicas: 1 };
    expect(indexSettings(chunkIndexBody(384, "binary", "bge-small", layout))).toMatchObject({
      number_of_shards: 3,
      number_of_replicas: 1,
    });
    expect(indexSettings(inventoryIndexBody(layout))).toMatchObject({ number_of_shards: 1, number_of_replicas: 1 });
  });
});

describe("merging a k-NN index's graphs at commit", () => {
  it("merges a shard whose segments beside its largest hold more than a fifth of it", () => {
    expect(graphsWorthMerging([[22_000, 22_000, 22_000, 9_000]])).toBe(true);
    expect(graphsWorthMerging([[100_000, 1_000]])).toBe(false);
    expect(graphsWorthMerging([[100_000]])).toBe(false);
    expect(graphsWorthMerging([])).toBe(false);
  });

  it("leaves several shards of one segment each alone, and merges when any one shard needs it", () => {
    const merged = Array.from({ length: 8 }, () => [125_000]);
    expect(graphsWorthMerging(merged)).toBe(false);
    expect(graphsWorthMerging([...merged.slice(1), [60_000, 60_000]])).toBe(true);
    expect(graphsWorthMerging([...merged.slice(1), [125_000, 3_000]])).toBe(false);
  });
});
