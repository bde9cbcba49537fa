// Billing benchmark: events appended per second (one writer, many writers) on PostgreSQL and PGlite, replay events per
// second, the latency billing adds to a search, and unlock workflow latency on a Temporal dev server. Prints JSON, then
// one readable line. Starts its own PostgreSQL server and Temporal dev server (src/infra); needs `npm run setup` first.
// Usage: tsx bench/billing.ts [--appends 2000] [--writers 8] [--replay-events 200000] [--pglite-replay-events 50000]
//                             [--searches 300] [--unlocks 100] [--only appends,replay,search,unlock]
import { mkdtempSync, rmSync, chmodSync, openSync, writeSync, fsyncSync, closeSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { Client } from "@temporalio/client";
import { startPostgresServer } from "../src/infra/postgresServer.js";
import { startTemporalDevServer } from "../src/infra/temporalDevServer.js";
import { readComponent } from "../src/infra/components.js";
import { cacheDirFrom, DEFAULT_COLLECTIONS_CONFIG } from "../src/app/config.js";
import { openPglite, openPostgres, type Db } from "../src/eventstore/db.js";
import { migrate } from "../src/eventstore/schema.js";
import { FEATURE_PROJECTORS, PROJECTION_READ_MODELS } from "../src/app/projectors.js";
import { eventHash, GENESIS_HASH } from "../src/eventstore/eventStore.js";
import { createAccounts, type Accounts } from "../src/usecases/accounts/accounts.js";
import { replayProjections, promoteReplay, type ReplayReport } from "../projections/replay.js";
import {
  DEFAULT_LIMITS,
  keyStream,
  orgStream,
  type Actor,
  type DomainEvent,
  type StoredEvent,
} from "../src/domain/events.js";
import { createEmbeddedEngine } from "../src/retrieval/engines/embedded/embeddedEngine.js";
import { loadCollectionCatalog } from "../src/app/collectionsFile.js";
import { createSearchService } from "../src/usecases/search/searchService.js";
import { createTemporalWorker } from "../src/app/temporalWorker.js";
import { createUnlock } from "../src/usecases/unlock/unlock.js";
import { PAYLOAD_VERSION, saveQueryRecord } from "../src/usecases/search/queryCache.js";
import type { CachedRow } from "../src/domain/resultRow.js";
import type { AuthContext } from "../src/usecases/auth/context.js";
import type { Embedder } from "../src/embedding/port.js";

const { values: args } = parseArgs({
  options: {
    appends: { type: "string", default: "2000" },
    writers: { type: "string", default: "8" },
    "replay-events": { type: "string", default: "200000" },
    "pglite-replay-events": { type: "string", default: "50000" },
    searches: { type: "string", default: "300" },
    unlocks: { type: "string", default: "100" },
    only: { type: "string", default: "appends,replay,search,unlock" },
    /** an already running Temporal server to use instead of starting a dev server */
    "temporal-address": { type: "string" },
  },
});
const only = new Set(args.only.split(","));
const operator: Actor = { kind: "operator", id: "bench" };

const percentile = (sorted: number[], p: number) =>
  sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
const round = (v: number, d = 2) => Math.round(v * 10 ** d) / 10 ** d;
function summary(ms: number[]) {
  const s = [...ms].sort((a, b) => a - b);
  return {
    n: s.length,
    p50: round(percentile(s, 50)),
    p90: round(percentile(s, 90)),
    p99: round(percentile(s, 99)),
    max: round(s[s.length - 1]!),
  };
}

async function newPostgresDb(baseUrl: string, name: string, poolSize = 12): Promise<Db> {
  const admin = await openPostgres(baseUrl, FEATURE_PROJECTORS, 1);
  await admin.query(`CREATE DATABASE ${name}`);
  await admin.close();
  const url = new URL(baseUrl);
  url.pathname = `/${name}`;
  const db = await openPostgres(url.toString(), FEATURE_PROJECTORS, poolSize);
  await migrate(db, PROJECTION_READ_MODELS);
  return db;
}

async function fundedOrgs(accounts: Accounts, n: number) {
  const out: { orgId: string; keyId: string }[] = [];
  for (let i = 0; i < n; i++) {
    const org = await accounts.createOrganization(
      {
        name: `bench ${i}`,
        billingMode: "live",
        limits: { ...DEFAULT_LIMITS, daily: 10_000_000, monthly: 100_000_000, perMinute: 1_000_000 },
      },
      operator,
    );
    const key = await accounts.createKey(
      org.id,
      { mode: "live", collections: null, spendingCapMicros: null },
      operator,
    );
    await accounts.addCredits(org.id, 1_000_000_000_000n, "bench", operator);
    out.push({ orgId: org.id, keyId: key.id });
  }
  return out;
}

/**
 * Money-moving appends (a search charge each: lock, decide, append, project, commit) by `writers` concurrent writers.
 */
async function appendRate(db: Db, writers: number, total: number) {
  const accounts = createAccounts(db);
  const orgs = await fundedOrgs(accounts, writers);
  const perWriter = Math.ceil(total / writers);
  const latencies: number[] = [];
  const started = performance.now();
  await Promise.all(
    orgs.map(async ({ orgId, keyId }, w) => {
      for (let i = 0; i < perWriter; i++) {
        const t0 = performance.now();
        await accounts.chargeSearch({
          orgId,
          keyId,
          queryId: `bench-${w}-${i}`,
          endpoint: "/query",
          collections: [
            { collection: "scifact", results: 5, tokens: 1200, pricePer1000Micros: "30000", amountMicros: "36000" },
          ],
        });
        latencies.push(performance.now() - t0);
      }
    }),
  );
  const seconds = (performance.now() - started) / 1000;
  return {
    writers,
    events: perWriter * writers,
    seconds: round(seconds, 3),
    eventsPerSecond: Math.round((perWriter * writers) / seconds),
    appendMs: summary(latencies),
  };
}

/** A realistic log written in bulk (valid hash chain): organizations, keys, credits, search charges and unlocks. */
async function seedLog(db: Db, target: number): Promise<number> {
  const rows: unknown[][] = [];
  let position = 0;
  let prevHash = GENESIS_HASH;
  const versions = new Map<string, number>();
  const start = Date.parse("2026-01-01T00:00:00Z");
  const push = (streamId: string, e: DomainEvent, actor: Actor) => {
    position += 1;
    const streamVersion = (versions.get(streamId) ?? 0) + 1;
    versions.set(streamId, streamVersion);
    const recordedAt = new Date(start + position * 997).toISOString();
    const partial = { ...e, position, streamId, streamVersion, metadata: { actor }, recordedAt, prevHash } as Omit<
      StoredEvent,
      "hash"
    >;
    const hash = eventHash(partial);
    rows.push([
      position,
      streamId,
      streamVersion,
      e.type,
      JSON.stringify(e.data),
      JSON.stringify({ actor }),
      null,
      recordedAt,
      prevHash,
      hash,
    ]);
    prevHash = hash;
  };
  const orgCount = Math.max(1, Math.floor(target / 2000));
  const orgs = Array.from({ length: orgCount }, (_, i) => ({ orgId: `org_bench${i}`, keyId: `key_bench${i}` }));
  for (const { orgId, keyId } of orgs) {
    push(
      orgStream(orgId),
      {
        type: "OrganizationCreated",
        data: {
          orgId,
          name: orgId,
          billingMode: "live",
          limits: DEFAULT_LIMITS,
          hideBalance: false,
          billingEnabled: true,
          trialQueries: 0,
        },
      },
      operator,
    );
    push(
      keyStream(keyId),
      {
        type: "ApiKeyCreated",
        data: {
          keyId,
          orgId,
          mode: "live",
          keyHash: `hash-${keyId}`,
          keyPrefix: "sk_live_xxxx",
          collections: null,
          spendingCapMicros: null,
        },
      },
      operator,
    );
    push(
      orgStream(orgId),
      { type: "CreditsAdded", data: { orgId, amountMicros: "1000000000000", reference: "seed" } },
      operator,
    );
  }
  for (let i = 0; position < target; i++) {
    const { orgId, keyId } = orgs[i % orgs.length]!;
    const lines = [
      { collection: "scifact", results: 3, tokens: 900, pricePer1000Micros: "30000", amountMicros: "27000" },
      { collection: "openalex-synergy", results: 2, tokens: 500, pricePer1000Micros: "50000", amountMicros: "25000" },
    ];
    if (i % 5 === 4) {
      push(
        orgStream(orgId),
        {
          type: "ResultsUnlocked",
          data: {
            orgId,
            keyId,
            queryId: `p${i}`,
            billingMode: "live",
            resultIds: [`r${i}a`, `r${i}b`, `r${i}c`],
            tokens: 1400,
            amountMicros: "52000",
            collections: lines,
            workflowId: `w${i}`,
          },
        },
        { kind: "workflow", id: `w${i}` },
      );
    } else {
      push(
        orgStream(orgId),
        {
          type: "SearchCharged",
          data: {
            orgId,
            keyId,
            queryId: `q${i}`,
            endpoint: "/query",
            billingMode: "live",
            resultIds: [`r${i}a`, `r${i}b`],
            tokens: 1400,
            amountMicros: "52000",
            collections: lines,
          },
        },
        { kind: "key", id: keyId },
      );
    }
  }
  const batch = 1000;
  for (let i = 0; i < rows.length; i += batch) {
    const slice = rows.slice(i, i + batch);
    const values = slice
      .map((_, r) => `(${Array.from({ length: 10 }, (__, c) => `$${r * 10 + c + 1}`).join(", ")})`)
      .join(", ");
    await db.query(
      "INSERT INTO events (position, stream_id, stream_version, type, data, metadata, idempotency_key, " +
        `recorded_at, prev_hash, hash) VALUES ${values}`,
      slice.flat(),
    );
  }
  return rows.length;
}

async function replayRate(db: Db, events: number) {
  await seedLog(db, events);
  // build the live projections from the seeded log once, so the timed replay also proves equality
  await replayProjections(db);
  await promoteReplay(db);
  const t0 = performance.now();
  const report: ReplayReport = await replayProjections(db);
  const withDigests = (performance.now() - t0) / 1000;
  return {
    events: report.events,
    seconds: round(report.seconds, 3),
    eventsPerSecond: report.eventsPerSecond,
    phases: Object.fromEntries(Object.entries(report.phases).map(([k, v]) => [k, round(v, 3)])),
    secondsWithEqualityCheck: round(withDigests, 3),
    equal: report.equal,
  };
}

/** The real search use case on the real embedded engine (a synthetic sparse index): billing's share of each search. */
async function searchBillingLatency(db: Db, searches: number) {
  const dir = mkdtempSync(join(tmpdir(), "bench-index-"));
  const engine = createEmbeddedEngine({ dir });
  const catalog = await loadCollectionCatalog(DEFAULT_COLLECTIONS_CONFIG);
  const collection = catalog.collections.find((c) => c.retrieval === "sparse")!;
  await engine.ensureIndex(collection.name, 384);
  const words = (
    "vitamin bone fracture insulin resistance obesity microbiome statin memory cohort trial review muscle " +
    "relaxant pain therapy"
  ).split(" ");
  await engine.indexChunks(
    collection.name,
    Array.from({ length: 2000 }, (_, i) => {
      const text = Array.from({ length: 60 }, (__, j) => words[(i * 7 + j * 3) % words.length]).join(" ");
      return { id: `c${i}`, text, tokens: 80, metadata: { chunk_index: 0, doc_id: `d${i}`, title: `doc ${i}` } };
    }),
  );
  await engine.commit(collection.name);
  // sparse retrieval embeds nothing; an embedder that is asked anyway would be a bug, so it says so
  const embedder: Embedder = {
    modelName: "none",
    dims: 384,
    embedPassages: () => Promise.reject(new Error("not used")),
    embedQuery: () => Promise.reject(new Error("not used")),
    close: async () => undefined,
  };
  const accounts = createAccounts(db);
  const [{ orgId, keyId }] = await fundedOrgs(accounts, 1);
  const search = createSearchService({ db, accounts, clock: () => new Date(), catalog, engine, embedder });
  const billing: number[] = [];
  const retrieval: number[] = [];
  const total: number[] = [];
  for (let i = 0; i < searches + 30; i++) {
    const auth: AuthContext = {
      key: (await accounts.getKey(keyId))!,
      org: (await accounts.getOrganization(orgId))!,
      billingMode: "live",
    };
    const t0 = performance.now();
    const out = await search.search(
      auth,
      {
        collections: [collection.name],
        query: `${words[i % words.length]} ${words[(i + 5) % words.length]}`,
        limit: 10,
        filters: null,
      },
      "/query",
    );
    if (i < 30) continue; // warm-up
    total.push(performance.now() - t0);
    billing.push(out.timings.billingMs);
    retrieval.push(out.timings.retrievalMs);
  }
  await engine.close();
  rmSync(dir, { recursive: true, force: true });
  return { searches, billingMs: summary(billing), retrievalMs: summary(retrieval), totalMs: summary(total) };
}

/** p50 of fsync of an 8 KiB write on the benchmark's disk: the floor under every durable commit. */
function fsyncLatency(dir: string): number {
  const file = join(dir, "fsync-probe");
  const fd = openSync(file, "w");
  const times: number[] = [];
  for (let i = 0; i < 50; i++) {
    writeSync(fd, Buffer.alloc(8192, 1));
    const t0 = performance.now();
    fsyncSync(fd);
    times.push(performance.now() - t0);
  }
  closeSync(fd);
  return summary(times).p50;
}

function previewRows(prefix: string, n: number): CachedRow[] {
  return Array.from({ length: n }, (_, i) => ({
    id: `${prefix}-${i}`,
    collection: "scifact",
    physical: "scifact",
    text: `full text ${i}`,
    teaser: `teaser ${i}...`,
    metadata: { chunk_index: 0, doc_id: `${prefix}-d${i}` },
    relevance: 0.5,
    tokens: 200 + i,
    costMicros: String(6000 + i * 30),
    pricePer1000Micros: "30000",
    figureCount: 0,
  }));
}

/**
 * Unlock of 3 new rows of a fresh preview through the use case (preview check, workflow: quota check and charge, rows
 * read back), end to end from the caller.
 */
async function unlockLatency(db: Db, address: string, unlocks: number) {
  const accounts = createAccounts(db);
  const [{ orgId, keyId }] = await fundedOrgs(accounts, 1);
  const taskQueue = `bench-unlock-${Date.now()}`;
  const { worker, connection: workerConnection } = await createTemporalWorker({
    address,
    namespace: "default",
    taskQueue,
    deps: { db, accounts, clock: () => new Date() },
  });
  const running = worker.run();
  // the client shares the worker's connection, as the API process does when it runs the worker: eager start
  const unlock = createUnlock({
    client: new Client({ connection: workerConnection, namespace: "default" }),
    db,
    accounts,
    clock: () => new Date(),
    taskQueue,
    eagerStart: true,
  });
  const auth: AuthContext = {
    org: (await accounts.getOrganization(orgId))!,
    key: (await accounts.getKey(keyId))!,
    billingMode: "live",
  };
  const latencies: number[] = [];
  for (let i = 0; i < unlocks + 5; i++) {
    const queryId = `bench-preview-${i}`;
    await saveQueryRecord(db, {
      queryId,
      orgId,
      keyId,
      kind: "preview",
      payloadVersion: PAYLOAD_VERSION,
      createdAt: new Date(),
      payload: { query: "q", collections: ["scifact"], rows: previewRows(queryId, 5) },
    });
    const t0 = performance.now();
    const out = await unlock.unlock(auth, {
      queryId,
      resultIds: [`${queryId}-0`, `${queryId}-1`, `${queryId}-2`],
      figures: null,
    });
    if (out.unlocked.size !== 3 || out.costChargedMicros === 0n) throw new Error("unlock did not unlock the rows");
    if (i >= 5) latencies.push(performance.now() - t0);
  }
  worker.shutdown();
  await running;
  await workerConnection.close();
  return { unlocks, latencyMs: summary(latencies) };
}

async function main(): Promise<void> {
  const root = mkdtempSync(join(tmpdir(), "bench-billing-"));
  chmodSync(root, 0o755);
  const stops: (() => Promise<void>)[] = [];
  const result: Record<string, unknown> = { machine: { cores: (await import("node:os")).cpus().length } };
  try {
    const pg = await startPostgresServer({
      dataDir: join(root, "postgres"),
      component: readComponent("postgres", cacheDirFrom(process.env)),
    });
    stops.push(pg.stop);
    // latency first, on a quiet server: the bulk writes of the throughput runs leave checkpoints behind them
    if (only.has("search")) {
      const db = await newPostgresDb(pg.url, "bench_search");
      result.searchBilling = await searchBillingLatency(db, Number(args.searches));
      await db.close();
      // the same with commits that do not wait for the WAL flush: shows what the disk's fsync adds (not how the service
      // runs)
      const admin = await openPostgres(pg.url, FEATURE_PROJECTORS, 1);
      await admin.query("CREATE DATABASE bench_search_nosync");
      await admin.query("ALTER DATABASE bench_search_nosync SET synchronous_commit = off");
      await admin.close();
      const url = new URL(pg.url);
      url.pathname = "/bench_search_nosync";
      const nosync = await openPostgres(url.toString(), FEATURE_PROJECTORS, 12);
      await migrate(nosync, PROJECTION_READ_MODELS);
      result.searchBillingWithoutWalFlush = await searchBillingLatency(nosync, Number(args.searches));
      await nosync.close();
      result.diskFsyncMs = fsyncLatency(root);
    }
    if (only.has("unlock")) {
      let address = args["temporal-address"];
      if (!address) {
        const temporal = await startTemporalDevServer({
          dataDir: join(root, "temporal"),
          component: readComponent("temporal", cacheDirFrom(process.env)),
        });
        stops.push(temporal.stop);
        address = temporal.address;
      }
      const db = await newPostgresDb(pg.url, "bench_unlock", 20);
      result.unlockWorkflow = await unlockLatency(db, address, Number(args.unlocks));
      await db.close();
    }
    if (only.has("appends")) {
      const appends = Number(args.appends);
      const writers = Number(args.writers);
      const pgOne = await newPostgresDb(pg.url, "bench_append_one");
      const pgMany = await newPostgresDb(pg.url, "bench_append_many");
      const lite = await openPglite(undefined, FEATURE_PROJECTORS);
      await migrate(lite, PROJECTION_READ_MODELS);
      const liteMany = await openPglite(undefined, FEATURE_PROJECTORS);
      await migrate(liteMany, PROJECTION_READ_MODELS);
      result.appends = {
        postgres: {
          oneWriter: await appendRate(pgOne, 1, appends),
          manyWriters: await appendRate(pgMany, writers, appends),
        },
        pglite: {
          oneWriter: await appendRate(lite, 1, appends),
          manyWriters: await appendRate(liteMany, writers, appends),
        },
      };
      for (const db of [pgOne, pgMany, lite, liteMany]) await db.close();
    }
    if (only.has("replay")) {
      const pgDb = await newPostgresDb(pg.url, "bench_replay");
      const lite = await openPglite(undefined, FEATURE_PROJECTORS);
      await migrate(lite, PROJECTION_READ_MODELS);
      result.replay = {
        postgres: await replayRate(pgDb, Number(args["replay-events"])),
        pglite: await replayRate(lite, Number(args["pglite-replay-events"])),
      };
      await pgDb.close();
      await lite.close();
    }
  } finally {
    for (const stop of stops.reverse()) await stop().catch(() => undefined);
    rmSync(root, { recursive: true, force: true });
  }
  console.log(JSON.stringify(result, null, 2));
  const r = result as {
    appends?: {
      postgres: { oneWriter: { eventsPerSecond: number }; manyWriters: { eventsPerSecond: number } };
      pglite: { oneWriter: { eventsPerSecond: number }; manyWriters: { eventsPerSecond: number } };
    };
    replay?: { postgres: { eventsPerSecond: number; equal: boolean }; pglite: { eventsPerSecond: number } };
    searchBilling?: { billingMs: { p50: number }; retrievalMs: { p50: number } };
    searchBillingWithoutWalFlush?: { billingMs: { p50: number } };
    diskFsyncMs?: number;
    unlockWorkflow?: { latencyMs: { p50: number; p99: number } };
  };
  const parts: string[] = [];
  if (r.appends)
    parts.push(
      `appends/s PG 1w ${r.appends.postgres.oneWriter.eventsPerSecond}, PG ${args.writers}w ` +
        `${r.appends.postgres.manyWriters.eventsPerSecond}, PGlite 1w ` +
        `${r.appends.pglite.oneWriter.eventsPerSecond}, PGlite ${args.writers}w ` +
        `${r.appends.pglite.manyWriters.eventsPerSecond}`,
    );
  if (r.replay)
    parts.push(
      `replay/s PG ${r.replay.postgres.eventsPerSecond} (target 50000, equal=${r.replay.postgres.equal}), ` +
        `PGlite ${r.replay.pglite.eventsPerSecond}`,
    );
  if (r.searchBilling) {
    parts.push(
      `billing per search p50 ${r.searchBilling.billingMs.p50} ms (target 3; ` +
        `${r.searchBillingWithoutWalFlush?.billingMs.p50} ms without the WAL flush; disk fsync p50 ` +
        `${r.diskFsyncMs} ms; retrieval p50 ${r.searchBilling.retrievalMs.p50} ms)`,
    );
  }
  if (r.unlockWorkflow)
    parts.push(
      `unlock workflow p50 ${r.unlockWorkflow.latencyMs.p50} ms p99 ${r.unlockWorkflow.latencyMs.p99} ms ` +
        "(target p50 60)",
    );
  console.log(parts.join("; "));
}

main().then(
  () => process.exit(0),
  (err) => {
    console.error(err instanceof Error ? (err.stack ?? err.message) : String(err));
    process.exit(1);
  },
);
