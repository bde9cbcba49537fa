// Search admission on both stores under concurrency. On PGlite concurrent admissions share one statement: each must
// still take the next slot of its own minute window in arrival order, stop at the budget, respect the INVALID_QUERY
// guard, and read its organization's usage.
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { Db } from "../../src/eventstore/db.js";
import type { Organization } from "../../src/usecases/accounts/accounts.js";
import { admitSearchRequest } from "../../src/usecases/limits/quotas.js";
import { DEFAULT_LIMITS } from "../../src/domain/events.js";
import { freshStore, STORE_KINDS } from "../support/stores.js";

const NOW = new Date("2026-11-22T10:15:30.000Z");
const GUARD_LIMIT = 30;

function org(id: string, perMinute: number): Organization {
  return {
    id,
    orgId: id,
    name: id,
    billingMode: "live",
    billingEnabled: true,
    hideBalance: false,
    trialQueries: 0,
    trialUsed: 0,
    limits: { ...DEFAULT_LIMITS, perMinute },
    suspended: false,
    balanceMicros: 0n,
    priceOverrides: new Map(),
    version: 1,
  };
}

describe.each(STORE_KINDS)("search admission on %s", (kind) => {
  let db: Db;
  beforeEach(async () => {
    db = await freshStore(kind);
  });
  afterEach(async () => {
    await db?.close();
  });

  const admit = (o: Organization, now = NOW) => admitSearchRequest(db, o, `invalid:${o.id}`, GUARD_LIMIT, now);
  const minuteCount = async (o: Organization, now = NOW) =>
    Number(
      (
        await db.query<{ count: number }>("SELECT count FROM rate_windows WHERE scope = $1 AND window_start = $2", [
          `minute:${o.id}`,
          Math.floor(now.getTime() / 60_000) * 60_000,
        ])
      )[0]?.count ?? 0,
    );

  it("admits exactly the per-minute budget of concurrent requests, each organization against its own", async () => {
    const a = org("org-a", 7);
    const b = org("org-b", 3);
    const results = await Promise.all(Array.from({ length: 20 }, (_, i) => admit(i % 2 ? b : a)));
    const taken = (o: Organization) => results.filter((r, i) => (i % 2 ? b : a) === o && r.minuteTaken).length;
    expect(taken(a)).toBe(7);
    expect(taken(b)).toBe(3);
    expect(await minuteCount(a)).toBe(7);
    expect(await minuteCount(b)).toBe(3);
    if (kind === "pglite") {
      // one connection, one statement: the first arrivals are the ones admitted
      expect(results.filter((_, i) => i % 2 === 0).map((r) => r.minuteTaken)).toEqual([
        true,
        true,
        true,
        true,
        true,
        true,
        true,
        false,
        false,
        false,
      ]);
    }
    for (const r of results) expect(r.minuteResetAt).toBe(Date.parse("2026-11-22T10:16:00.000Z"));
  });

  it("keeps separate windows for requests of different minutes, and takes nothing past a tripped guard", async () => {
    const a = org("org-c", 2);
    const later = new Date(NOW.getTime() + 60_000);
    const results = await Promise.all([
      admit(a),
      admit(a, later),
      admit(a),
      admit(a, later),
      admit(a),
      admit(a, later),
    ]);
    expect(results.map((r) => r.minuteTaken)).toEqual(
      kind === "pglite" ? [true, true, true, true, false, false] : expect.any(Array),
    );
    expect(await minuteCount(a)).toBe(2);
    expect(await minuteCount(a, later)).toBe(2);

    const guarded = org("org-d", 100);
    await db.query("INSERT INTO rate_windows (scope, window_start, count) VALUES ($1, $2, $3)", [
      `invalid:${guarded.id}`,
      Math.floor(NOW.getTime() / 60_000) * 60_000,
      GUARD_LIMIT + 1,
    ]);
    const refused = await Promise.all([admit(guarded), admit(guarded)]);
    expect(refused.map((r) => [r.minuteTaken, r.invalidQueries])).toEqual([
      [false, GUARD_LIMIT + 1],
      [false, GUARD_LIMIT + 1],
    ]);
    expect(await minuteCount(guarded)).toBe(0);
  });

  it("reads each organization's queries today and this month", async () => {
    const a = org("org-e", 100);
    const b = org("org-f", 100);
    await db.query(
      "INSERT INTO proj_usage (org_id, period, queries, tokens, amount_micros) VALUES ($1, 'd:2026-11-22', 4, " +
        "0, 0), ($1, 'm:2026-11', 40, 0, 0), ($2, 'm:2026-11', 9, 0, 0)",
      [a.id, b.id],
    );
    const [ra, rb] = await Promise.all([admit(a), admit(b)]);
    expect(ra!.usage).toEqual({ dailyUsed: 4, monthlyUsed: 40 });
    expect(rb!.usage).toEqual({ dailyUsed: 0, monthlyUsed: 9 });
  });
});
