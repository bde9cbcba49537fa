// The money's projection, moved from projections/ to the accounts and unlock features (issue 50), folds a log that
// moves money every way into the same changes, in the same order, and the same tables as before the move (the fixture
// was written by the registry's projection of that time).
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { REPO_ROOT } from "../../src/app/config.js";
import { FEATURE_PROJECTORS } from "../../src/app/projectors.js";
import { foldMoney } from "./moneyEvents.js";

const before = JSON.parse(
  readFileSync(join(REPO_ROOT, "test/fixtures/projections/moneyFold.json"), "utf8"),
) as ReturnType<typeof foldMoney>;

describe("the money's projection beside its features", () => {
  it("changes the same rows in the same order as before it moved", () => {
    expect(JSON.parse(JSON.stringify(foldMoney(FEATURE_PROJECTORS).changes))).toEqual(before.changes);
  });

  it("leaves the same balances, ledger, usage, unlocks, prices and organizations", () => {
    const { tables } = foldMoney(FEATURE_PROJECTORS);
    expect(JSON.parse(JSON.stringify(tables))).toEqual(before.tables);
    const ledger = tables.ledger.map(([, r]) => r as { position: number; type: string });
    expect(ledger.sort((a, b) => a.position - b.position).map((r) => r.type)).toEqual([
      "credit",
      "charge",
      "unlock",
      "charge",
      "refund",
      "refund",
    ]);
  });
});
