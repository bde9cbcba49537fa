// The runs an ingestion's commit calls for, planned in batches: each batch begins at the first id of every batch's
// size of watching alerts (50 unless told), in id order, and takes the ids up to the next batch's first, so an alert
// added or deleted between the plan and a batch moves no other alert into another batch (none runs twice, none is
// left out); each run is named by its alert and the ingestion.
import { describe, expect, it } from "vitest";
import { batchBounds, inBatch } from "../../src/usecases/alerts/alertRules.js";
import { runQueryId } from "../../src/usecases/alerts/alertRuns.js";

const idOf = (n: number) => `al_${String(n).padStart(24, "0")}`;

/** Which batch each id falls in: every id from the first bound on in exactly one, an id below it in none. */
function batchOf(bounds: string[], ids: string[]): Map<string, number> {
  const found = new Map<string, number>();
  for (const id of ids) {
    const holders = bounds.flatMap((from, k) => (inBatch(id, from, bounds[k + 1] ?? null) ? [k] : []));
    expect(holders, id).toHaveLength(id >= bounds[0]! ? 1 : 0);
    if (holders.length === 1) found.set(id, holders[0]!);
  }
  return found;
}

describe("an ingestion's batches of alert runs", () => {
  it("begins a batch at every 50th id in id order, whatever order the ids came in", () => {
    const ALERT_BATCH_SIZE = 50;
    const ids = Array.from({ length: 2 * ALERT_BATCH_SIZE + 7 }, (_, n) => idOf(n));
    const shuffled = [...ids].reverse();
    const bounds = batchBounds(shuffled);
    expect(bounds).toEqual([ids[0], ids[ALERT_BATCH_SIZE], ids[2 * ALERT_BATCH_SIZE]]);
    const batches = batchOf(bounds, ids);
    expect([0, 1, 2].map((k) => [...batches.values()].filter((b) => b === k).length)).toEqual([
      ALERT_BATCH_SIZE,
      ALERT_BATCH_SIZE,
      7,
    ]);
    expect(batchBounds([])).toEqual([]);
    expect(batchBounds([idOf(3), idOf(3), idOf(1)], 1)).toEqual([idOf(1), idOf(3)]);
  });

  it("keeps every other alert in its batch when one is added or deleted after the plan", () => {
    const ids = Array.from({ length: 130 }, (_, n) => idOf(2 * n));
    const bounds = batchBounds(ids, 50);
    const before = batchOf(bounds, ids);
    const later = ids.filter((id) => id !== idOf(40)).concat(idOf(101));
    const after = batchOf(bounds, later);
    for (const id of ids.filter((id) => id !== idOf(40))) expect(after.get(id), id).toBe(before.get(id));
    // the new one falls in exactly one batch; an id below the first bound (made after the plan) in none
    expect(after.has(idOf(101))).toBe(true);
    expect(inBatch("al_", bounds[0]!, bounds[1]!)).toBe(false);
  });

  it("names each run by its alert and the ingestion, so a second commit's runs are new ones", () => {
    const id = idOf(1);
    expect(runQueryId(id, "ingestion:a")).toBe(runQueryId(id, "ingestion:a"));
    expect(runQueryId(id, "ingestion:a")).not.toBe(runQueryId(id, "ingestion:b"));
    expect(runQueryId(id, "ingestion:a")).toMatch(
      /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/,
    );
  });
});
