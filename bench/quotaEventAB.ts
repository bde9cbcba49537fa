// A facets request's quota event, the general path (runStreamCommand: the usage read, the append head and the
// projection's rows apart) against one read (runStreamCommandInOneRead), alternating, on one store: PostgreSQL started
// from the provisioned component in a scratch cluster under /tmp (removed after), or an in-memory PGlite.
// Usage: npx tsx bench/quotaEventAB.ts (AB_STORE=pglite for PGlite). Prints one JSON line.
import { randomUUID } from "node:crypto";
import { chmodSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { loadavg } from "node:os";
import { startPostgresServer } from "../src/infra/postgresServer.js";
import { readComponent } from "../src/infra/components.js";
import { cacheDirFrom } from "../src/app/config.js";
import { openPglite, openPostgres, type Queryable } from "../src/eventstore/db.js";
import { migrate } from "../src/eventstore/schema.js";
import { FEATURE_PROJECTORS, PROJECTION_READ_MODELS } from "../src/app/projectors.js";
import { runStreamCommand, runStreamCommandInOneRead } from "../projections/streamCommand.js";
import { DEFAULT_LIMITS, worksFacetsStream } from "../src/domain/events.js";
import { decideFacets } from "../src/usecases/works/facetsFacts.js";
import { usageColumns, usageOfRow } from "../src/usecases/limits/quotas.js";

const scratch = mkdtempSync(join(tmpdir(), "quota-event-ab-"));
chmodSync(scratch, 0o755); // PostgreSQL runs as its own account when started by root
const server = await startPostgresServer({
  dataDir: scratch,
  component: readComponent("postgres", cacheDirFrom(process.env)),
});
const db =
  process.env.AB_STORE === "pglite"
    ? await openPglite(undefined, FEATURE_PROJECTORS)
    : await openPostgres(server.url, FEATURE_PROJECTORS, 4);
await migrate(db, PROJECTION_READ_MODELS);
const clock = () => new Date();
const org = randomUUID(),
  keyId = "k1";
const limits = { ...DEFAULT_LIMITS, daily: 1_000_000, monthly: 10_000_000 };
const cmd = (facetsId: string) => ({
  type: "RecordWorksFacets" as const,
  orgId: org,
  keyId,
  facetsId,
  collections: ["x"],
  facets: ["journal" as const],
  query: false,
});
async function usage(q: Queryable, at: Date) {
  const params: unknown[] = [];
  const [row] = await q.query(`SELECT ${usageColumns(org, at, (v) => (params.push(v), `$${params.length}`))}`, params);
  return usageOfRow(row ?? {});
}
const before = async () => {
  const id = randomUUID();
  await runStreamCommand(db, clock, worksFacetsStream(id), { kind: "key", id: keyId }, async (tx, at) => ({
    version: 0,
    events: decideFacets(cmd(id), { limits, usage: await usage(tx, at) }, at),
  }));
};
const after = async () => {
  const id = randomUUID();
  await runStreamCommandInOneRead(
    db,
    clock,
    worksFacetsStream(id),
    { kind: "key", id: keyId },
    {
      columns: (p, at) => usageColumns(org, at, p),
      touches: (at) => [{ orgId: org, keyId, at: at.toISOString() }],
      state: usageOfRow,
    },
    (u, at) => ({ version: 0, events: decideFacets(cmd(id), { limits, usage: u }, at) }),
  );
};
const t: Record<string, number[]> = { before: [], after: [] };
for (let i = 0; i < 20; i++) {
  await before();
  await after();
}
const load0 = loadavg()[0];
for (let i = 0; i < 200; i++)
  for (const [k, f] of [
    ["before", before],
    ["after", after],
  ] as const) {
    const s = performance.now();
    await f();
    t[k]!.push(performance.now() - s);
  }
const p = (xs: number[], q: number) =>
  Math.round([...xs].sort((a, b) => a - b)[Math.floor(q * xs.length)]! * 100) / 100;
console.log(
  JSON.stringify({
    store: process.env.AB_STORE ?? "postgres",
    n: 200,
    before: { p50: p(t.before!, 0.5), p95: p(t.before!, 0.95) },
    after: { p50: p(t.after!, 0.5), p95: p(t.after!, 0.95) },
    load: [load0, loadavg()[0]],
  }),
);
await db.close();
await server.stop();
rmSync(scratch, { recursive: true, force: true });
