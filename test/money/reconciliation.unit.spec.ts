// Reconciliation's pure rules: a refund tied to a query lands on the collections the query charged, in proportion;
// the period it covers has days that have ended or are today.
import { describe, expect, it } from "vitest";
import { reconciliationPeriod, refundShares } from "../../src/usecases/operator/reconciliation.js";

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

describe("the period a reconciliation covers", () => {
  const today = "2026-12-05";
  it("takes days up to today, either bound left open, over any length", () => {
    expect(reconciliationPeriod(undefined, undefined, today)).toEqual({ ok: true, period: { from: null, to: null } });
    expect(reconciliationPeriod("2026-12-01", today, today)).toEqual({
      ok: true,
      period: { from: "2026-12-01", to: today },
    });
    expect(reconciliationPeriod("2016-01-01", "2026-11-30", today)).toMatchObject({ ok: true });
    expect(reconciliationPeriod(today, undefined, today)).toMatchObject({ ok: true });
  });
  it("refuses a day not yet ended, a day that does not exist, and bounds the wrong way round, naming the fix", () => {
    const error = (from: string | undefined, to: string | undefined) => {
      const p = reconciliationPeriod(from, to, today);
      return p.ok ? null : p.error;
    };
    expect(error(undefined, "2026-12-31")).toBe(
      "to (2026-12-31) is after today (2026-12-05, UTC): the books close at today; give 2026-12-05 or an earlier day",
    );
    expect(error("2026-12-06", undefined)).toMatch(/^from \(2026-12-06\) is after today/);
    expect(error("2026-12-04", "2026-12-01")).toBe("from (2026-12-04) is after to (2026-12-01): swap them");
    expect(error("2026-02-31", undefined)).toBe('from must be a day as YYYY-MM-DD (2026-11-01), not "2026-02-31"');
    expect(error(undefined, "12/01/2026")).toMatch(/^to must be a day as YYYY-MM-DD/);
  });
});
