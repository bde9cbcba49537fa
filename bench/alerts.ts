// Alerts at volume on the scaled shape: N on_ingest alerts over M organizations (each with a live key, credits and a
// webhook endpoint on a loopback receiver that answers 200) watch one hybrid collection; one upsert adds new
// documents, and the bench measures the time from the ingestion's commit (its finishedAt) to the end of the last run,
// each run's end after the commit (p50/p95) and its own length (started to ended), and reconciles the charges: every
// delivered run charged exactly once in its organization's ledger, no run charged twice, none left pending.
// Prints JSON, then a readable line.
// Usage: npm run bench:alerts [-- --alerts 2000] [--orgs 40] [--workers 1] [--documents 200] [--new 20]
//   [--cpu-prof DIR] (each worker process's CPU profile, written when it stops)
//   OpenSearch: OPENSEARCH_URL, else a node started here; a PostgreSQL server started here; the runtime runs no worker,
//   `--workers` `src/app/worker.ts` processes run every workflow and activity. An organization holds at most 50 alerts.
import { chmodSync, mkdirSync, mkdtempSync, readdirSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import pg from "pg";
import pino from "pino";
import { loadConfig } from "../src/app/config.js";
import { startRuntime, type Runtime } from "../src/app/composition.js";
import { listen } from "../src/http/server.js";
import { readComponent } from "../src/infra/components.js";
import { startOpenSearchNode, type OpenSearchNode } from "../src/infra/opensearchNode.js";
import { startPostgresServer, type PostgresServer } from "../src/infra/postgresServer.js";
import type { SupervisedProcess } from "../src/infra/supervisedProcess.js";
import { waitForIngestion } from "../src/usecases/collections/temporalIngestions.js";
import { MAX_ALERTS_PER_ORG } from "../src/usecases/alerts/alertRules.js";
import { createDatabase, startWorkers } from "./scaledShape.js";

const { values: args } = parseArgs({
  options: {
    alerts: { type: "string", default: "2000" },
    orgs: { type: "string", default: "40" },
    workers: { type: "string", default: "1" },
    documents: { type: "string", default: "200" },
    new: { type: "string", default: "20" },
    timeout: { type: "string", default: "1800" },
    /** a folder: each worker process writes its V8 CPU profile there when it stops (bench/cpuProfile.ts reads them) */
    "cpu-prof": { type: "string" },
  },
});

const WORDS = (
  "coral reef bleaching heatwave symbiont algae parrotfish transect survey seagrass dugong mangrove nursery " +
  "snapper juvenile cyclone sediment turbidity recovery recruitment larvae spawning lagoon atoll salinity " +
  "nitrogen phosphate grazing herbivory predator outbreak starfish urchin sponge calcification acidification"
).split(" ");

const pick = (n: number, k: number) => WORDS[(n * 7 + k * 13) % WORDS.length]!;
const documentOf = (n: number) => ({
  id: `doc-${n}`,
  title: `Survey ${n}: ${pick(n, 1)} ${pick(n, 2)} and ${pick(n, 3)}`,
  text: Array.from({ length: 30 }, (_, k) => pick(n + k, k)).join(" ") + ".",
  publication_date: String(2000 + (n % 25)),
});
/** Each alert its own query (a distinct text to embed), as customers' alerts are. */
const queryOf = (a: number) => `${pick(a, 1)} ${pick(a, 5)} ${pick(a, 9)} study ${a}`;

const quantile = (values: number[], q: number) => {
  const sorted = [...values].sort((x, y) => x - y);
  return sorted.length ? sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]! : null;
};
const round = (x: number | null) => (x === null ? null : Math.round(x * 1000) / 1000);

/** A loopback webhook receiver that answers every delivery 200 and counts them. */
async function startReceiver() {
  let deliveries = 0;
  const server = createServer((req, res) => {
    req.resume();
    req.on("end", () => {
      deliveries += 1;
      res.writeHead(200, { "content-type": "application/json" }).end("{}");
    });
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url,
    deliveries: () => deliveries,
    close: () => new Promise<void>((r) => server.close(() => r())),
  };
}

type Call = (method: string, path: string, auth: string, body?: unknown) => Promise<{ status: number; body: any }>;

/** Runs `tasks` `width` at a time. */
async function pool<T>(items: T[], width: number, task: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: width }, async () => {
      while (next < items.length) await task(items[next++]!);
    }),
  );
}

/** M organizations, each with credits, a live key, an endpoint on the receiver and its share of the N alerts. */
async function createAlerts(call: Call, admin: string, receiverUrl: string, collection: string) {
  const orgs = Number(args.orgs);
  const alerts = Number(args.alerts);
  const perOrg = Math.ceil(alerts / orgs);
  if (perOrg > MAX_ALERTS_PER_ORG)
    throw new Error(`--alerts ${alerts} over --orgs ${orgs} is more than ${MAX_ALERTS_PER_ORG} an organization`);
  const ok = (res: { status: number; body: any }, what: string) => {
    if (res.status >= 300) throw new Error(`${what}: ${res.status} ${JSON.stringify(res.body)}`);
    return res.body;
  };
  const keys: { orgId: string; key: string; endpoint: string }[] = [];
  await pool(
    Array.from({ length: orgs }, (_, o) => o),
    4,
    async (o) => {
      const limits = { perMinute: 1_000_000, daily: 100_000_000, monthly: 1_000_000_000 };
      const org = ok(await call("POST", "/admin/v1/organizations", admin, { name: `alerts-${o}`, limits }), "org");
      ok(await call("POST", `/admin/v1/organizations/${org.id}/credits`, admin, { amount: "1000.00" }), "credits");
      const key = ok(await call("POST", `/admin/v1/organizations/${org.id}/keys`, admin, { mode: "live" }), "key").key;
      const hook = { url: `${receiverUrl}/org-${o}`, events: ["alert.matched"] };
      const endpoint = ok(await call("POST", "/api/v1/webhooks", key, hook), "webhook").id;
      keys[o] = { orgId: org.id, key, endpoint };
    },
  );
  const started = Date.now();
  await pool(
    Array.from({ length: alerts }, (_, a) => a),
    8,
    async (a) => {
      const { key, endpoint } = keys[a % orgs]!;
      const body = { query: queryOf(a), collection, webhook: endpoint };
      ok(await call("POST", "/api/v1/alerts", key, body), `alert ${a}`);
    },
  );
  return { orgs: keys, creationSeconds: (Date.now() - started) / 1000 };
}

interface RunRow {
  org_id: string;
  query_id: string;
  state: string;
  created: number;
  ended: number | null;
  amount: string;
}

/** The runs the ingestion started, polled until `alerts` of them ended (or the timeout). */
async function untilRunsEnded(db: pg.Client, trigger: string, alerts: number, timeoutMs: number) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const { rows } = await db.query<RunRow>(
      "SELECT org_id, query_id, state, extract(epoch from created_at) * 1000 AS created, " +
        "extract(epoch from ended_at) * 1000 AS ended, amount_micros::text AS amount FROM proj_alert_runs " +
        "WHERE trigger = $1",
      [trigger],
    );
    const ended = rows.filter((r) => r.state !== "pending" && r.ended !== null);
    if (ended.length >= alerts || Date.now() > deadline) return rows;
    if (Date.now() % 10_000 < 500) console.error(`${rows.length} runs started, ${ended.length} ended`);
    await new Promise((r) => setTimeout(r, 500));
  }
}

/** Each organization's ledger against its runs: one charge per paid run, none for a run that was not paid. */
async function reconcile(db: pg.Client, runs: RunRow[]) {
  // a charge counts for its run only in the run's own organization's ledger
  const { rows } = await db.query<{ query_id: string; charges: string }>(
    "SELECT l.query_id, count(*)::text AS charges FROM proj_ledger l JOIN proj_alert_runs r " +
      "ON r.query_id = l.query_id AND r.org_id = l.org_id WHERE l.query_id = ANY($1) AND l.type = 'charge' " +
      "GROUP BY l.query_id",
    [runs.map((r) => r.query_id)],
  );
  const charges = new Map(rows.map((r) => [r.query_id, Number(r.charges)]));
  const paid = runs.filter((r) => BigInt(r.amount) > 0n);
  const wrong = runs.filter((r) => (charges.get(r.query_id) ?? 0) !== (BigInt(r.amount) > 0n ? 1 : 0));
  return {
    paidRuns: paid.length,
    ledgerCharges: [...charges.values()].reduce((a, b) => a + b, 0),
    runsChargedOtherThanOnce: wrong.length,
    organizationsWithPaidRuns: new Set(paid.map((r) => r.org_id)).size,
    byState: Object.fromEntries(
      [...new Set(runs.map((r) => r.state))].map((s) => [s, runs.filter((r) => r.state === s).length]),
    ),
  };
}

/**
 * Where a run's own time goes, p50/p95 seconds per phase: opened (its search done) to its webhook event published (the
 * rest of the first step: the run's record, the works' integrity, the publish), published to the delivery's 2xx, and
 * the 2xx to the run's end (its charge).
 */
async function runPhases(db: pg.Client, runs: RunRow[]) {
  const { rows } = await db.query<{ opened: number; published: number; delivered: number; ended: number }>(
    "SELECT extract(epoch from r.created_at) * 1000 AS opened, extract(epoch from d.created_at) * 1000 AS published, " +
      "extract(epoch from d.last_attempt_at) * 1000 AS delivered, extract(epoch from r.ended_at) * 1000 AS ended " +
      "FROM proj_alert_runs r JOIN events e ON e.type = 'WebhookEventCreated' " +
      "AND e.data->'payload'->'data'->>'queryId' = r.query_id " +
      "JOIN proj_webhook_deliveries d ON d.message_id = e.data->>'messageId' " +
      "WHERE r.query_id = ANY($1) AND r.ended_at IS NOT NULL AND d.last_attempt_at IS NOT NULL",
    [runs.map((r) => r.query_id)],
  );
  const phase = (from: (r: (typeof rows)[number]) => number, to: (r: (typeof rows)[number]) => number) => {
    const values = rows.map((r) => (Number(to(r)) - Number(from(r))) / 1000);
    return { p50: round(quantile(values, 0.5)), p95: round(quantile(values, 0.95)) };
  };
  return {
    runsJoined: rows.length,
    openedToPublished: phase(
      (r) => r.opened,
      (r) => r.published,
    ),
    publishedToDelivered: phase(
      (r) => r.published,
      (r) => r.delivered,
    ),
    deliveredToCharged: phase(
      (r) => r.delivered,
      (r) => r.ended,
    ),
  };
}

async function measure(runtime: Runtime, adminToken: string, databaseUrl: string, collection: string) {
  const server = await listen(runtime.app, 0, "127.0.0.1");
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const call: Call = async (method, path, auth, body) => {
    // a 503 (the engine past its deadline on a loaded machine) is tried again after its Retry-After, as a client would
    for (let attempt = 1; ; attempt++) {
      const res = await fetch(`${base}${path}`, {
        method,
        headers: { Authorization: `Bearer ${auth}`, "Content-Type": "application/json" },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
      const answer = { status: res.status, body: (await res.json()) as any };
      if (res.status !== 503 || attempt === 10) return answer;
      await new Promise((r) => setTimeout(r, Number(res.headers.get("retry-after") ?? 1) * 1000));
    }
  };
  const receiver = await startReceiver();
  const db = new pg.Client({ connectionString: databaseUrl });
  await db.connect();
  try {
    const created = await createAlerts(call, adminToken, receiver.url, collection);
    console.error(`${args.alerts} alerts created in ${round(created.creationSeconds)} s; ingesting`);
    const load = [loadavg()];
    const { ingestionId } = await runtime.ingestions.start(
      { collection, files: ["bench-alerts-v2.jsonl"], mode: "upsert" },
      { kind: "operator", id: "bench" },
    );
    const status = (await waitForIngestion(runtime.ingestions, ingestionId, 100))!;
    if (status.state !== "completed") throw new Error(`ingestion: ${status.error}`);
    console.error(`ingestion committed at ${status.finishedAt}; waiting for the runs`);
    const commit = Date.parse(status.finishedAt!);
    const alerts = Number(args.alerts);
    const runs = await untilRunsEnded(db, `ingestion:${ingestionId}`, alerts, Number(args.timeout) * 1000);
    load.push(loadavg());
    const ended = runs.filter((r) => r.ended !== null);
    const afterCommit = ended.map((r) => (Number(r.ended) - commit) / 1000);
    const firstStarted = Math.min(...runs.map((r) => Number(r.created)));
    return {
      alerts,
      organizations: created.orgs.length,
      workerProcesses: Number(args.workers),
      documents: { before: Number(args.documents), added: Number(args.new) },
      alertCreationSeconds: round(created.creationSeconds),
      documentsAdded: status.documentsAdded,
      runsStarted: runs.length,
      runsEnded: ended.length,
      firstRunStartedAfterCommitSeconds: round((firstStarted - commit) / 1000),
      lastRunEndedAfterCommitSeconds: round(Math.max(...afterCommit)),
      runEndAfterCommitSeconds: { p50: round(quantile(afterCommit, 0.5)), p95: round(quantile(afterCommit, 0.95)) },
      runSeconds: {
        p50: round(
          quantile(
            ended.map((r) => (Number(r.ended) - Number(r.created)) / 1000),
            0.5,
          ),
        ),
        p95: round(
          quantile(
            ended.map((r) => (Number(r.ended) - Number(r.created)) / 1000),
            0.95,
          ),
        ),
      },
      runPhaseSeconds: await runPhases(db, ended),
      webhookDeliveries: receiver.deliveries(),
      charges: await reconcile(db, runs),
      loadAverage: load.map((l) => l.map((x) => Math.round(x * 100) / 100)),
    };
  } finally {
    await db.end();
    await receiver.close();
    await new Promise<void>((r) => server.close(() => r()));
  }
}

async function main(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), "bench-alerts-"));
  chmodSync(dir, 0o755); // a PostgreSQL server started by root runs as 'postgres', which must enter it
  const dataRoot = join(dir, "root");
  mkdirSync(dataRoot);
  const realRoot = loadConfig().dataRoot;
  for (const entry of readdirSync(realRoot)) symlinkSync(join(realRoot, entry), join(dataRoot, entry));
  const before = Number(args.documents);
  const docs = (n: number) => Array.from({ length: n }, (_, k) => JSON.stringify(documentOf(k))).join("\n") + "\n";
  writeFileSync(join(dataRoot, "bench-alerts-v1.jsonl"), docs(before));
  writeFileSync(join(dataRoot, "bench-alerts-v2.jsonl"), docs(before + Number(args.new)));
  const collection = "bench-alerts";
  const collectionsConfig = join(dir, "collections.json");
  const plain = {
    name: collection,
    displayName: collection,
    description: null,
    kind: "scholarly",
    retrieval: "hybrid",
    pricePer1000: "0.010",
    openAccessOnly: false,
    scanFilterable: false,
    excludeRetracted: false,
    source: { reader: "jsonl", files: ["bench-alerts-v1.jsonl"] },
  };
  writeFileSync(collectionsConfig, JSON.stringify({ collections: [plain], metaCollections: [] }));
  const baseConfig = loadConfig({ ...process.env, DATA_ROOT: dataRoot });
  let node: OpenSearchNode | undefined;
  let postgres: PostgresServer | undefined;
  let runtime: Runtime | undefined;
  const workers: SupervisedProcess[] = [];
  try {
    let opensearchUrl = baseConfig.opensearchUrl ?? "";
    if (!opensearchUrl) {
      node = await startOpenSearchNode({
        dataDir: join(dir, "opensearch"),
        component: readComponent("opensearch", baseConfig.cacheDir),
      });
      opensearchUrl = node.url;
    }
    postgres = await startPostgresServer({
      dataDir: join(dir, "postgres"),
      component: readComponent("postgres", baseConfig.cacheDir),
    });
    const databaseUrl = await createDatabase(postgres.url, "bench_alerts");
    const config = loadConfig({
      ...process.env,
      DATA_DIR: join(dir, "data"),
      DATA_ROOT: dataRoot,
      COLLECTIONS_CONFIG: collectionsConfig,
      OPENSEARCH_URL: opensearchUrl,
      DATABASE_URL: databaseUrl,
      INGEST_DEMO: "0",
      LOG_LEVEL: "warn",
      WEBHOOK_ALLOW_PRIVATE_URLS: "1",
    });
    runtime = await startRuntime(config, { worker: false, log: pino({ level: "warn" }) });
    const profile = args["cpu-prof"] ? ["--cpu-prof", `--cpu-prof-dir=${args["cpu-prof"]}`] : [];
    await startWorkers(config, runtime.temporal.address, Number(args.workers), join(dir, "logs"), workers, profile);
    const first = await runtime.ingestions.start(
      { collection, files: ["bench-alerts-v1.jsonl"], mode: "replace" },
      { kind: "operator", id: "bench" },
    );
    const built = (await waitForIngestion(runtime.ingestions, first.ingestionId, 200))!;
    if (built.state !== "completed") throw new Error(`first ingestion: ${built.error}`);
    console.error(`${built.documentsAdded} documents ingested; creating the alerts`);
    const result = await measure(runtime, config.adminToken, databaseUrl, collection);
    console.log(JSON.stringify(result, null, 2));
    console.log(
      `${result.runsEnded} of ${result.alerts} alerts' runs (${result.organizations} organizations, ` +
        `${result.workerProcesses} worker process(es)) ended ${result.lastRunEndedAfterCommitSeconds} s after the ` +
        `ingestion's commit (p50 ${result.runEndAfterCommitSeconds.p50} s, ` +
        `p95 ${result.runEndAfterCommitSeconds.p95} s); ` +
        `a run took p50 ${result.runSeconds.p50} s, p95 ${result.runSeconds.p95} s; ` +
        `${result.charges.runsChargedOtherThanOnce} runs charged other than once`,
    );
  } finally {
    for (const w of workers) await w.stop();
    await runtime?.close();
    await postgres?.stop();
    await node?.stop();
  }
  rmSync(dir, { recursive: true, force: true });
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
