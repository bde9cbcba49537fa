// A stream command in one read (runStreamCommandInOneRead), as a facets request records its quota query, on PGlite and
// a real PostgreSQL server: it projects exactly what the general path (runStreamCommand) projects, keeps the log's
// chain, and decides on the usage read under the append lock, so requests sent together never pass the quota together.
// Many streams' appends at once (appendStreams, as a batch of alert runs records its steps) project what the same
// appends one by one project, append a key once, and keep the chain beside other writers.
import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Db, Queryable } from "../../src/eventstore/db.js";
import { verifyChain } from "../../src/eventstore/eventStore.js";
import { appendStreams, runStreamCommand, runStreamCommandInOneRead } from "../../projections/streamCommand.js";
import { DEFAULT_LIMITS, worksFacetsStream, type OrgLimits } from "../../src/domain/events.js";
import { decideFacets } from "../../src/usecases/works/facetsFacts.js";
import { usageColumns, usageOfRow } from "../../src/usecases/limits/quotas.js";
import { Rejection } from "../../src/domain/rejection.js";
import { freshStore, STORE_KINDS } from "../support/stores.js";

const clock = () => new Date();

/** An organization's queries today and this month. */
async function queryUsage(q: Queryable, orgId: string, at: Date) {
  const params: unknown[] = [];
  const [row] = await q.query(
    `SELECT ${usageColumns(orgId, at, (v) => (params.push(v), `$${params.length}`))}`,
    params,
  );
  return usageOfRow(row ?? {});
}

/** The facets request's event, recorded in one read. */
function recordInOneRead(db: Db, orgId: string, keyId: string, limits: OrgLimits = DEFAULT_LIMITS) {
  const facetsId = randomUUID();
  return runStreamCommandInOneRead(
    db,
    clock,
    worksFacetsStream(facetsId),
    { kind: "key", id: keyId },
    {
      columns: (param, at) => usageColumns(orgId, at, param),
      touches: (at) => [{ orgId, keyId, at: at.toISOString() }],
      state: usageOfRow,
    },
    (usage, at) => ({ version: 0, events: decideFacets(command(orgId, keyId, facetsId), { limits, usage }, at) }),
  );
}

/** The same event through the general path: the usage read, the append head and the projection's rows apart. */
function recordInSteps(db: Db, orgId: string, keyId: string) {
  const facetsId = randomUUID();
  return runStreamCommand(db, clock, worksFacetsStream(facetsId), { kind: "key", id: keyId }, async (tx, at) => ({
    version: 0,
    events: decideFacets(
      command(orgId, keyId, facetsId),
      { limits: DEFAULT_LIMITS, usage: await queryUsage(tx, orgId, at) },
      at,
    ),
  }));
}

const command = (orgId: string, keyId: string, facetsId: string) => ({
  type: "RecordWorksFacets" as const,
  orgId,
  keyId,
  facetsId,
  collections: ["scifact"],
  facets: ["journal" as const],
  query: false,
});

describe.each(STORE_KINDS)("a stream command in one read on %s", (kind) => {
  let db: Db;
  beforeAll(async () => {
    db = await freshStore(kind);
  });
  afterAll(async () => {
    await db?.close();
  });

  const rowsOf = async (orgId: string) => ({
    usage: await db.query(
      "SELECT period, queries, tokens, amount_micros FROM proj_usage WHERE org_id = $1 ORDER BY 1",
      [orgId],
    ),
    keys: await db.query("SELECT count(*)::int AS n FROM proj_key_last_used WHERE org_id = $1", [orgId]),
  });

  it("projects what the general path projects, and keeps the log's chain", async () => {
    const [a, b] = [randomUUID(), randomUUID()];
    for (let i = 0; i < 3; i++) {
      expect(await recordInOneRead(db, a, `key-${a}`)).toHaveLength(1);
      expect(await recordInSteps(db, b, `key-${b}`)).toHaveLength(1);
    }
    const [oneRead, steps] = [await rowsOf(a), await rowsOf(b)];
    expect(oneRead.usage.map((r) => (r as { queries: number }).queries)).toEqual([3, 3]);
    expect(oneRead).toEqual(steps);
    expect(await queryUsage(db, a, clock())).toEqual({ dailyUsed: 3, monthlyUsed: 3 });
    expect(await verifyChain(db)).toMatchObject({ ok: true });
  });

  it("decides on the usage read under the append lock: requests sent together never pass the quota", async () => {
    const org = randomUUID();
    const limits = { ...DEFAULT_LIMITS, daily: 2 };
    const outcomes = await Promise.allSettled(
      Array.from({ length: 6 }, () => recordInOneRead(db, org, `key-${org}`, limits)),
    );
    expect(outcomes.filter((o) => o.status === "fulfilled")).toHaveLength(2);
    for (const o of outcomes.filter((o) => o.status === "rejected"))
      expect((o.reason as Rejection).code).toBe("QUOTA_EXCEEDED");
    expect(await queryUsage(db, org, clock())).toEqual({ dailyUsed: 2, monthlyUsed: 2 });
    const [events] = await db.query<{ n: number }>(
      "SELECT count(*)::int AS n FROM events WHERE type = 'WorksFacetsCounted' AND data->>'orgId' = $1",
      [org],
    );
    expect(events!.n).toBe(2);
  });
});

describe.each(STORE_KINDS)("many streams' appends at once on %s", (kind) => {
  let db: Db;
  beforeAll(async () => {
    db = await freshStore(kind);
  });
  afterAll(async () => {
    await db?.close();
  });

  /** A facets request's event for each organization, under its own stream and key. */
  const appendsFor = (orgs: string[], tag: string) =>
    orgs.map((orgId) => {
      const facetsId = randomUUID();
      return {
        streamId: worksFacetsStream(facetsId),
        actor: { kind: "key" as const, id: `key-${orgId}` },
        events: decideFacets(
          command(orgId, `key-${orgId}`, facetsId),
          { limits: DEFAULT_LIMITS, usage: { dailyUsed: 0, monthlyUsed: 0 } },
          clock(),
        ),
        idempotencyKey: `test-facets:${orgId}:${tag}`,
      };
    });
  const usageRows = (orgIds: string[]) =>
    db.query("SELECT org_id, period, queries FROM proj_usage WHERE org_id = ANY($1) ORDER BY org_id, period", [orgIds]);

  it("projects what the same appends one by one project, and appends a used key's events once", async () => {
    const together = [randomUUID(), randomUUID(), randomUUID()];
    const apart = [randomUUID(), randomUUID(), randomUUID()];
    const appends = [...appendsFor(together, "a"), ...appendsFor(together, "b")];
    const written = await appendStreams(db, clock, async () => appends);
    expect(written.map((w) => w.map((e) => e.type))).toEqual(appends.map(() => ["WorksFacetsCounted"]));
    for (const tag of ["a", "b"])
      for (const a of appendsFor(apart, tag))
        await runStreamCommand(db, clock, a.streamId, a.actor, async () => ({ version: 0, events: a.events }), {
          idempotencyKey: a.idempotencyKey,
        });
    const queries = (rows: Record<string, unknown>[]) => rows.map((r) => [r.period, r.queries]);
    expect(queries(await usageRows(together))).toEqual(queries(await usageRows(apart)));
    expect(queries(await usageRows(together)).every(([, n]) => n === 2)).toBe(true);

    // a retried batch: the keys were used, so nothing is appended again; a key twice in one batch appends once
    const again = await appendStreams(db, clock, async () => appends);
    expect(again.every((w) => w.length === 0)).toBe(true);
    const [twice] = appendsFor([randomUUID()], "c");
    expect((await appendStreams(db, clock, async () => [twice!, twice!])).map((w) => w.length)).toEqual([1, 0]);
    expect(await queryUsage(db, together[0]!, clock())).toEqual({ dailyUsed: 2, monthlyUsed: 2 });
    expect(await verifyChain(db)).toMatchObject({ ok: true });
  });

  it("keeps the log's chain while other writers append beside it", async () => {
    const orgs = Array.from({ length: 4 }, () => randomUUID());
    await Promise.all([
      ...Array.from({ length: 4 }, (_, i) => appendStreams(db, clock, async () => appendsFor(orgs, `batch-${i}`))),
      ...orgs.map((orgId) => recordInSteps(db, orgId, `key-${orgId}`)),
      ...orgs.map((orgId) => recordInOneRead(db, orgId, `key-${orgId}`)),
    ]);
    for (const orgId of orgs) expect(await queryUsage(db, orgId, clock())).toEqual({ dailyUsed: 6, monthlyUsed: 6 });
    expect(await verifyChain(db)).toMatchObject({ ok: true });
  });
});
