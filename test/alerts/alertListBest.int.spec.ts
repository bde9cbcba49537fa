// An alert's list bests (alertListBest.ts), on PGlite and a real PostgreSQL server: a best read from the whole list
// replaces the one kept and dates it; a new work's better row raises it and keeps its date; a best never read whole
// and one a day old are not handed to a run, which then reads the whole list again; a best that changes nothing is not
// written; a deleted alert's are dropped, and a run whose alert is deleted meanwhile writes none back.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Db } from "../../src/eventstore/db.js";
import { forgetListBest, keepListBest, loadListBest } from "../../src/usecases/alerts/alertListBest.js";

/** How long a list best stands (alertListBest.ts LIST_BEST_MAX_AGE_MS): a day. */
const LIST_BEST_MAX_AGE_MS = 24 * 3_600_000;
import { freshStore, STORE_KINDS } from "../support/stores.js";

describe.each(STORE_KINDS)("alert list bests on %s", (kind) => {
  let db: Db;
  beforeAll(async () => {
    db = await freshStore(kind);
    // the alerts' rows, as their creation projects them: a best is kept only for an alert not deleted
    await db.query(
      `INSERT INTO proj_alerts (alert_id, org_id, key_id, definition, state, created_at, seen, runs)
       SELECT a, 'org_t', 'key_t', '{}', 'active', now(), '[]', 0 FROM unnest($1::text[]) AS a`,
      [["al_a", "al_b", "al_c", "al_d", "al_e", "al_f"]],
    );
  });
  afterAll(async () => {
    await db?.close();
  });

  it("keeps the whole list's best, raises it by a better row, and hands a run only a fresh one", async () => {
    const t0 = new Date("2031-03-01T00:00:00.000Z");
    const later = (ms: number) => new Date(t0.getTime() + ms);
    const whole = (best: Record<string, number>) => ({
      best: new Map(Object.entries(best)),
      searchedWhole: Object.keys(best),
    });
    await keepListBest(
      db,
      [
        { alertId: "al_a", listBest: whole({ notes: 0.62, pubmed: 0.41 }) },
        { alertId: "al_b", listBest: whole({ notes: 0.55 }) },
      ],
      t0,
    );
    expect(await loadListBest(db, ["al_a", "al_b", "al_none"], later(1000))).toEqual(
      new Map([
        [
          "al_a",
          new Map([
            ["notes", 0.62],
            ["pubmed", 0.41],
          ]),
        ],
        ["al_b", new Map([["notes", 0.55]])],
      ]),
    );
    // a run within new works: a better new row raises notes (its date kept), a worse one leaves pubmed; a collection
    // never read whole is kept but not handed out
    await keepListBest(
      db,
      [
        {
          alertId: "al_a",
          listBest: {
            best: new Map([
              ["notes", 0.7],
              ["pubmed", 0.3],
              ["arxiv", 0.5],
            ]),
            searchedWhole: [],
          },
        },
      ],
      later(3_600_000),
    );
    expect((await loadListBest(db, ["al_a"], later(7_200_000))).get("al_a")).toEqual(
      new Map([
        ["notes", 0.7],
        ["pubmed", 0.41],
      ]),
    );
    // a day after its whole read, no best is handed out; read whole again, a lower best replaces it
    expect(await loadListBest(db, ["al_a"], later(LIST_BEST_MAX_AGE_MS + 1))).toEqual(new Map());
    await keepListBest(db, [{ alertId: "al_a", listBest: whole({ notes: 0.6 }) }], later(LIST_BEST_MAX_AGE_MS + 2));
    expect((await loadListBest(db, ["al_a"], later(LIST_BEST_MAX_AGE_MS + 3))).get("al_a")).toEqual(
      new Map([["notes", 0.6]]),
    );
  });

  it("writes no row whose best changes nothing, and drops a deleted alert's", async () => {
    const t0 = new Date("2031-04-01T00:00:00.000Z");
    const written = async () =>
      (
        await db.query<{ alert_id: string; v: string }>(
          "SELECT alert_id, xmin::text AS v FROM alert_list_best WHERE alert_id IN ('al_c', 'al_d') ORDER BY alert_id",
        )
      ).map((r) => `${r.alert_id}@${r.v}`);
    const raised = (best: number) => ({ best: new Map([["notes", best]]), searchedWhole: [] });
    await keepListBest(
      db,
      [
        { alertId: "al_c", listBest: { best: new Map([["notes", 0.5]]), searchedWhole: ["notes"] } },
        { alertId: "al_d", listBest: { best: new Map([["notes", 0.5]]), searchedWhole: ["notes"] } },
      ],
      t0,
    );
    const before = await written();
    // the same best, and a lower one, within a run: no row version changes
    await keepListBest(
      db,
      [
        { alertId: "al_c", listBest: raised(0.5) },
        { alertId: "al_d", listBest: raised(0.4) },
      ],
      t0,
    );
    expect(await written()).toEqual(before);
    // a better one is written
    await keepListBest(db, [{ alertId: "al_c", listBest: raised(0.6) }], t0);
    const after = await written();
    expect(after[0]).not.toEqual(before[0]);
    expect(after[1]).toEqual(before[1]);
    await forgetListBest(db, "al_c");
    expect(await loadListBest(db, ["al_c", "al_d"], t0)).toEqual(new Map([["al_d", new Map([["notes", 0.5]])]]));
  });

  it("keeps no best of an alert deleted, nor of one whose deletion commits while a run writes", async () => {
    const t0 = new Date("2031-05-01T00:00:00.000Z");
    const whole = { best: new Map([["notes", 0.5]]), searchedWhole: ["notes"] };
    await db.query("UPDATE proj_alerts SET state = 'deleted' WHERE alert_id = 'al_e'");
    await keepListBest(
      db,
      [
        { alertId: "al_e", listBest: whole },
        { alertId: "al_none", listBest: whole },
      ],
      t0,
    );
    // the deletion's transaction has projected the state and not committed when the run's best arrives
    let commit!: () => void;
    let projected!: () => void;
    const deletionProjected = new Promise<void>((resolve) => (projected = resolve));
    const deletion = db.transaction(async (tx) => {
      await tx.query("UPDATE proj_alerts SET state = 'deleted' WHERE alert_id = 'al_f'");
      projected();
      await new Promise<void>((resolve) => (commit = resolve));
    });
    await deletionProjected;
    const kept = keepListBest(db, [{ alertId: "al_f", listBest: whole }], t0);
    await new Promise((resolve) => setTimeout(resolve, 200));
    commit();
    await Promise.all([deletion, kept]);
    const rows = await db.query<{ alert_id: string }>(
      "SELECT alert_id FROM alert_list_best WHERE alert_id IN ('al_e', 'al_f', 'al_none')",
    );
    expect(rows).toEqual([]);
  });
});
