// The recent queries' filter: the form's text read into a filter (each bad value refused naming its field and fix),
// and which searches and previews pass it.
import { describe, expect, it } from "vitest";
import {
  isNoFilter,
  NO_FILTER,
  passesQueryFilter,
  queryFilterOf,
} from "../../src/usecases/dashboard/recentQueryRules.js";
import { Rejection } from "../../src/domain/rejection.js";

const refusal = (f: () => unknown) => {
  try {
    f();
  } catch (err) {
    expect(err).toBeInstanceOf(Rejection);
    return { message: (err as Rejection).message, field: (err as Rejection).details?.field };
  }
  throw new Error("not refused");
};

describe("the recent queries' filter", () => {
  it("reads the form: empty fields filter nothing, days as a range to the end of `to`, costs in credits", () => {
    expect(queryFilterOf({})).toEqual(NO_FILTER);
    expect(isNoFilter(queryFilterOf({ key: " ", collection: "", from: "" }))).toBe(true);
    expect(
      queryFilterOf({
        key: " key_1 ",
        collection: "SciFact",
        from: "2031-05-01",
        to: "2031-05-06",
        minCost: "0.01",
        maxCost: "2",
      }),
    ).toEqual({
      keyId: "key_1",
      collection: "scifact",
      fromTime: "2031-05-01T00:00:00.000Z",
      untilTime: "2031-05-07T00:00:00.000Z",
      minCostMicros: 10_000n,
      maxCostMicros: 2_000_000n,
    });
  });

  it("refuses what is not a day or an amount, and ranges that end before they start, naming the field", () => {
    expect(refusal(() => queryFilterOf({ from: "2031-02-30" }))).toMatchObject({ field: "from" });
    expect(refusal(() => queryFilterOf({ to: "yesterday" })).message).toContain("to: write a day as YYYY-MM-DD");
    expect(refusal(() => queryFilterOf({ from: "2031-05-06", to: "2031-05-01" }))).toMatchObject({ field: "to" });
    expect(refusal(() => queryFilterOf({ minCost: "-1" }))).toMatchObject({ field: "minCost" });
    expect(refusal(() => queryFilterOf({ maxCost: "1e9" })).message).toContain("maxCost: write an amount in credits");
    expect(refusal(() => queryFilterOf({ minCost: "2", maxCost: "1" }))).toMatchObject({ field: "maxCost" });
    // what was typed is quoted back cut short, never whole
    expect(refusal(() => queryFilterOf({ from: "x".repeat(500) })).message.length).toBeLessThan(120);
  });

  it("passes a query on its key, collection (any case), day and cost, bounds included", () => {
    const q = { keyId: "k1", collections: ["SciFact", "pubmed"], time: "2031-05-06T23:59:59.000Z", costMicros: 500n };
    const f = queryFilterOf({ key: "k1", collection: "scifact", from: "2031-05-06", to: "2031-05-06" });
    expect(passesQueryFilter(q, f)).toBe(true);
    expect(passesQueryFilter(q, queryFilterOf({ minCost: "0.0005", maxCost: "0.0005" }))).toBe(true);
    expect(passesQueryFilter(q, { ...f, keyId: "k2" })).toBe(false);
    expect(passesQueryFilter(q, queryFilterOf({ collection: "biomedical" }))).toBe(false);
    expect(passesQueryFilter(q, queryFilterOf({ to: "2031-05-05" }))).toBe(false);
    expect(passesQueryFilter(q, queryFilterOf({ from: "2031-05-07" }))).toBe(false);
    expect(passesQueryFilter(q, queryFilterOf({ minCost: "0.000501" }))).toBe(false);
    expect(passesQueryFilter(q, queryFilterOf({ maxCost: "0.000499" }))).toBe(false);
  });
});
