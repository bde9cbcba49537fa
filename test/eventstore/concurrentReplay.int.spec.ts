// Two replays at once on PGlite and on a real PostgreSQL server (one process, and two processes sharing the database):
// one rebuilds and reports, the other is refused with 409 CONFLICT; neither reports a false divergence.
import { afterEach, describe, expect, it } from "vitest";
import { openPostgres, type Db } from "../../src/eventstore/db.js";
import { migrate } from "../../src/eventstore/schema.js";
import { FEATURE_PROJECTORS, PROJECTION_READ_MODELS } from "../../src/app/projectors.js";
import { createAccounts } from "../../src/usecases/accounts/accounts.js";
import { createOperations } from "../../src/usecases/operator/operations.js";
import { promoteReplay, replayProjections, type ReplayReport } from "../../projections/replay.js";
import { DEFAULT_LIMITS, type Actor } from "../../src/domain/events.js";
import { Rejection } from "../../src/domain/rejection.js";
import { createPostgresDatabase, freshStore, STORE_KINDS } from "../support/stores.js";

const operator: Actor = { kind: "operator", id: "test" };
const open: Db[] = [];

afterEach(async () => {
  for (const db of open.splice(0)) await db.close();
});

/** A log worth replaying: organizations, credits, keys and a few hundred charges. */
async function history(db: Db): Promise<void> {
  const accounts = createAccounts(db);
  for (let o = 0; o < 3; o++) {
    const org = await accounts.createOrganization(
      { name: `Replayed ${o}`, billingMode: "live", limits: DEFAULT_LIMITS },
      operator,
    );
    await accounts.addCredits(org.id, 10_000_000n, "top-up", operator);
    const key = await accounts.createKey(
      org.id,
      { mode: "live", collections: null, spendingCapMicros: null },
      operator,
    );
    await Promise.all(
      Array.from({ length: 100 }, (_, i) =>
        accounts.chargeSearch({
          orgId: org.id,
          keyId: key.id,
          queryId: `q-${o}-${i}`,
          endpoint: "/query",
          collections: [{ collection: "scifact", tokens: 10, pricePer1000Micros: "1000", amountMicros: "10" }],
        }),
      ),
    );
  }
}

/** What a replay answered: its verdict, or the code it was refused with. */
const outcomeOf = (r: PromiseSettledResult<ReplayReport>) =>
  r.status === "fulfilled"
    ? r.value.equal
      ? "equal"
      : "FALSE DIVERGENCE"
    : r.reason instanceof Rejection
      ? r.reason.code
      : `error: ${String(r.reason)}`;

describe.each(STORE_KINDS)("concurrent replays on %s", (kind) => {
  it("refuses the second replay of one process with 409 CONFLICT, and the first reports equal", async () => {
    const db = await freshStore(kind);
    open.push(db);
    await history(db);
    const operations = createOperations(createAccounts(db));
    const settled = await Promise.allSettled([operations.replay(), operations.replay()]);
    expect(settled.map(outcomeOf)).toEqual(["equal", "CONFLICT"]);
    expect((settled[1] as PromiseRejectedResult).reason.message).toMatch(/already running/);
    // nor does a promotion run under a replay: it would copy half-filled scratch tables into the live ones
    const [replay, promotion] = await Promise.allSettled([replayProjections(db), promoteReplay(db)]);
    expect([outcomeOf(replay), promotion.status === "rejected" && (promotion.reason as Rejection).code]).toEqual([
      "equal",
      "CONFLICT",
    ]);
    // once the first is done, the next replay runs
    expect((await operations.replay()).equal).toBe(true);
  });
});

describe.each(STORE_KINDS)("a replay while appends go on, on %s", (kind) => {
  it("compares the live projections and the log at one cut: never a false divergence or discrepancy", async () => {
    const db = await freshStore(kind);
    open.push(db);
    await history(db);
    const accounts = createAccounts(db);
    const org = await accounts.createOrganization(
      { name: "Busy", billingMode: "live", limits: { ...DEFAULT_LIMITS, perMinute: 100_000, daily: 100_000 } },
      operator,
    );
    const key = await accounts.createKey(
      org.id,
      { mode: "live", collections: null, spendingCapMicros: null },
      operator,
    );
    await accounts.addCredits(org.id, 100_000_000n, "busy", operator);
    let writing = true;
    let appended = 0;
    // credits take the append lock; charges are written on the head their batch knew and take none: both kinds
    // keep landing while a replay compares
    const writers = Array.from({ length: 4 }, async (_, w) => {
      for (let i = 0; writing; i++) {
        if (w === 0) await accounts.addCredits(org.id, 1000n, `busy ${w}-${i}`, operator);
        else
          await accounts.chargeSearch({
            orgId: org.id,
            keyId: key.id,
            queryId: `busy-${w}-${i}`,
            endpoint: "/query",
            collections: [{ collection: "scifact", tokens: 10, pricePer1000Micros: "1000", amountMicros: "10" }],
          });
        appended += 1;
      }
    });
    const operations = createOperations(accounts);
    try {
      for (let round = 0; round < 3; round++) {
        expect((await replayProjections(db)).equal).toBe(true);
        // finance's reconciliation reads the organization's events, ledger, usage and balance at one cut too
        expect((await operations.reconcile(org.id)).discrepancies).toEqual([]);
      }
    } finally {
      writing = false;
      await Promise.all(writers);
    }
    // the writers really ran beside the replays
    expect(appended).toBeGreaterThan(10);
  });
});

describe("concurrent replays of two processes sharing a PostgreSQL database", () => {
  it("never reports a false divergence: each either rebuilds equal or is refused with 409 CONFLICT", async () => {
    const url = await createPostgresDatabase();
    const first = await openPostgres(url, FEATURE_PROJECTORS);
    const second = await openPostgres(url, FEATURE_PROJECTORS);
    open.push(first, second);
    await migrate(first, PROJECTION_READ_MODELS);
    await history(first);
    for (let round = 0; round < 3; round++) {
      const outcomes = (await Promise.allSettled([replayProjections(first), replayProjections(second)])).map(outcomeOf);
      expect(outcomes.every((o) => o === "equal" || o === "CONFLICT")).toBe(true);
      expect(outcomes).toContain("equal");
    }
  });
});
