import { describe, expect, it } from "vitest";
import { REPO_ROOT } from "../../src/app/config.js";
import { OPENSEARCH_MAPPING_VERSION } from "../../src/retrieval/engines/opensearch/indexMapping.js";
import { AGAINST_COLLECTION, indexReusable, mappingVersionOf, treeCollection } from "../../bench/treeIndexes.js";
import { SCIFACT_COLLECTION } from "../../bench/scifactBench.js";
import { missingDependencies } from "../../bench/againstDeps.js";

describe("bench:speed --against: the index each tree searches", () => {
  it("gives this tree SciFact's own collection, whatever the other tree writes", () => {
    expect(treeCollection("this", 4, 3)).toBe(SCIFACT_COLLECTION);
    expect(treeCollection("this", 4, undefined)).toBe(SCIFACT_COLLECTION);
  });

  it("gives the other tree an index of its own when the mapping versions differ or its version is unknown", () => {
    // 0f66c9d (version 3) against a version 4 tree: the older adapter refuses the newer index, and this tree's
    // adapter (the floor's) would upgrade an older one in place between the trees
    expect(treeCollection("against", 4, 3)).toBe(AGAINST_COLLECTION);
    expect(treeCollection("against", 3, 4)).toBe(AGAINST_COLLECTION);
    expect(treeCollection("against", 4, undefined)).toBe(AGAINST_COLLECTION);
    expect(treeCollection("against", undefined, undefined)).toBe(AGAINST_COLLECTION);
    expect(AGAINST_COLLECTION).not.toBe(SCIFACT_COLLECTION);
  });

  it("shares the index when both adapters write the same version", () => {
    expect(treeCollection("against", 4, 4)).toBe(SCIFACT_COLLECTION);
  });

  it("keeps an index on the node only when it is whole and of the tree's own mapping version", () => {
    expect(indexReusable({ mappingVersion: 3, chunks: 10 }, 3, 10)).toBe(true);
    expect(indexReusable({ mappingVersion: 4, chunks: 10 }, 3, 10)).toBe(false);
    expect(indexReusable({ mappingVersion: 3, chunks: 9 }, 3, 10)).toBe(false);
    expect(indexReusable({ mappingVersion: undefined, chunks: 10 }, 3, 10)).toBe(false);
    expect(indexReusable({ mappingVersion: 3, chunks: 10 }, undefined, 10)).toBe(false);
    expect(indexReusable(undefined, 3, 10)).toBe(false);
  });

  it("reads a tree's mapping version from its adapter, and none from a tree without one", async () => {
    expect(await mappingVersionOf(REPO_ROOT)).toBe(OPENSEARCH_MAPPING_VERSION);
    expect(await mappingVersionOf("/nonexistent-tree")).toBeUndefined();
  });
});

describe("bench:speed --against: the other commit's dependencies", () => {
  it("names the runtime dependencies this checkout does not install, with their ranges", () => {
    const installed = (name: string) => name !== "cli-progress";
    expect(missingDependencies({ dependencies: { koa: "^2", "cli-progress": "3.12.0" } }, installed)).toEqual([
      "cli-progress@3.12.0",
    ]);
    expect(missingDependencies({ dependencies: { koa: "^2" } }, installed)).toEqual([]);
    expect(missingDependencies({}, installed)).toEqual([]);
  });
});
