// Reconciliation's pure folds: a refund tied to a query lands on the collections the query charged, in proportion.
import { describe, expect, it } from "vitest";
import { refundShares } from "../../src/usecases/operator/reconciliation.js";

describe("a refund tied to a query", () => {
  it("lands on the collections the query charged, in proportion, summing to the refund", () => {
    expect(refundShares(20_000n, new Map([["scifact", 52_440n]]))).toEqual([["scifact", 20_000n]]);
    // 2:1, the micro-credit rounding leaves going to the collection that charged most
    const split = refundShares(
      10_001n,
      new Map([
        ["scifact", 1_000n],
        ["openalex-synergy", 2_000n],
      ]),
    );
    expect(split).toEqual([
      ["openalex-synergy", 6_668n],
      ["scifact", 3_333n],
    ]);
    expect(split.reduce((s, [, v]) => s + v, 0n)).toBe(10_001n);
    // a query that charged nothing on its collections: all on the first; one that named none: no share at all
    expect(refundShares(5n, new Map([["scifact", 0n]]))).toEqual([["scifact", 5n]]);
    expect(refundShares(5n, new Map())).toEqual([]);
  });
});
