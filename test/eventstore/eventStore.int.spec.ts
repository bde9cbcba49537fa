// The event store, accounts and replay on both PGlite and a real PostgreSQL server.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Db } from "../../src/eventstore/db.js";
import {
  APPEND_LOCK_KEY,
  prepareAppend,
  runParts,
  StreamVersionConflict,
  verifyChain,
} from "../../src/eventstore/eventStore.js";
import type { Queryable } from "../../src/eventstore/db.js";
import { createAccounts, type Accounts } from "../../src/usecases/accounts/accounts.js";
import { replayProjections, promoteReplay } from "../../projections/replay.js";
import { DEFAULT_LIMITS, type Actor } from "../../src/domain/events.js";
import { Rejection } from "../../src/domain/rejection.js";
import { freshStore, STORE_KINDS } from "../support/stores.js";
import { FEATURE_PROJECTORS } from "../../src/app/projectors.js";
import type { FeatureProjection } from "../../projections/project.js";

const operator: Actor = { kind: "operator", id: "test" };

/** One raw append the way the store's commands make theirs: decided by prepareAppend, written by runParts. */
async function appendRaw(
  tx: Queryable,
  streamId: string,
  expected: number | "any",
  orgId: string,
  idempotencyKey?: string,
) {
  const prepared = await prepareAppend(
    tx,
    streamId,
    expected,
    [{ type: "BillingResumed", data: { orgId } }],
    { actor: operator },
    { idempotencyKey },
  );
  if (!prepared.duplicate) await runParts(tx, [prepared.insert], streamId, expected);
  return prepared;
}

describe.each(STORE_KINDS)("event store on %s", (kind) => {
  let db: Db;
  let accounts: Accounts;
  beforeAll(async () => {
    db = await freshStore(kind);
    accounts = createAccounts(db);
  });
  afterAll(async () => {
    await db?.close();
  });

  it("enforces optimistic concurrency per stream", async () => {
    // raw events of no organization: kept out of the store whose projections the later tests replay
    const db = await freshStore(kind);
    const append = (expected: number) =>
      db.transaction((tx) => appendRaw(tx, "test-stream", expected, "x"), { advisoryLock: APPEND_LOCK_KEY });
    await append(0);
    await append(1);
    await expect(append(1)).rejects.toBeInstanceOf(StreamVersionConflict);
    const rows = await db.query<{ n: string }>(
      "SELECT count(*)::text AS n FROM events WHERE stream_id = 'test-stream'",
    );
    expect(rows[0]!.n).toBe("2");
    await db.close();
  });

  it("makes an append with a used idempotency key a no-op returning the original events", async () => {
    const db = await freshStore(kind);
    const run = () =>
      db.transaction((tx) => appendRaw(tx, "idem-stream", "any", "y", "once"), { advisoryLock: APPEND_LOCK_KEY });
    const first = await run();
    const second = await run();
    expect(first.duplicate).toBe(false);
    expect(second.duplicate).toBe(true);
    expect(second.events.map((e) => e.position)).toEqual(first.events.map((e) => e.position));
    await db.close();
  });

  it("moves money exactly: credits, charges, a refused charge changes nothing, the ledger has balances", async () => {
    const org = await accounts.createOrganization(
      { name: "Lab", billingMode: "live", limits: DEFAULT_LIMITS },
      operator,
    );
    const key = await accounts.createKey(
      org.id,
      { mode: "live", collections: null, spendingCapMicros: null },
      operator,
    );
    await accounts.addCredits(org.id, 1_000_000n, "top-up", operator);
    const charge = (queryId: string, amount: string) =>
      accounts.chargeSearch({
        orgId: org.id,
        keyId: key.id,
        queryId,
        endpoint: "/query",
        collections: [{ collection: "scifact", tokens: 10, pricePer1000Micros: "1", amountMicros: amount }],
      });
    await charge("q1", "250000");
    await charge("q1", "250000"); // same query id: idempotent
    await expect(charge("q2", "800000")).rejects.toSatisfy(
      (e) => e instanceof Rejection && e.code === "INSUFFICIENT_CREDITS",
    );
    expect((await accounts.getOrganization(org.id))!.balanceMicros).toBe(750_000n);
    const ledger = await accounts.ledger(org.id);
    expect(ledger.map((l) => [l.type, l.amount_micros, l.balance_after_micros])).toEqual([
      ["credit", "1000000", "1000000"],
      ["charge", "-250000", "750000"],
    ]);
    expect((await accounts.getKey(key.id))!.spentMicros).toBe(250_000n);
  });

  it("replay rebuilds every projection equal to the live one, and notices a tampered projection", async () => {
    const report = await replayProjections(db);
    expect(report.equal).toBe(true);
    expect(report.events).toBeGreaterThan(3);
    await db.query(
      "UPDATE proj_balances SET balance_micros = balance_micros + 1 WHERE org_id = (SELECT org_id FROM " +
        "proj_balances LIMIT 1)",
    );
    const tampered = await replayProjections(db);
    expect(tampered.equal).toBe(false);
    expect(tampered.tables.find((t) => t.table === "balances")!.equal).toBe(false);
    await promoteReplay(db);
    expect((await replayProjections(db)).equal).toBe(true);
  });

  it("runs the projectors it was opened with, inline and in replay, and no other store's", async () => {
    const seen: string[] = [];
    const counting: FeatureProjection = {
      ...FEATURE_PROJECTORS,
      keys: (e, read) => (seen.push(e.type), FEATURE_PROJECTORS.keys(e, read)),
    };
    const own = await freshStore(kind, 2, counting);
    try {
      const ownAccounts = createAccounts(own);
      const org = await ownAccounts.createOrganization(
        { name: "Counted", billingMode: "live", limits: DEFAULT_LIMITS },
        operator,
      );
      const key = await ownAccounts.createKey(
        org.id,
        { mode: "live", collections: null, spendingCapMicros: null },
        operator,
      );
      expect(seen).toEqual(["ApiKeyCreated"]);
      expect((await ownAccounts.getKey(key.id))?.id).toBe(key.id);
      // the service's store, open beside it, projects with its own list: nothing reaches the counting one
      await accounts.createKey(
        (await accounts.createOrganization({ name: "Other", billingMode: "live", limits: DEFAULT_LIMITS }, operator))
          .id,
        { mode: "live", collections: null, spendingCapMicros: null },
        operator,
      );
      expect(seen).toEqual(["ApiKeyCreated"]);
      expect((await replayProjections(own)).equal).toBe(true);
      expect(seen).toEqual(["ApiKeyCreated", "ApiKeyCreated"]);
    } finally {
      await own.close();
    }
  });

  it("verify walks the hash chain and names the first edited, deleted or inserted event", async () => {
    const ok = await verifyChain(db);
    expect(ok.ok).toBe(true);
    const positions = (await db.query<{ p: string }>("SELECT position::text AS p FROM events ORDER BY position")).map(
      (r) => Number(r.p),
    );
    const victim = positions[2]!;
    const original = await db.query<{ data: unknown }>("SELECT data FROM events WHERE position = $1", [victim]);

    await db.query(`UPDATE events SET data = jsonb_set(data, '{orgId}', '"forged"') WHERE position = $1`, [victim]);
    expect(await verifyChain(db)).toMatchObject({ ok: false, firstBadPosition: victim });
    await db.query("UPDATE events SET data = $2 WHERE position = $1", [victim, JSON.stringify(original[0]!.data)]);
    expect((await verifyChain(db)).ok).toBe(true);

    const row = (await db.query("SELECT * FROM events WHERE position = $1", [victim]))[0] as Record<string, unknown>;
    await db.query("DELETE FROM events WHERE position = $1", [victim]);
    expect(await verifyChain(db)).toMatchObject({ ok: false, firstBadPosition: positions[3] });
    await db.query(
      "INSERT INTO events (position, stream_id, stream_version, type, data, metadata, idempotency_key, " +
        "recorded_at, prev_hash, hash) VALUES ($1,$2,$3,$4,$5,$6,$7,$8,$9,$10)",
      [
        victim,
        row.stream_id,
        row.stream_version,
        row.type,
        JSON.stringify(row.data),
        JSON.stringify(row.metadata),
        row.idempotency_key,
        row.recorded_at,
        row.prev_hash,
        row.hash,
      ],
    );
    expect((await verifyChain(db)).ok).toBe(true);
    await db.query(
      "INSERT INTO events (position, stream_id, stream_version, type, data, metadata, idempotency_key, " +
        "recorded_at, prev_hash, hash) VALUES ($1,$2,$3,$4,$5,$6,$7,$8,$9,$10)",
      [
        victim * 1000 + 1,
        "intruder",
        1,
        "CreditsAdded",
        JSON.stringify({ orgId: "x", amountMicros: "1", reference: "x" }),
        "{}",
        null,
        new Date().toISOString(),
        "0".repeat(64),
        "f".repeat(64),
      ],
    );
    const inserted = await verifyChain(db);
    expect(inserted.ok).toBe(false);
    await db.query("DELETE FROM events WHERE stream_id = 'intruder'");
  });
});

describe("concurrent charges on a real PostgreSQL server", () => {
  it("never lets 40 parallel charges overdraw or double-count an organization", async () => {
    const db = await freshStore("postgres", 12);
    try {
      const accounts = createAccounts(db);
      const org = await accounts.createOrganization(
        { name: "Busy", billingMode: "live", limits: DEFAULT_LIMITS },
        operator,
      );
      const key = await accounts.createKey(
        org.id,
        { mode: "live", collections: null, spendingCapMicros: null },
        operator,
      );
      await accounts.addCredits(org.id, 30_000n, "top-up", operator);
      // a second process's view: a separate Accounts over its own pool
      const other = createAccounts(await freshStoreSameDb(db));
      const results = await Promise.allSettled(
        Array.from({ length: 40 }, (_, i) =>
          (i % 2 ? other : accounts).chargeSearch({
            orgId: org.id,
            keyId: key.id,
            queryId: `q${i}`,
            endpoint: "/query",
            collections: [{ collection: "c", tokens: 1, pricePer1000Micros: "1", amountMicros: "1000" }],
          }),
        ),
      );
      const unexpected = results
        .filter((r) => r.status === "rejected" && !(r.reason instanceof Rejection))
        .map((r) => String((r as PromiseRejectedResult).reason));
      expect(unexpected).toEqual([]);
      const ok = results.filter((r) => r.status === "fulfilled").length;
      const refused = results.filter(
        (r) => r.status === "rejected" && (r.reason as Rejection).code === "INSUFFICIENT_CREDITS",
      ).length;
      expect(ok).toBe(30);
      expect(refused).toBe(10);
      expect((await accounts.getOrganization(org.id))!.balanceMicros).toBe(0n);
      expect((await replayProjections(db)).equal).toBe(true);
      expect((await verifyChain(db)).ok).toBe(true);
    } finally {
      await db.close();
    }
  });
});

/** Opens a second pool on the same database as `db`, as another API process would. */
async function freshStoreSameDb(db: Db): Promise<Db> {
  const rows = await db.query<{ db: string }>("SELECT current_database() AS db");
  const { openPostgres } = await import("../../src/eventstore/db.js");
  const { requireComponent } = await import("../setup/components.js");
  const url = new URL(requireComponent("postgresUrl"));
  url.pathname = `/${rows[0]!.db}`;
  return openPostgres(url.toString(), FEATURE_PROJECTORS, 6);
}
