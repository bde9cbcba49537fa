// Speed benchmark over HTTP with autocannon: POST /api/v1/search/query on the SciFact collection (hybrid), billed
// to a live key, latency p50/p95/p99 and throughput at concurrency 1, 16 and 64, the service on the embedded engine
// and on OpenSearch, with billing in PGlite (the default) and in a PostgreSQL server, each in its own process. Prints
// JSON and readable lines. The floor: the same hybrid retrievals (query vectors embedded beforehand) sent straight to
// OpenSearch by the adapter in this process, no service, at the same concurrencies; the service's overhead is printed
// as a ratio to it. --profile runs each service under `node --cpu-prof` and prints where its CPU time goes per request
// at concurrency 16, by phase of the paid search (bench/cpuProfile.ts). The SciFact index comes from the quality
// benchmark's cache (data/bench). Search at scale (generated chunks, 50k to 500k) is `npm run bench:scale`.
// Before any point is timed, each service and the floor run --warmup seconds at concurrency 16, untimed: a node or
// service that has just started is still compiling its hot paths (a fresh OpenSearch node's hybrid throughput doubles
// over its first two minutes), and a deployed one has long finished.
// The floor is timed again beside the OpenSearch services in every round (before them, then after them), and the
// median of those is its figure: its first timing, on a node just started, costs the node twice the CPU a search.
// --against <commit> builds that commit in a temporary git worktree (this checkout's node_modules linked in) and
// measures its service beside this tree's, interleaved on the same machine in one run (this, that, then that, this:
// --rounds 2), each figure the median of its rounds, and prints each figure's ratio: a noisy machine then still tells
// a regression from noise, since both trees see the same noise.
// --cpu-split adds, to each load point, the service's CPU per request by thread (main, libuv threadpool, V8 platform
// workers, worker_threads, onnxruntime): kernel time per thread, each thread told by its stack (threadCpu.ts, gdb).
// Usage: npm run bench:speed [-- --duration 10] [--warmup 60] [--queries 200] [--stores pglite,postgres] [--engines
// embedded,opensearch] [--profile] [--cpu-split] [--against <commit> [--rounds 2]]
import { execFileSync } from "node:child_process";
import { mkdirSync, readFileSync, rmSync, symlinkSync, writeFileSync, existsSync } from "node:fs";
import { loadavg } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import autocannon from "autocannon";
import pg from "pg";
import { REPO_ROOT } from "../src/app/config.js";
import { startOpenSearchNode, type OpenSearchNode } from "../src/infra/opensearchNode.js";
import { startPostgresServer, type PostgresServer } from "../src/infra/postgresServer.js";
import { readComponent } from "../src/infra/components.js";
import { startSupervisedProcess, type SupervisedProcess } from "../src/infra/supervisedProcess.js";
import { waitForReady } from "../src/infra/readiness.js";
import { createOpenSearchEngine } from "../src/retrieval/engines/opensearch/openSearchEngine.js";
import type { RetrievalMode } from "../src/retrieval/port.js";
import {
  CATEGORIES,
  PHASES,
  profileClockMicros,
  summarizeCategories,
  summarizeProfiles,
  type Category,
  type Phase,
} from "./cpuProfile.js";
import { splitLine, splitPerRequest, threadCpuMs, threadKinds, type ThreadKind } from "./threadCpu.js";
import { againstDataRoot, installMissingDependencies } from "./againstDeps.js";
import { indexMappingVersion, mappingVersionOf, treeCollection, writeTreeIndex } from "./treeIndexes.js";
import {
  copyIndex,
  loadScifactJudgements,
  openScifactIndex,
  scifactChunkIds,
  SCIFACT_COLLECTION,
  BENCH_DIR,
} from "./scifactBench.js";
import { createDatabase } from "./scaledShape.js";

const { values: args } = parseArgs({
  options: {
    duration: { type: "string", default: "10" },
    warmup: { type: "string", default: "60" },
    queries: { type: "string", default: "200" },
    stores: { type: "string", default: "pglite,postgres" },
    engines: { type: "string", default: "embedded,opensearch" },
    profile: { type: "boolean", default: false },
    "cpu-split": { type: "boolean", default: false },
    against: { type: "string" },
    rounds: { type: "string", default: "2" },
  },
});

const CONCURRENCY = [1, 16, 64];
/** --cpu-split: each load point's service CPU per request by thread kind (threadCpu.ts) */
const CPU_SPLIT = args["cpu-split"];
/** the concurrency of the untimed warm-up */
const WARMUP_CONCURRENCY = 16;
const ADMIN_TOKEN = "bench-admin-token-0123456789";

interface LoadFigures {
  connections: number;
  requests: number;
  requestsPerSecond: number;
  p50: number;
  p95: number;
  p99: number;
  non2xx: number;
  errors: number;
  /**
   * CPU milliseconds per request over the run, from the kernel's accounting (user + system time of every thread): of
   * the service's process tree (the floor: of the bench's own process), of the PostgreSQL server (its backends
   * included) and of the OpenSearch node. Unlike the profile's
   * samples, time the thread waited for a core while the machine was loaded is not counted.
   */
  cpuMsPerRequest?: { client?: number; service?: number; store?: number; node?: number };
  /** --cpu-split: the service's CPU milliseconds per request by thread kind (threadCpu.ts) */
  serviceThreads?: Partial<Record<ThreadKind, number>>;
}

interface EngineFigures {
  engine: "embedded" | "opensearch";
  /** the event store billing writes to */
  store: "pglite" | "postgres";
  /** one request per query, concurrency 1, query vectors not cached yet */
  coldP50: number;
  coldP95: number;
  load: LoadFigures[];
  serverRssMB: number;
  /** --profile: CPU milliseconds per request at concurrency 16, by thread and phase */
  profile?: ProfileFigures;
  /**
   * --cpu-split: the service's CPU milliseconds per second by thread kind while no request comes (IDLE_SECONDS after
   * the warm-up): its timers and background reads, which every load point's figure per request also carries
   */
  idleCpuMsPerSecond?: Partial<Record<ThreadKind, number>>;
}

interface ProfileFigures {
  connections: number;
  requests: number;
  threads: Array<{ thread: string; msPerRequest: number; byPhase: Partial<Record<Phase, number>> }>;
  /** the main thread's CPU ms per request by category (cpuProfile.ts CATEGORIES) */
  mainByCategory: Partial<Record<Category, number>>;
  /** the main thread's costliest innermost functions, CPU ms per request */
  hottest: Array<{ where: string; ms: number }>;
}

/** The same retrieval straight to OpenSearch through the adapter, no service. */
interface FloorFigures {
  mode: RetrievalMode;
  load: LoadFigures[];
}

/** CPU profiles are taken at this concurrency. */
const PROFILED_CONCURRENCY = 16;

const round1 = (x: number): number => Math.round(x * 10) / 10;

/** The service (src/app/main.ts) in a child process on the bench data, with only the scifact collection configured. */
async function startService(
  name: string,
  dataDir: string,
  env: Record<string, string>,
  profileDir?: string,
  root = REPO_ROOT,
  collection = SCIFACT_COLLECTION,
): Promise<{ url: string; process: SupervisedProcess }> {
  mkdirSync(dataDir, { recursive: true });
  rmSync(join(dataDir, "server.json"), { force: true });
  const child = startSupervisedProcess({
    name,
    command: process.execPath,
    args: [
      ...(profileDir ? ["--cpu-prof", `--cpu-prof-dir=${profileDir}`] : []),
      "--import",
      "tsx",
      join(root, "src", "app", "main.ts"),
    ],
    cwd: root,
    logFile: join(dataDir, "service.log"),
    env: {
      ...process.env,
      DATA_DIR: dataDir,
      PORT: "0",
      INGEST_DEMO: "0",
      LOG_LEVEL: "warn",
      ADMIN_TOKEN,
      COLLECTIONS_CONFIG: speedCollectionsConfig(collection),
      OPENSEARCH_URL: "",
      ...env,
    },
  });
  const url = await waitForReady({
    what: `${name} service`,
    process: child,
    timeoutMs: 300_000,
    intervalMs: 500,
    probe: async (signal) => {
      const file = join(dataDir, "server.json");
      if (!existsSync(file)) return undefined;
      const { url } = JSON.parse(readFileSync(file, "utf8")) as { url: string };
      const ready = await fetch(`${url}/readyz`, { signal });
      return ready.ok ? url : undefined;
    },
  });
  return { url, process: child };
}

/**
 * The repository's configuration reduced to the scifact collection (nothing else to ingest or search), named
 * `collection` (the other tree's OpenSearch service may search an index of its own: treeIndexes.ts).
 */
function speedCollectionsConfig(collection: string): string {
  const config = JSON.parse(readFileSync(join(REPO_ROOT, "config", "collections.json"), "utf8")) as {
    collections: Array<{ name: string }>;
    metaCollections: unknown[];
  };
  const path = join(BENCH_DIR, `collections.speed.${collection}.json`);
  writeFileSync(
    path,
    JSON.stringify(
      {
        collections: config.collections
          .filter((c) => c.name === SCIFACT_COLLECTION)
          .map((c) => ({ ...c, name: collection })),
        metaCollections: [],
      },
      null,
      2,
    ),
  );
  return path;
}

async function json(
  url: string,
  init: RequestInit & { token: string; body?: string },
): Promise<{ [key: string]: unknown }> {
  const response = await fetch(url, {
    ...init,
    headers: { Authorization: `Bearer ${init.token}`, "Content-Type": "application/json" },
  });
  if (!response.ok)
    throw new Error(`${init.method ?? "GET"} ${url} answered ${response.status}: ${await response.text()}`);
  return (await response.json()) as { [key: string]: unknown };
}

/** A live organization with credits and limits far above what the run needs, and its key: billing stays on. */
async function liveKey(url: string): Promise<string> {
  const org = await json(`${url}/admin/v1/organizations`, {
    method: "POST",
    token: ADMIN_TOKEN,
    body: JSON.stringify({
      name: "Speed bench",
      billingMode: "live",
      limits: { perMinute: 1_000_000, daily: 100_000_000, monthly: 1_000_000_000 },
    }),
  });
  await json(`${url}/admin/v1/organizations/${org.id}/credits`, {
    method: "POST",
    token: ADMIN_TOKEN,
    body: JSON.stringify({ amount: "1000000.00" }),
  });
  const key = await json(`${url}/admin/v1/organizations/${org.id}/keys`, {
    method: "POST",
    token: ADMIN_TOKEN,
    body: JSON.stringify({ mode: "live" }),
  });
  return String(key.key);
}

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? Number.NaN;
}

async function measureEngine(
  engine: EngineFigures["engine"],
  store: EngineFigures["store"],
  url: string,
  pid: number,
  queries: string[],
  duration: number,
  warmup: number,
  nodePid: number | undefined,
  storePid: number | undefined,
  /** after the warm-up, before the timed points: brings the store to rest (see settlePostgres) */
  settle: (() => Promise<void>) | undefined,
  onProfiledWindow?: (fromMicros: number, toMicros: number, requests: number) => void,
  collection = SCIFACT_COLLECTION,
): Promise<EngineFigures> {
  const key = await liveKey(url);
  const bodies = queries.map((query) => JSON.stringify({ collection, query, limit: 10 }));
  const headers = { Authorization: `Bearer ${key}`, "Content-Type": "application/json" };
  // one pass with new query texts: each request embeds its query
  const cold: number[] = [];
  for (const body of bodies) {
    const started = performance.now();
    const response = await fetch(`${url}/api/v1/search/query`, { method: "POST", headers, body });
    const answer = await response.text();
    // the answer's own words and the service's log: a refused search is a fault to fix, never a figure
    if (!response.ok)
      throw new Error(
        `${engine}/${store}: a search of the cold pass answered ${response.status} (Retry-After ` +
          `${response.headers.get("retry-after") ?? "none"}): ${answer.slice(0, 400)}`,
      );
    cold.push(performance.now() - started);
  }
  cold.sort((a, b) => a - b);
  let next = 0;
  const request = {
    method: "POST" as const,
    headers,
    setupRequest: (request: autocannon.Request) => ({ ...request, body: bodies[next++ % bodies.length] }),
  };
  if (warmup > 0) {
    const warm = await autocannon({
      url: `${url}/api/v1/search/query`,
      connections: WARMUP_CONCURRENCY,
      duration: warmup,
      requests: [request],
    });
    if (warm.non2xx > 0 || warm.errors > 0)
      throw new Error(`${engine}/${store} warm-up: ${warm.non2xx} non-2xx answers, ${warm.errors} errors`);
    console.error(
      `[speed] ${engine}/${store} warmed: ${warm.requests.total} requests in ${warmup} s at c=${WARMUP_CONCURRENCY}`,
    );
    await settle?.();
  }
  const load: LoadFigures[] = [];
  // the service's threads told apart once, after the warm-up started them all (the pool, the model's, the workers')
  // (the node processes: the supervisor's shell has no threads worth telling apart)
  const servicePids = CPU_SPLIT ? processTree(pid).filter((p) => readProc(p, "comm").trim() === "node") : [];
  const kinds = CPU_SPLIT ? threadKinds(servicePids) : undefined;
  const idle = kinds ? await idleSplit(servicePids, kinds) : undefined;
  for (const connections of CONCURRENCY) {
    const from = profileClockMicros();
    const threadsBefore = kinds ? threadCpuMs(servicePids) : undefined;
    const cpuBefore = {
      service: cpuMsOfTree(pid),
      store: storePid === undefined ? 0 : cpuMsOfTree(storePid),
      node: nodePid === undefined ? 0 : cpuMsOfTree(nodePid),
    };
    const result = await autocannon({
      url: `${url}/api/v1/search/query`,
      connections,
      duration,
      requests: [request],
    });
    load.push({
      connections,
      requests: result.requests.total,
      requestsPerSecond: round1(result.requests.average),
      p50: result.latency.p50,
      p95: interpolatedP95(result.latency),
      p99: result.latency.p99,
      non2xx: result.non2xx,
      errors: result.errors,
      cpuMsPerRequest: {
        service: perRequest(cpuMsOfTree(pid) - cpuBefore.service, result.requests.total),
        ...(storePid === undefined
          ? {}
          : { store: perRequest(cpuMsOfTree(storePid) - cpuBefore.store, result.requests.total) }),
        ...(nodePid === undefined
          ? {}
          : { node: perRequest(cpuMsOfTree(nodePid) - cpuBefore.node, result.requests.total) }),
      },
      ...(kinds && threadsBefore
        ? { serviceThreads: splitPerRequest(threadsBefore, threadCpuMs(servicePids), kinds, result.requests.total) }
        : {}),
    });
    if (connections === PROFILED_CONCURRENCY) onProfiledWindow?.(from, profileClockMicros(), result.requests.total);
    console.error(`[speed] ${engine}/${store} c=${connections}: ${JSON.stringify(load[load.length - 1])}`);
  }
  return {
    engine,
    store,
    coldP50: round1(percentile(cold, 50)),
    coldP95: round1(percentile(cold, 95)),
    load,
    serverRssMB: rssOfTree(pid),
    ...(idle ? { idleCpuMsPerSecond: idle } : {}),
  };
}

/** --cpu-split: seconds the service is left without requests to read its background CPU */
const IDLE_SECONDS = 5;

/** The service's CPU ms per second by thread kind over IDLE_SECONDS without a request. */
async function idleSplit(pids: number[], kinds: Map<string, ThreadKind>): Promise<Partial<Record<ThreadKind, number>>> {
  const before = threadCpuMs(pids);
  await new Promise((resolve) => setTimeout(resolve, IDLE_SECONDS * 1000));
  return splitPerRequest(before, threadCpuMs(pids), kinds, IDLE_SECONDS);
}

/**
 * The warm-up's thousands of charges leave PostgreSQL with work of its own (autovacuum and analyze of the tables they
 * grew, a checkpoint), which ran during the next point and made c=1 look like a loaded store (27 Nov: 10 ms of store
 * CPU per request at c=1, 2 at c=16): it is done here, before the timed points, as a database at rest would have done
 * it.
 */
async function settlePostgres(url: string): Promise<void> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    const started = performance.now();
    await client.query("VACUUM (ANALYZE)");
    await client.query("CHECKPOINT");
    console.error(
      `[speed] store settled (VACUUM ANALYZE, CHECKPOINT) in ${Math.round(performance.now() - started)} ms`,
    );
  } finally {
    await client.end();
  }
}

/** autocannon reports p90 and p97.5, not p95: interpolated between them. */
function interpolatedP95(latency: autocannon.Histogram): number {
  return round1(latency.p90 + ((95 - 90) / (97.5 - 90)) * (latency.p97_5 - latency.p90));
}

/** A process and its descendants (the service node process under its supervisor). */
function processTree(pid: number): number[] {
  const out = execFileSync("ps", ["-e", "-o", "pid=,ppid="]).toString();
  const rows = out
    .trim()
    .split("\n")
    .map((line) => line.trim().split(/\s+/).map(Number) as [number, number]);
  const wanted = new Set([pid]);
  let grew = true;
  while (grew) {
    grew = false;
    for (const [child, parent] of rows)
      if (wanted.has(parent) && !wanted.has(child)) {
        wanted.add(child);
        grew = true;
      }
  }
  return [...wanted];
}

/** Resident memory of a process and its descendants, MB. */
function rssOfTree(pid: number): number {
  const kb = processTree(pid).reduce(
    (sum, p) => sum + Number(/^VmRSS:\s+(\d+)/m.exec(readProc(p, "status"))?.[1] ?? 0),
    0,
  );
  return round1(kb / 1024);
}

/** Clock ticks per second of /proc's CPU times. */
const CLOCK_TICKS = Number(execFileSync("getconf", ["CLK_TCK"]).toString().trim()) || 100;

function readProc(pid: number, file: string): string {
  try {
    return readFileSync(`/proc/${pid}/${file}`, "utf8");
  } catch {
    return ""; // the process ended between the listing and the read
  }
}

/**
 * User + system CPU milliseconds a process and its descendants have used (every thread), from /proc/<pid>/stat: each
 * live process's own time and that of its children that ended (PostgreSQL's backends end with their connections).
 */
function cpuMsOfTree(pid: number): number {
  let ticks = 0;
  for (const p of processTree(pid)) {
    const stat = readProc(p, "stat");
    // the fields after the command name (which may hold spaces) in parentheses: state is the first, then utime,
    // stime, cutime and cstime are the 12th to the 15th
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    if (fields.length > 14) ticks += Number(fields[11]) + Number(fields[12]) + Number(fields[13]) + Number(fields[14]);
  }
  return (ticks * 1000) / CLOCK_TICKS;
}

const perRequest = (ms: number, requests: number): number =>
  requests > 0 ? Math.round((ms / requests) * 100) / 100 : Number.NaN;

/** Latency figures of finished requests (milliseconds) over a run of `seconds`. */
function loadFigures(
  connections: number,
  latencies: number[],
  seconds: number,
  errors: number,
  cpuMs: { client: number; node: number },
): LoadFigures {
  const sorted = [...latencies].sort((a, b) => a - b);
  return {
    connections,
    requests: sorted.length,
    requestsPerSecond: round1(sorted.length / seconds),
    p50: round1(percentile(sorted, 50)),
    p95: round1(percentile(sorted, 95)),
    p99: round1(percentile(sorted, 99)),
    non2xx: 0,
    errors,
    cpuMsPerRequest: { client: perRequest(cpuMs.client, sorted.length), node: perRequest(cpuMs.node, sorted.length) },
  };
}

/**
 * The floor: the collection's retrieval sent straight to OpenSearch by the adapter, `connections` searches in flight,
 * after one untimed pass over the queries and `warmup` seconds at WARMUP_CONCURRENCY (the services are warmed alike).
 */
async function measureFloor(
  url: string,
  nodePid: number,
  mode: RetrievalMode,
  queries: Array<{ text: string; vector: Float32Array }>,
  duration: number,
  warmup: number,
): Promise<FloorFigures> {
  const engine = createOpenSearchEngine({ url });
  const search = (query: { text: string; vector: Float32Array }) =>
    engine.search({ index: SCIFACT_COLLECTION, mode, text: query.text, vector: query.vector, limit: 10 });
  let next = 0;
  /** `connections` loops searching for `seconds`: each search's latency, and the count of failed ones */
  async function drive(connections: number, seconds: number): Promise<{ latencies: number[]; errors: number }> {
    const latencies: number[] = [];
    let errors = 0;
    const end = performance.now() + seconds * 1000;
    await Promise.all(
      Array.from({ length: connections }, async () => {
        while (performance.now() < end) {
          const query = queries[next++ % queries.length];
          const begun = performance.now();
          try {
            await search(query);
            latencies.push(performance.now() - begun);
          } catch {
            errors++;
          }
        }
      }),
    );
    return { latencies, errors };
  }
  try {
    for (const query of queries) await search(query);
    if (warmup > 0) {
      const warm = await drive(WARMUP_CONCURRENCY, warmup);
      if (warm.errors > 0) throw new Error(`floor warm-up: ${warm.errors} searches failed`);
      console.error(
        `[speed] floor warmed: ${warm.latencies.length} searches in ${warmup} s at c=${WARMUP_CONCURRENCY}`,
      );
    }
    const load: LoadFigures[] = [];
    for (const connections of CONCURRENCY) {
      const started = performance.now();
      const clientBefore = process.cpuUsage();
      const nodeBefore = cpuMsOfTree(nodePid);
      const { latencies, errors } = await drive(connections, duration);
      const client = process.cpuUsage(clientBefore);
      const cpuMs = { client: (client.user + client.system) / 1000, node: cpuMsOfTree(nodePid) - nodeBefore };
      load.push(loadFigures(connections, latencies, (performance.now() - started) / 1000, errors, cpuMs));
      console.error(
        `[speed] floor (${mode} straight to OpenSearch) c=${connections}: ${JSON.stringify(load[load.length - 1])}`,
      );
    }
    return { mode, load };
  } finally {
    await engine.close();
  }
}

/** CPU per request by thread and phase, from the profiles a service wrote on exit. */
function profileFigures(dir: string, window: { from: number; to: number; requests: number }): ProfileFigures {
  const threads = summarizeProfiles(dir, window.from, window.to).map((summary, i) => {
    const byPhase: Partial<Record<Phase, number>> = {};
    for (const phase of PHASES) {
      const ms = summary.byPhase.get(phase);
      if (ms) byPhase[phase] = Math.round((ms / window.requests) * 1000) / 1000;
    }
    // the busiest profile is the main thread's; the others are worker threads (PGlite, embedding model)
    return {
      thread: i === 0 ? "main" : `worker ${summary.file.split("/").pop()}`,
      msPerRequest: Math.round((summary.busyMs / window.requests) * 1000) / 1000,
      byPhase,
    };
  });
  const perRequest = (ms: number) => Math.round((ms / window.requests) * 1000) / 1000;
  // the main thread's CPU by the finer categories of issue 54, and the functions that cost most
  const main = summarizeProfiles(dir, window.from, window.to)[0];
  const detail = main && summarizeCategories(main.file, window.from, window.to);
  const byCategory: Partial<Record<Category, number>> = {};
  for (const category of CATEGORIES) {
    const ms = detail?.byCategory.get(category);
    if (ms) byCategory[category] = perRequest(ms);
  }
  const hottest = [...(detail?.byFunction ?? [])]
    .sort((a, b) => b[1] - a[1])
    .slice(0, 30)
    .map(([where, ms]) => ({ where, ms: perRequest(ms) }));
  return { connections: PROFILED_CONCURRENCY, requests: window.requests, threads, mainByCategory: byCategory, hottest };
}

async function httpBenchmark(
  duration: number,
  warmup: number,
  queryCount: number,
  stores: Array<EngineFigures["store"]>,
  engines: Array<EngineFigures["engine"]>,
  profile: boolean,
  against?: AgainstTree,
  rounds = 2,
): Promise<{ services: EngineFigures[]; against: EngineFigures[]; floor?: FloorFigures; nodeRuntime?: string }> {
  const index = await openScifactIndex();
  const ids = await scifactChunkIds(index);
  const { queries } = await loadScifactJudgements(index.config.dataRoot);
  const texts = queries.slice(0, queryCount).map((q) => q.text);
  let node: OpenSearchNode | undefined;
  let postgres: PostgresServer | undefined;
  let floor: FloorFigures | undefined;
  let nodeRuntime: string | undefined;
  const figures: EngineFigures[] = [];
  const againstFigures: EngineFigures[] = [];
  /** the collection, and so the OpenSearch index, the other tree's OpenSearch service searches (treeIndexes.ts) */
  let againstCollection = SCIFACT_COLLECTION;
  let measureFloorNow: (() => Promise<FloorFigures>) | undefined;
  /** the floor again beside the OpenSearch services, round by round: the first one ran on a node just started */
  const floorsBeside: FloorFigures[] = [];
  try {
    if (engines.includes("opensearch")) {
      const component = readComponent("opensearch", index.config.cacheDir);
      nodeRuntime = component.runtime ?? component.java;
      node = await startOpenSearchNode({ dataDir: join(index.config.dataDir, "opensearch"), component });
      // the service's OpenSearch engine names indexes litsearch-<collection>; one another adapter wrote is made again
      const opensearch = createOpenSearchEngine({ url: node.url });
      const version = await mappingVersionOf(REPO_ROOT);
      if ((await indexMappingVersion(node.url)) !== version && (await opensearch.hasIndex(SCIFACT_COLLECTION)))
        // through the adapter, which remembers the indexes it has seen (a DELETE beside it left it asking for stats)
        await opensearch.deleteIndex(SCIFACT_COLLECTION);
      console.error(
        "[speed] OpenSearch index " +
          `${await copyIndex(index.embedded, opensearch, SCIFACT_COLLECTION, ids, index.embedder.dims)}`,
      );
      await opensearch.close();
      // each tree searches an index its own adapter wrote (treeIndexes.ts)
      if (against) {
        const thatVersion = await mappingVersionOf(against.root);
        againstCollection = treeCollection("against", version, thatVersion);
        console.error(
          `[speed] mapping versions: this tree ${version}, ${against.commit} ${thatVersion ?? "unknown"}; ` +
            `${against.commit} searches litsearch-${againstCollection}`,
        );
        if (againstCollection !== SCIFACT_COLLECTION)
          await writeTreeIndex(
            node.url,
            against.root,
            againstCollection,
            await index.embedded.getChunks(SCIFACT_COLLECTION, ids),
            index.embedder.dims,
          );
      }
      const embedded: Array<{ text: string; vector: Float32Array }> = [];
      for (const text of texts) embedded.push({ text, vector: await index.embedder.embedQuery(text) });
      const [nodeUrl, nodePid, mode] = [node.url, node.pid, index.collection.retrieval];
      measureFloorNow = () => measureFloor(nodeUrl, nodePid, mode, embedded, duration, warmup);
      floor = await measureFloorNow();
    }
    await index.close();
    if (stores.includes("postgres"))
      postgres = await startPostgresServer({
        dataDir: join(BENCH_DIR, "postgres"),
        component: readComponent("postgres", index.config.cacheDir),
      });

    const trees: Tree[] = [{ tag: "this", root: REPO_ROOT }];
    const againstData = against && !process.env.DATA_ROOT ? await againstDataRoot(against.root, REPO_ROOT) : undefined;
    if (against) trees.push({ tag: "against", root: against.root });
    // the other tree's store per engine: a tree whose catalogue lives in its event store (b98b6e0 does) seeds it from
    // the collections file on its first start only, so a store its embedded service seeded with "scifact" kept its
    // OpenSearch service from seeing the collection named for its own index (404 COLLECTION_NOT_FOUND, 30 Nov)
    const againstDatabases = new Map<EngineFigures["engine"], string>();
    if (postgres && against)
      for (const engine of engines)
        againstDatabases.set(engine, await createDatabase(postgres.url, `litsearch_against_${engine}`));
    for (const store of stores) {
      for (const engine of engines) {
        const runs = new Map<Tree["tag"], EngineFigures[]>(trees.map((t) => [t.tag, []]));
        for (let round = 0; round < (against ? rounds : 1); round++) {
          // this, that; then that, this: each tree sees the machine's drift from both sides
          const order = round % 2 === 0 ? trees : [...trees].reverse();
          // the floor, this, that; then that, this, the floor: the floor drifts with the machine as the services do
          if (engine === "opensearch" && measureFloorNow && round % 2 === 0) floorsBeside.push(await measureFloorNow());
          for (const tree of order) {
            const databaseUrl = tree.tag === "this" ? postgres?.url : againstDatabases.get(engine);
            runs.get(tree.tag)!.push(await measureTree(tree, engine, store, databaseUrl));
          }
          if (engine === "opensearch" && measureFloorNow && round % 2 === 1) floorsBeside.push(await measureFloorNow());
        }
        figures.push(medianFigures(runs.get("this")!));
        if (against) againstFigures.push(medianFigures(runs.get("against")!));
      }
    }

    /** One service of one tree started, measured and stopped. */
    async function measureTree(
      tree: Tree,
      engine: EngineFigures["engine"],
      store: EngineFigures["store"],
      databaseUrl: string | undefined,
    ): Promise<EngineFigures> {
      // this tree's embedded service reads the cached index in data/bench/index; the others keep their PGlite
      // stores apart (the other commit's from scratch: its schema may differ)
      const dataDir =
        tree.tag === "against"
          ? join(BENCH_DIR, `against-${engine}-${store}`)
          : engine === "embedded" && store === "pglite"
            ? BENCH_DIR
            : join(BENCH_DIR, `service-${engine}-${store}`);
      if (tree.tag === "against") rmSync(dataDir, { recursive: true, force: true });
      if (engine === "embedded" && dataDir !== BENCH_DIR) linkIndex(dataDir);
      const env: Record<string, string> = {
        ...(tree.tag === "against" && againstData ? { DATA_ROOT: againstData } : {}),
        ...(engine === "opensearch" ? { OPENSEARCH_URL: node!.url } : {}),
        ...(store === "postgres" ? { DATABASE_URL: databaseUrl! } : {}),
      };
      const profileDir = profile ? join(dataDir, "cpu-profile") : undefined;
      if (profileDir) rmSync(profileDir, { recursive: true, force: true });
      const name = `litsearch-${tree.tag === "this" ? "" : "against-"}${engine}-${store}`;
      const collection = engine === "opensearch" && tree.tag === "against" ? againstCollection : SCIFACT_COLLECTION;
      const service = await startService(name, dataDir, env, profileDir, tree.root, collection);
      let window: { from: number; to: number; requests: number } | undefined;
      let measured: EngineFigures;
      try {
        measured = await measureEngine(
          engine,
          store,
          service.url,
          service.process.pid,
          texts,
          duration,
          warmup,
          engine === "opensearch" ? node!.pid : undefined,
          store === "postgres" ? postgres!.pid : undefined,
          store === "postgres" ? () => settlePostgres(databaseUrl!) : undefined,
          (from, to, requests) => (window = { from, to, requests }),
          collection,
        );
      } catch (err) {
        throw new Error(`${(err as Error).message} (the service's log: ${join(dataDir, "service.log")})`, {
          cause: err,
        });
      } finally {
        await service.process.stop();
      }
      // the profiles are written when the service exits
      if (profileDir && window) {
        measured.profile = profileFigures(profileDir, window);
        // each run's own, as it ends: a run stopped before its last round still leaves the profiles it took
        console.error(`[speed] ${tree.tag} ${engine}/${store} profile: ${JSON.stringify(measured.profile)}`);
      }
      return measured;
    }
  } finally {
    await postgres?.stop();
    await node?.stop();
  }
  if (floorsBeside.length > 0) {
    console.error(`[speed] the floor is the median of the ${floorsBeside.length} measured beside the services`);
    floor = medianFloor(floorsBeside);
  }
  return { services: figures, against: againstFigures, floor, nodeRuntime };
}

/** The floor's figures point by point, each the median of its runs. */
function medianFloor(runs: FloorFigures[]): FloorFigures {
  return { mode: runs[0]!.mode, load: medianLoad(runs) };
}

/** Each load point's figures, the median of the runs' (counts of failures summed). */
function medianLoad(runs: Array<{ load: LoadFigures[] }>): LoadFigures[] {
  return runs[0]!.load.map((l, i) => ({
    ...l,
    requests: median(runs.map((r) => r.load[i]!.requests)),
    requestsPerSecond: median(runs.map((r) => r.load[i]!.requestsPerSecond)),
    p50: median(runs.map((r) => r.load[i]!.p50)),
    p95: median(runs.map((r) => r.load[i]!.p95)),
    p99: median(runs.map((r) => r.load[i]!.p99)),
    non2xx: runs.reduce((n, r) => n + r.load[i]!.non2xx, 0),
    errors: runs.reduce((n, r) => n + r.load[i]!.errors, 0),
    cpuMsPerRequest: Object.fromEntries(
      Object.keys(l.cpuMsPerRequest ?? {}).map((who) => [
        who,
        median(runs.map((r) => r.load[i]!.cpuMsPerRequest?.[who as keyof LoadFigures["cpuMsPerRequest"]] ?? NaN)),
      ]),
    ),
    ...(l.serviceThreads ? { serviceThreads: medianSplit(runs.map((r) => r.load[i]!.serviceThreads ?? {})) } : {}),
  }));
}

/** Each thread kind's CPU per request, the median of the runs' (a kind a run did not see counts 0 there). */
function medianSplit(splits: Array<Partial<Record<ThreadKind, number>>>): Partial<Record<ThreadKind, number>> {
  const kinds = new Set(splits.flatMap((s) => Object.keys(s) as ThreadKind[]));
  return Object.fromEntries([...kinds].map((kind) => [kind, median(splits.map((s) => s[kind] ?? 0))]));
}

/** A tree whose service is measured: this checkout, or the commit --against names. */
interface Tree {
  tag: "this" | "against";
  root: string;
}

/** The commit --against names, checked out in a temporary worktree. */
interface AgainstTree {
  commit: string;
  root: string;
  remove: () => void;
}

/**
 * The commit checked out (detached) in a git worktree under the bench's folder, with this checkout's node_modules
 * linked in (a dependency the commit lacks is never loaded by it; one it has that this checkout lacks is installed
 * beside it: againstDeps.ts).
 */
function againstTree(commit: string): AgainstTree {
  const root = join(BENCH_DIR, "against-tree");
  const git = (...args: string[]) => execFileSync("git", ["-C", REPO_ROOT, ...args], { encoding: "utf8" }).trim();
  const sha = git("rev-parse", "--verify", `${commit}^{commit}`);
  if (existsSync(root)) git("worktree", "remove", "--force", root);
  git("worktree", "add", "--detach", root, sha);
  symlinkSync(join(REPO_ROOT, "node_modules"), join(root, "node_modules"));
  installMissingDependencies(root, commit, REPO_ROOT, BENCH_DIR);
  return { commit: sha, root, remove: () => git("worktree", "remove", "--force", root) };
}

const median = (values: number[]): number => {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[mid]! : round1((sorted[mid - 1]! + sorted[mid]!) / 2);
};

/** Each figure the median of the rounds' (a single round: itself). */
function medianFigures(runs: EngineFigures[]): EngineFigures {
  const [first] = runs;
  if (runs.length === 1) return first!;
  return {
    ...first!,
    coldP50: median(runs.map((r) => r.coldP50)),
    coldP95: median(runs.map((r) => r.coldP95)),
    serverRssMB: median(runs.map((r) => r.serverRssMB)),
    load: medianLoad(runs),
    ...(first!.idleCpuMsPerSecond
      ? { idleCpuMsPerSecond: medianSplit(runs.map((r) => r.idleCpuMsPerSecond ?? {})) }
      : {}),
  };
}

/** Another data directory reads the cached embedded index through a symbolic link (nothing is written to it). */
function linkIndex(dataDir: string): void {
  mkdirSync(dataDir, { recursive: true });
  rmSync(join(dataDir, "index"), { recursive: true, force: true });
  symlinkSync(join(BENCH_DIR, "index"), join(dataDir, "index"));
}

async function main(): Promise<void> {
  const loadBefore = loadavg()[0];
  const stores = args.stores.split(",").map((store) => store.trim()) as Array<EngineFigures["store"]>;
  const engines = args.engines.split(",").map((engine) => engine.trim()) as Array<EngineFigures["engine"]>;
  const tree = args.against ? againstTree(args.against) : undefined;
  let measured: Awaited<ReturnType<typeof httpBenchmark>>;
  try {
    measured = await httpBenchmark(
      Number(args.duration),
      Number(args.warmup),
      Number(args.queries),
      stores,
      engines,
      args.profile,
      tree,
      Number(args.rounds),
    );
  } finally {
    tree?.remove();
  }
  const { services, floor, nodeRuntime } = measured;
  const against = tree ? { commit: tree.commit, rounds: Number(args.rounds), results: measured.against } : undefined;
  const overhead = floor
    ? services.filter((e) => e.engine === "opensearch").map((e) => ({ store: e.store, ...overheadOver(floor, e) }))
    : [];
  console.log(
    JSON.stringify(
      {
        machine: {
          cores: 2,
          loadAverage: { before: round1(loadBefore), after: round1(loadavg()[0]) },
          ...(nodeRuntime ? { openSearchRuntime: nodeRuntime } : {}),
        },
        http: {
          endpoint: "POST /api/v1/search/query",
          collection: "scifact (hybrid, 10,144 chunks)",
          limit: 10,
          billing: "live key, charged per request",
          durationSeconds: Number(args.duration),
          warmupSeconds: Number(args.warmup),
          queries: Number(args.queries),
          results: services,
        },
        ...(against ? { against, ratios: ratiosAgainst(services, against.results) } : {}),
        ...(floor
          ? {
              floor: { what: "the same retrieval straight to OpenSearch through the adapter (no service)", ...floor },
              overhead,
            }
          : {}),
      },
      null,
      2,
    ),
  );
  console.log(
    `load average ${round1(loadBefore)} before, ${round1(loadavg()[0])} after (2 cores)` +
      `${nodeRuntime ? `; OpenSearch node on ${nodeRuntime}` : ""}`,
  );
  for (const e of services) {
    const label = `${e.engine}/${e.store}`.padEnd(20);
    console.log(
      `${label} cold (query embedded) p50 ${e.coldP50} ms p95 ${e.coldP95} ms; server RSS ${e.serverRssMB} MB`,
    );
    for (const l of e.load) console.log(`${label} ${loadLine(l)}`);
    if (e.idleCpuMsPerSecond) console.log(`${label} idle: CPU ms/s ${splitLine(e.idleCpuMsPerSecond)}`);
  }
  if (floor) {
    const label = `floor (${floor.mode})`.padEnd(20);
    for (const l of floor.load) console.log(`${label} ${loadLine(l)}`);
    for (const o of overhead) {
      console.log(
        `service overhead, opensearch/${o.store}: c=1 p50 ${o.p50Ratio}x the floor's; throughput ` +
          `${o.throughputRatios.map((r) => `c=${r.connections} ${r.ratio}x`).join(", ")} below the floor's`,
      );
    }
  }
  if (against) {
    console.log(`against ${against.commit.slice(0, 10)} (median of ${against.rounds} interleaved rounds each):`);
    for (const e of against.results) {
      const label = `${e.engine}/${e.store} then`.padEnd(20);
      console.log(`${label} cold (query embedded) p50 ${e.coldP50} ms p95 ${e.coldP95} ms`);
      for (const l of e.load) console.log(`${label} ${loadLine(l)}`);
      if (e.idleCpuMsPerSecond) console.log(`${label} idle: CPU ms/s ${splitLine(e.idleCpuMsPerSecond)}`);
    }
    for (const r of ratiosAgainst(services, against.results))
      console.log(
        `${r.service.padEnd(20)} c=${String(r.connections).padEnd(3)} this tree / ${against.commit.slice(0, 10)}: ` +
          `throughput ${r.throughput}x, p50 ${r.p50}x, p95 ${r.p95}x`,
      );
  }
  for (const e of services) {
    if (!e.profile) continue;
    console.log(
      `CPU per request, ${e.engine}/${e.store} at c=${e.profile.connections} (${e.profile.requests} requests, ` +
        "profiled):",
    );
    for (const thread of e.profile.threads) {
      const phases = Object.entries(thread.byPhase)
        .map(([phase, ms]) => `${phase} ${ms}`)
        .join(", ");
      console.log(`  ${thread.thread}: ${thread.msPerRequest} ms (${phases})`);
    }
  }
}

/**
 * This tree's figures over the other commit's: throughput (above 1: faster here) and latency (below 1: faster here).
 */
function ratiosAgainst(
  here: EngineFigures[],
  there: EngineFigures[],
): Array<{ service: string; connections: number; throughput: number; p50: number; p95: number }> {
  const ratio = (a: number, b: number): number => Math.round((a / b) * 100) / 100;
  return here.flatMap((e, k) =>
    e.load.map((l, i) => ({
      service: `${e.engine}/${e.store}`,
      connections: l.connections,
      throughput: ratio(l.requestsPerSecond, there[k]!.load[i]!.requestsPerSecond),
      p50: ratio(l.p50, there[k]!.load[i]!.p50),
      p95: ratio(l.p95, there[k]!.load[i]!.p95),
    })),
  );
}

function loadLine(l: LoadFigures): string {
  const cpu = l.cpuMsPerRequest
    ? Object.entries(l.cpuMsPerRequest)
        .map(([who, ms]) => `${who} ${ms}`)
        .join(", ")
    : "";
  return (
    `c=${String(l.connections).padEnd(3)} ${String(l.requestsPerSecond).padStart(7)} req/s  p50 ${l.p50} ms  ` +
    `p95 ${l.p95} ms  p99 ${l.p99} ms  (${l.requests} requests, ${l.non2xx} non-2xx, ${l.errors} errors)` +
    `${cpu ? `; CPU ms/request: ${cpu}` : ""}` +
    `${l.serviceThreads ? `; service threads: ${splitLine(l.serviceThreads)}` : ""}`
  );
}

/**
 * The service's cost over the floor: its c=1 median latency as a multiple of the floor's, and the floor's throughput as
 * a multiple of its own.
 */
function overheadOver(
  floor: FloorFigures,
  service: EngineFigures,
): { p50Ratio: number; throughputRatios: Array<{ connections: number; ratio: number }> } {
  const ratio = (a: number, b: number): number => Math.round((a / b) * 100) / 100;
  const at = (connections: number) => floor.load.find((l) => l.connections === connections);
  const single = service.load.find((l) => l.connections === 1);
  return {
    p50Ratio: single && at(1) ? ratio(single.p50, at(1)!.p50) : Number.NaN,
    throughputRatios: service.load
      .filter((l) => at(l.connections))
      .map((l) => ({
        connections: l.connections,
        ratio: ratio(at(l.connections)!.requestsPerSecond, l.requestsPerSecond),
      })),
  };
}

await main();
