// Contention is not an outage: operator credits hammering other organizations' streams while searches are charged,
// on PGlite and a real PostgreSQL server. Every charge waits its turn and succeeds; balances stay exact.
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { Db } from "../../src/eventstore/db.js";
import { verifyChain } from "../../src/eventstore/eventStore.js";
import { createAccounts, type Accounts } from "../../src/usecases/accounts/accounts.js";
import { createOperations, type Operations } from "../../src/usecases/operator/operations.js";
import { replayProjections } from "../../projections/replay.js";
import { DEFAULT_LIMITS, type Actor } from "../../src/domain/events.js";
import { freshStore, STORE_KINDS } from "../support/stores.js";

const operator: Actor = { kind: "operator", id: "test" };
const PRICE = 1_000n;
const WRITERS = 8;
const CREDITS_PER_WRITER = 25;
const SEARCHERS = 16;
const SEARCHES_PER_SEARCHER = 6;
const START_BALANCE = 1_000_000n;

describe.each(STORE_KINDS)("charges under contention on %s", (kind) => {
  let db: Db;
  let accounts: Accounts;
  let operations: Operations;
  beforeEach(async () => {
    // room for every writer and the charge batch at once: waiting for the append lock, not for a connection
    db = await freshStore(kind, 16);
    accounts = createAccounts(db);
    operations = createOperations(accounts);
  });
  afterEach(async () => {
    await db?.close();
  });

  it("8 parallel credit writers, 16 concurrent searchers of other organizations: 0 errors, exact sums", async () => {
    const credited = await Promise.all(
      Array.from({ length: WRITERS }, (_, i) =>
        operations.createOrganization({ name: `Credited ${i}`, billingMode: "live" }),
      ),
    );
    const searchers = await Promise.all(
      Array.from({ length: SEARCHERS }, async (_, i) => {
        const org = await accounts.createOrganization(
          { name: `Searcher ${i}`, billingMode: "live", limits: DEFAULT_LIMITS },
          operator,
        );
        await accounts.addCredits(org.id, START_BALANCE, "top-up", operator);
        const key = await accounts.createKey(
          org.id,
          { mode: "live", collections: null, spendingCapMicros: null },
          operator,
        );
        return { orgId: org.id, keyId: key.id };
      }),
    );

    const errors: unknown[] = [];
    const collect = (p: Promise<unknown>) => p.catch((err: unknown) => void errors.push(err));
    const writers = credited.map(async (org) => {
      for (let n = 0; n < CREDITS_PER_WRITER; n++)
        await collect(operations.addCredits(org.id, "0.001000", `top-up ${n}`));
    });
    const searches = searchers.map(async (owner, i) => {
      for (let n = 0; n < SEARCHES_PER_SEARCHER; n++) {
        await collect(
          accounts.chargeSearch({
            ...owner,
            queryId: `q-${i}-${n}`,
            endpoint: "/api/v1/search/query",
            collections: [
              {
                collection: "scifact",
                results: 1,
                tokens: 100,
                pricePer1000Micros: "10000",
                amountMicros: PRICE.toString(),
              },
            ],
          }),
        );
      }
    });
    await Promise.all([...writers, ...searches]);

    expect(errors.map((err) => (err instanceof Error ? `${err.name}: ${err.message}` : String(err)))).toEqual([]);
    for (const org of credited)
      expect((await accounts.getOrganization(org.id))!.balanceMicros).toBe(BigInt(CREDITS_PER_WRITER) * 1_000n);
    for (const owner of searchers)
      expect((await accounts.getOrganization(owner.orgId))!.balanceMicros).toBe(
        START_BALANCE - BigInt(SEARCHES_PER_SEARCHER) * PRICE,
      );
    const charges = await db.query<{ n: string }>(
      "SELECT count(*)::text AS n FROM events WHERE type = 'SearchCharged'",
    );
    expect(Number(charges[0]!.n)).toBe(SEARCHERS * SEARCHES_PER_SEARCHER);
    expect((await replayProjections(db)).equal).toBe(true);
    expect((await verifyChain(db)).ok).toBe(true);
  }, 120_000);
});
