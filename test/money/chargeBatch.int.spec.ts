// Group commit of search charges on PGlite and a real PostgreSQL server: concurrent charges share transactions, yet
// each is decided on the state the ones before it left, refused or retried on its own, and a batch that cannot commit
// charges none of its charges.
import { afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { openPostgres, type Db } from "../../src/eventstore/db.js";
import { migrate } from "../../src/eventstore/schema.js";
import { FEATURE_PROJECTORS, PROJECTION_READ_MODELS } from "../../src/app/projectors.js";
import { verifyChain } from "../../src/eventstore/eventStore.js";
import { createAccounts, type Accounts } from "../../src/usecases/accounts/accounts.js";
import type { ChargeInput } from "../../src/usecases/accounts/chargeBatch.js";
import { replayProjections } from "../../projections/replay.js";
import { DEFAULT_LIMITS, type Actor } from "../../src/domain/events.js";
import { Rejection } from "../../src/domain/rejection.js";
import {
  deflatePayload,
  PAYLOAD_VERSION,
  queryRecordPart,
  type QueryPayload,
} from "../../src/usecases/search/queryCache.js";
import { createPostgresDatabase, freshStore, STORE_KINDS } from "../support/stores.js";

const operator: Actor = { kind: "operator", id: "test" };
const PRICE = 1_000n;

describe.each(STORE_KINDS)("search charges committed in batches on %s", (kind) => {
  let db: Db;
  let accounts: Accounts;
  beforeEach(async () => {
    db = await freshStore(kind);
    accounts = createAccounts(db);
  });
  afterEach(async () => {
    await db?.close();
  });

  async function organization(
    name: string,
    credits: bigint,
    options: { billingMode?: "live" | "trial"; trialQueries?: number; cap?: bigint } = {},
  ) {
    const org = await accounts.createOrganization(
      { name, billingMode: options.billingMode ?? "live", limits: DEFAULT_LIMITS, trialQueries: options.trialQueries },
      operator,
    );
    if (credits > 0n) await accounts.addCredits(org.id, credits, "top-up", operator);
    const key = await accounts.createKey(
      org.id,
      { mode: "live", collections: null, spendingCapMicros: options.cap ?? null },
      operator,
    );
    return { orgId: org.id, keyId: key.id };
  }

  /** every record's payload (the same for all: the charge's ids are the record's own columns), deflated once */
  const RECORD_PAYLOAD: QueryPayload = { query: "q", collections: ["scifact"], rows: [] };
  let deflatedPayload: Buffer;
  beforeAll(async () => {
    deflatedPayload = await deflatePayload(RECORD_PAYLOAD);
  });

  /** A charge of PRICE micro-credits that also writes the query record it pays for. */
  function chargeOf(owner: { orgId: string; keyId: string }, queryId: string): ChargeInput {
    return {
      ...owner,
      queryId,
      endpoint: "/api/v1/search/query",
      collections: [
        { collection: "scifact", results: 1, tokens: 100, pricePer1000Micros: "10000", amountMicros: PRICE.toString() },
      ],
      resultIds: [`${queryId}-r0`],
      alsoWrite: queryRecordPart(
        {
          queryId,
          orgId: owner.orgId,
          keyId: owner.keyId,
          kind: "search",
          payloadVersion: PAYLOAD_VERSION,
          createdAt: new Date(),
          payload: RECORD_PAYLOAD,
        },
        deflatedPayload,
      ),
    };
  }

  const eventsOf = async (queryIds: string[]) =>
    Number(
      (
        await db.query<{ n: string }>("SELECT count(*)::text AS n FROM events WHERE data->>'queryId' = ANY($1)", [
          queryIds,
        ])
      )[0]!.n,
    );
  const recordsOf = async (queryIds: string[]) =>
    Number(
      (
        await db.query<{ n: string }>("SELECT count(*)::text AS n FROM query_records WHERE query_id = ANY($1)", [
          queryIds,
        ])
      )[0]!.n,
    );

  it("decides each charge in a batch on the state the earlier left: balances, caps, trial allowances", async () => {
    const rich = await organization("Rich", 1_000_000n);
    const capped = {
      orgId: rich.orgId,
      keyId: (
        await accounts.createKey(
          rich.orgId,
          { mode: "live", collections: null, spendingCapMicros: 3n * PRICE },
          operator,
        )
      ).id,
    };
    const poor = await organization("Poor", 5n * PRICE);
    const trial = await organization("Trial", 0n, { billingMode: "trial", trialQueries: 3 });
    const owners = [rich, capped, poor, trial];
    const inputs = Array.from({ length: 60 }, (_, i) => chargeOf(owners[i % owners.length]!, `q${i}`));

    const results = await Promise.allSettled(inputs.map((input) => accounts.chargeSearch(input)));

    const outcome = (owner: { keyId: string }) =>
      results
        .filter((_, i) => inputs[i]!.keyId === owner.keyId)
        .map((r) =>
          r.status === "fulfilled"
            ? "charged"
            : r.reason instanceof Rejection
              ? r.reason.code
              : `error: ${String(r.reason)}`,
        );
    expect(outcome(rich)).toEqual(Array(15).fill("charged"));
    expect(outcome(capped)).toEqual([...Array(3).fill("charged"), ...Array(12).fill("API_KEY_BUDGET_EXCEEDED")]);
    expect(outcome(poor)).toEqual([...Array(5).fill("charged"), ...Array(10).fill("INSUFFICIENT_CREDITS")]);
    expect(outcome(trial)).toEqual([...Array(3).fill("charged"), ...Array(12).fill("INSUFFICIENT_CREDITS")]);

    // the charges shared transactions: a batch's events carry one recorded time
    const commits = await db.query<{ n: string }>(
      "SELECT count(DISTINCT recorded_at)::text AS n FROM events WHERE type = 'SearchCharged'",
    );
    expect(Number(commits[0]!.n)).toBeLessThan(26);

    // each answer's balance is the ledger's balance after its own charge
    const ledger = new Map(
      (
        await db.query<{ query_id: string; balance_after_micros: string }>(
          "SELECT query_id, balance_after_micros::text FROM proj_ledger WHERE query_id IS NOT NULL",
        )
      ).map((r) => [r.query_id, BigInt(r.balance_after_micros)]),
    );
    for (const [i, r] of results.entries()) {
      if (r.status !== "fulfilled" || inputs[i]!.orgId === trial.orgId) continue;
      expect(r.value.balanceMicros).toBe(ledger.get(inputs[i]!.queryId));
    }
    expect((await accounts.getOrganization(rich.orgId))!.balanceMicros).toBe(1_000_000n - 18n * PRICE);
    expect((await accounts.getOrganization(poor.orgId))!.balanceMicros).toBe(0n);
    expect((await accounts.getOrganization(trial.orgId))!.trialUsed).toBe(3);

    // refused charges left nothing; charged ones left their event and their query record
    const charged = inputs.filter((_, i) => results[i]!.status === "fulfilled").map((input) => input.queryId);
    const refused = inputs.filter((_, i) => results[i]!.status === "rejected").map((input) => input.queryId);
    expect(charged).toHaveLength(26);
    expect(await eventsOf(charged)).toBe(26);
    expect(await recordsOf(charged)).toBe(26);
    expect(await eventsOf(refused)).toBe(0);
    expect(await recordsOf(refused)).toBe(0);
    expect((await replayProjections(db)).equal).toBe(true);
    expect((await verifyChain(db)).ok).toBe(true);
  });

  it("answers a retried charge, in a batch or after it, with the original events and charges it once", async () => {
    const owner = await organization("Retry", 1_000_000n);
    const first = await accounts.chargeSearch(chargeOf(owner, "again"));
    const [retryA, other, retryB] = await Promise.all([
      accounts.chargeSearch(chargeOf(owner, "again")),
      accounts.chargeSearch(chargeOf(owner, "other")),
      accounts.chargeSearch(chargeOf(owner, "again")),
    ]);
    expect(first.duplicate).toBe(false);
    for (const retry of [retryA, retryB]) {
      expect(retry.duplicate).toBe(true);
      expect(retry.events.map((e) => e.position)).toEqual(first.events.map((e) => e.position));
    }
    expect(other.duplicate).toBe(false);
    expect(await eventsOf(["again"])).toBe(1);
    expect((await accounts.getOrganization(owner.orgId))!.balanceMicros).toBe(1_000_000n - 2n * PRICE);
  });

  it("keeps every balance exact while other appends interleave with the batches", async () => {
    const owner = await organization("Interleaved", 10n * PRICE);
    const charges = Array.from({ length: 30 }, (_, i) => accounts.chargeSearch(chargeOf(owner, `mixed${i}`)));
    const credits = Array.from({ length: 10 }, (_, i) =>
      accounts.addCredits(owner.orgId, 2n * PRICE, `top-up ${i}`, operator),
    );
    const settled = await Promise.allSettled(charges);
    await Promise.all(credits);
    const unexpected = settled.filter(
      (r) => r.status === "rejected" && !(r.reason instanceof Rejection && r.reason.code === "INSUFFICIENT_CREDITS"),
    );
    expect(unexpected).toEqual([]);
    const charged = settled.filter((r) => r.status === "fulfilled").length;
    expect(charged).toBeGreaterThanOrEqual(10);
    expect((await accounts.getOrganization(owner.orgId))!.balanceMicros).toBe(30n * PRICE - BigInt(charged) * PRICE);
    expect((await replayProjections(db)).equal).toBe(true);
    expect((await verifyChain(db)).ok).toBe(true);
  });

  it("decides on what others appended between batches: a credit after a refusal lets the next through", async () => {
    const owner = await organization("Topped up", PRICE);
    await expect(accounts.chargeSearch(chargeOf(owner, "first"))).resolves.toMatchObject({ balanceMicros: 0n });
    await expect(accounts.chargeSearch(chargeOf(owner, "broke"))).rejects.toMatchObject({
      code: "INSUFFICIENT_CREDITS",
    });
    await accounts.addCredits(owner.orgId, 2n * PRICE, "top-up", operator);
    await expect(accounts.chargeSearch(chargeOf(owner, "after credit"))).resolves.toMatchObject({
      balanceMicros: PRICE,
    });
    await accounts.addCredits(owner.orgId, PRICE, "top-up", operator);
    await expect(accounts.chargeSearch(chargeOf(owner, "after another"))).resolves.toMatchObject({
      balanceMicros: PRICE,
    });
    expect((await replayProjections(db)).equal).toBe(true);
  });

  it("charges none of a batch whose statement fails, and keeps the charge committed before it", async () => {
    const owner = await organization("Atomic", 1_000_000n);
    const broken: ChargeInput = {
      ...chargeOf(owner, "broken"),
      alsoWrite: () => "INSERT INTO query_records (query_id) VALUES (NULL)",
    };
    // the first charge starts a transaction at once; the three sent in the same tick wait for it and form the next
    // batch
    const alone = accounts.chargeSearch(chargeOf(owner, "alone"));
    const batch = [
      accounts.chargeSearch(chargeOf(owner, "before")),
      accounts.chargeSearch(broken),
      accounts.chargeSearch(chargeOf(owner, "after")),
    ];
    await expect(alone).resolves.toMatchObject({ duplicate: false });
    const settled = await Promise.allSettled(batch);
    expect(settled.map((r) => r.status)).toEqual(["rejected", "rejected", "rejected"]);
    expect(await eventsOf(["before", "broken", "after"])).toBe(0);
    expect(await recordsOf(["before", "broken", "after"])).toBe(0);
    expect((await accounts.getOrganization(owner.orgId))!.balanceMicros).toBe(1_000_000n - PRICE);
    expect((await replayProjections(db)).equal).toBe(true);
    expect((await verifyChain(db)).ok).toBe(true);
  });
});

// Two API processes on one PostgreSQL database (two pools, two batchers): each writes its batches on the state its
// last batch left, in one statement, and the other's appends move the log under it. Near a zero balance that must
// never let both spend the same credits.
describe("search charges of two API processes on one PostgreSQL database", () => {
  const dbs: Db[] = [];
  afterEach(async () => {
    await Promise.all(dbs.splice(0).map((db) => db.close()));
  });

  it("charges one organization near zero from both at once: never overspent, each charge once", async () => {
    const url = await createPostgresDatabase();
    const first = await openPostgres(url, FEATURE_PROJECTORS);
    dbs.push(first);
    await migrate(first, PROJECTION_READ_MODELS);
    const second = await openPostgres(url, FEATURE_PROJECTORS);
    dbs.push(second);
    const [a, b] = [createAccounts(first), createAccounts(second)];
    const org = await a.createOrganization({ name: "Shared", billingMode: "live", limits: DEFAULT_LIMITS }, operator);
    await a.addCredits(org.id, 25n * PRICE, "top-up", operator);
    const key = await a.createKey(org.id, { mode: "live", collections: null, spendingCapMicros: null }, operator);
    const charge = (queryId: string): ChargeInput => ({
      orgId: org.id,
      keyId: key.id,
      queryId,
      endpoint: "/api/v1/search/query",
      collections: [
        { collection: "scifact", results: 1, tokens: 100, pricePer1000Micros: "10000", amountMicros: PRICE.toString() },
      ],
    });
    // warm both processes' snapshots, then 4 waves of 10 charges from each, the same query twice (a retry that
    // reaches the other process) in every wave
    await a.chargeSearch(charge("warm-a"));
    await b.chargeSearch(charge("warm-b"));
    const ids: string[] = [];
    const settled: Array<PromiseSettledResult<unknown>> = [];
    for (let wave = 0; wave < 4; wave++) {
      const calls: Array<Promise<unknown>> = [];
      for (let i = 0; i < 10; i++) {
        const [idA, idB] = [`w${wave}-a${i}`, `w${wave}-b${i}`];
        ids.push(idA, idB);
        calls.push(a.chargeSearch(charge(idA)), b.chargeSearch(charge(idB)));
      }
      calls.push(b.chargeSearch(charge(`w${wave}-a0`)));
      settled.push(...(await Promise.allSettled(calls)));
    }
    const unexpected = settled.filter(
      (r) => r.status === "rejected" && !(r.reason instanceof Rejection && r.reason.code === "INSUFFICIENT_CREDITS"),
    );
    expect(unexpected).toEqual([]);
    const balance = (await a.getOrganization(org.id))!.balanceMicros;
    expect(balance).toBe(0n);
    const ledger = await first.query<{ query_id: string; n: string }>(
      "SELECT query_id, count(*)::text AS n FROM proj_ledger WHERE query_id IS NOT NULL GROUP BY query_id",
    );
    expect(ledger.every((row) => row.n === "1")).toBe(true);
    // 25 credits: the two warm-up charges and 23 of the waves' 80 distinct queries, never more
    expect(ledger).toHaveLength(25);
    const events = await first.query<{ n: string }>(
      "SELECT count(*)::text AS n FROM events WHERE type = 'SearchCharged'",
    );
    expect(events[0]!.n).toBe("25");
    expect((await replayProjections(first)).equal).toBe(true);
    expect((await verifyChain(first)).ok).toBe(true);
  });
});
