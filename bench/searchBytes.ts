// What one search of the speed bench's kind (bench/speed.ts: POST /api/v1/search/query, SciFact, hybrid, limit 10,
// live key, on OpenSearch and PostgreSQL) moves, per tree: the bytes of each OpenSearch request and response (through
// a counting proxy between the service and the node), the bytes its main thread allocates (V8's sampling heap
// profiler, freed objects included) and posts to worker threads (bench/searchBytesProbe.mjs). Counts, not timings:
// they do not depend on the machine's load. Each tree's service searches every query once unmeasured (its query
// vectors cached, as after the speed bench's warm-up), then once more measured, one at a time.
//
//   npm run bench:search-bytes -- [--trees this,/path/to/another/tree] [--queries 100]
//
// SEARCH_BYTES_LIVE=1 instead samples the service's heap from its start, freed objects left out, and writes where what
// stays reachable after the searches was allocated (service-<tree>/probe.json.live.json; the figures printed then hold
// no allocation).
//
// Another tree is a checkout of another commit with node_modules linked (e.g. `git archive b98b6e0 | tar -x -C dir`);
// its index is written by its own adapter when its mapping version differs (treeIndexes.ts).
import { createServer, request as httpRequest, type Server } from "node:http";
import { connect, createServer as createTcpServer, type AddressInfo } from "node:net";
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { loadavg } from "node:os";
import { basename, join, resolve } from "node:path";
import { parseArgs } from "node:util";
import { REPO_ROOT } from "../src/app/config.js";
import { readComponent } from "../src/infra/components.js";
import { startOpenSearchNode, type OpenSearchNode } from "../src/infra/opensearchNode.js";
import { startPostgresServer, type PostgresServer } from "../src/infra/postgresServer.js";
import { waitForReady } from "../src/infra/readiness.js";
import { startSupervisedProcess } from "../src/infra/supervisedProcess.js";
import { createOpenSearchEngine } from "../src/retrieval/engines/opensearch/openSearchEngine.js";
import { againstDataRoot, installMissingDependencies } from "./againstDeps.js";
import {
  BENCH_DIR,
  copyIndex,
  loadScifactJudgements,
  openScifactIndex,
  SCIFACT_COLLECTION,
  scifactChunkIds,
} from "./scifactBench.js";
import { indexMappingVersion, mappingVersionOf, treeCollection, writeTreeIndex } from "./treeIndexes.js";
import { createDatabase } from "./scaledShape.js";

const { values: args } = parseArgs({
  options: {
    trees: { type: "string", default: "this" },
    queries: { type: "string", default: "100" },
  },
});

const ADMIN_TOKEN = "bench-admin-token-0123456789";
const PROBE = join(REPO_ROOT, "bench", "searchBytesProbe.mjs");
const DIR = join(BENCH_DIR, "search-bytes");

/** One kind of OpenSearch request (method and path, the index name and query string left out). */
interface RequestKind {
  kind: string;
  requests: number;
  requestBytes: number;
  responseBytes: number;
  /** the documents an _mget answers, the hits a _search does */
  items: number;
}

/** How many documents or hits a response body carries. */
function itemsOf(body: string): number {
  try {
    const parsed = JSON.parse(body) as { docs?: unknown[]; hits?: { hits?: unknown[] } };
    return parsed.docs?.length ?? parsed.hits?.hits?.length ?? 0;
  } catch {
    return 0;
  }
}

/** A proxy in front of the node that forwards every request as it is and counts its bodies' bytes by kind. */
async function countingProxy(
  target: string,
  samplesDir: string,
): Promise<{ url: string; kinds: Map<string, RequestKind>; server: Server }> {
  const kinds = new Map<string, RequestKind>();
  const upstream = new URL(target);
  const server = createServer((req, res) => {
    const path = (req.url ?? "/").split("?")[0]!.replace(/^\/litsearch-[^/]+/, "/<index>");
    const kind = `${req.method} ${path}`;
    const counts = kinds.get(kind) ?? { kind, requests: 0, requestBytes: 0, responseBytes: 0, items: 0 };
    kinds.set(kind, counts);
    counts.requests += 1;
    const sent: Buffer[] = [];
    const received: Buffer[] = [];
    const forward = httpRequest(
      { host: upstream.hostname, port: upstream.port, method: req.method, path: req.url, headers: req.headers },
      (answer) => {
        res.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.on("data", (chunk: Buffer) => {
          counts.responseBytes += chunk.length;
          received.push(chunk);
        });
        answer.on("end", () => {
          const body = Buffer.concat(received).toString("utf8");
          counts.items += itemsOf(body);
          // the last of each kind kept, to read what a request asks and an answer carries
          const file = join(samplesDir, kind.replace(/[^A-Za-z0-9_]+/g, "_"));
          writeFileSync(`${file}.request.json`, Buffer.concat(sent));
          writeFileSync(`${file}.response.json`, body);
        });
        answer.pipe(res);
      },
    );
    forward.on("error", () => res.destroy());
    req.on("data", (chunk: Buffer) => {
      counts.requestBytes += chunk.length;
      sent.push(chunk);
    });
    req.pipe(forward);
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, kinds, server };
}

/** PostgreSQL's traffic: bytes each way and the client's round trips (simple queries and extended-protocol syncs). */
interface PostgresCounts {
  roundTrips: number;
  sentBytes: number;
  receivedBytes: number;
}

/**
 * A TCP proxy in front of PostgreSQL that counts the bytes each way and reads the client's message types: after the
 * startup message (and an SSL request before it, if any: no type byte), each message is a type byte and a length.
 */
async function countingPostgresProxy(target: string): Promise<{ url: string; counts: PostgresCounts; close(): void }> {
  const upstream = new URL(target);
  const counts: PostgresCounts = { roundTrips: 0, sentBytes: 0, receivedBytes: 0 };
  const server = createTcpServer((client) => {
    const server = connect(Number(upstream.port), upstream.hostname);
    let pending = Buffer.alloc(0);
    let started = false;
    client.on("data", (chunk: Buffer) => {
      counts.sentBytes += chunk.length;
      pending = Buffer.concat([pending, chunk]);
      for (;;) {
        const typed = started ? 1 : 0;
        if (pending.length < typed + 4) break;
        const length = pending.readInt32BE(typed);
        if (pending.length < typed + length) break;
        if (!started) started = pending.readInt32BE(4) !== 80877103;
        else if (pending[0] === 0x51 || pending[0] === 0x53) counts.roundTrips += 1;
        pending = pending.subarray(typed + length);
      }
    });
    server.on("data", (chunk: Buffer) => (counts.receivedBytes += chunk.length));
    client.pipe(server).pipe(client);
    client.on("error", () => server.destroy());
    server.on("error", () => client.destroy());
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  const url = new URL(target);
  url.host = `127.0.0.1:${(server.address() as AddressInfo).port}`;
  return { url: url.toString(), counts, close: () => server.close() };
}

async function adminPost(url: string, path: string, body: unknown): Promise<any> {
  const res = await fetch(`${url}${path}`, {
    method: "POST",
    headers: { Authorization: `Bearer ${ADMIN_TOKEN}`, "Content-Type": "application/json" },
    body: JSON.stringify(body),
  });
  if (!res.ok) throw new Error(`${path}: ${res.status} ${await res.text()}`);
  return res.json();
}

/** A live key of a fresh organization whose limits and credits the run never reaches. */
async function liveKey(url: string): Promise<string> {
  const org = await adminPost(url, "/admin/v1/organizations", {
    name: "Search bytes bench",
    billingMode: "live",
    limits: { perMinute: 1_000_000, daily: 100_000_000, monthly: 1_000_000_000 },
  });
  await adminPost(url, `/admin/v1/organizations/${org.id}/credits`, { amount: "1000000.00" });
  return String((await adminPost(url, `/admin/v1/organizations/${org.id}/keys`, { mode: "live" })).key);
}

/** Sends the probe's signal and waits for its step's file. */
async function probeStep(out: string, step: "started" | "stopped"): Promise<void> {
  rmSync(`${out}.${step}`, { force: true });
  process.kill(Number(readFileSync(`${out}.pid`, "utf8")), "SIGUSR2");
  for (let i = 0; i < 600 && !existsSync(`${out}.${step}`); i++) await new Promise((r) => setTimeout(r, 50));
  if (!existsSync(`${out}.${step}`)) throw new Error(`the probe did not answer (${step})`);
}

interface TreeFigures {
  tree: string;
  searches: number;
  perSearch: {
    openSearchRequests: number;
    openSearchRequestBytes: number;
    openSearchResponseBytes: number;
    postgresRoundTrips: number;
    postgresSentBytes: number;
    postgresReceivedBytes: number;
    mainThreadAllocatedBytes: number;
    garbageCollections: Record<string, number>;
    postedToWorkers: { messages: number; clonedBytes: number; transferredBytes: number };
    responseBytes: number;
  };
  /** the main thread's heap after the searches and one major collection */
  liveHeapBytesAfter: number;
  byRequestKind: RequestKind[];
  allocatingFunctions: Array<{ where: string; bytesPerSearch: number }>;
}

interface TreeRun {
  tag: string;
  root: string;
  collection: string;
  databaseUrl: string;
  nodeUrl: string;
  texts: string[];
}

/** One tree's service started behind the proxy, its searches measured, the service stopped. */
async function measureTree(run: TreeRun): Promise<TreeFigures> {
  const dataDir = join(DIR, `service-${basename(run.tag)}`);
  rmSync(dataDir, { recursive: true, force: true });
  mkdirSync(dataDir, { recursive: true });
  const out = join(dataDir, "probe.json");
  mkdirSync(join(dataDir, "samples"), { recursive: true });
  const proxy = await countingProxy(run.nodeUrl, join(dataDir, "samples"));
  const postgres = await countingPostgresProxy(run.databaseUrl);
  const dataRoot = run.tag === "this" ? undefined : await againstDataRoot(run.root, REPO_ROOT);
  const collectionsFile = join(dataDir, "collections.json");
  const config = JSON.parse(readFileSync(join(REPO_ROOT, "config", "collections.json"), "utf8")) as {
    collections: Array<{ name: string }>;
  };
  const scifact = config.collections.filter((c) => c.name === SCIFACT_COLLECTION);
  writeFileSync(
    collectionsFile,
    JSON.stringify({ collections: scifact.map((c) => ({ ...c, name: run.collection })), metaCollections: [] }),
  );
  const child = startSupervisedProcess({
    name: `search-bytes-${run.tag}`,
    command: process.execPath,
    args: ["--import", "tsx", "--import", PROBE, join(run.root, "src", "app", "main.ts")],
    cwd: run.root,
    logFile: join(dataDir, "service.log"),
    env: {
      ...process.env,
      DATA_DIR: dataDir,
      PORT: "0",
      INGEST_DEMO: "0",
      LOG_LEVEL: "warn",
      ADMIN_TOKEN,
      COLLECTIONS_CONFIG: collectionsFile,
      OPENSEARCH_URL: proxy.url,
      DATABASE_URL: postgres.url,
      SEARCH_BYTES_OUT: out,
      ...(dataRoot ? { DATA_ROOT: dataRoot } : {}),
    },
  });
  try {
    const url = await waitForReady({
      what: `${run.tag} service`,
      process: child,
      timeoutMs: 300_000,
      intervalMs: 500,
      probe: async (signal) => {
        const file = join(dataDir, "server.json");
        if (!existsSync(file)) return undefined;
        const { url } = JSON.parse(readFileSync(file, "utf8")) as { url: string };
        return (await fetch(`${url}/readyz`, { signal })).ok ? url : undefined;
      },
    });
    const key = await liveKey(url);
    let responseBytes = 0;
    const search = async (query: string) => {
      const res = await fetch(`${url}/api/v1/search/query`, {
        method: "POST",
        headers: { Authorization: `Bearer ${key}`, "Content-Type": "application/json" },
        body: JSON.stringify({ collection: run.collection, query, limit: 10 }),
      });
      const text = await res.text();
      if (res.status !== 200) throw new Error(`${run.tag}: search answered ${res.status} ${text.slice(0, 300)}`);
      responseBytes += Buffer.byteLength(text);
    };
    for (const text of run.texts) await search(text);
    proxy.kinds.clear();
    Object.assign(postgres.counts, { roundTrips: 0, sentBytes: 0, receivedBytes: 0 });
    responseBytes = 0;
    await probeStep(out, "started");
    for (const text of run.texts) await search(text);
    const database = { ...postgres.counts };
    await probeStep(out, "stopped");
    const probe = JSON.parse(readFileSync(out, "utf8")) as ProbeFigures;
    return treeFigures(run, probe, [...proxy.kinds.values()], database, responseBytes);
  } catch (err) {
    throw new Error(`${(err as Error).message} (the service's log: ${join(dataDir, "service.log")})`, { cause: err });
  } finally {
    await child.stop();
    await new Promise((r) => proxy.server.close(r));
    postgres.close();
  }
}

/** What bench/searchBytesProbe.mjs writes. */
interface ProbeFigures {
  allocatedBytes: number;
  liveHeapBytes: number;
  collections: Record<string, number>;
  posted: { messages: number; clonedBytes: number; transferredBytes: number };
  functions: Array<[string, number]>;
}

function treeFigures(
  run: TreeRun,
  probe: ProbeFigures,
  kinds: RequestKind[],
  database: PostgresCounts,
  responseBytes: number,
): TreeFigures {
  const n = run.texts.length;
  const per = (x: number) => Math.round((x / n) * 10) / 10;
  const sum = (pick: (k: RequestKind) => number) => kinds.reduce((s, k) => s + pick(k), 0);
  return {
    tree: run.tag,
    searches: n,
    perSearch: {
      openSearchRequests: per(sum((k) => k.requests)),
      openSearchRequestBytes: per(sum((k) => k.requestBytes)),
      openSearchResponseBytes: per(sum((k) => k.responseBytes)),
      postgresRoundTrips: per(database.roundTrips),
      postgresSentBytes: per(database.sentBytes),
      postgresReceivedBytes: per(database.receivedBytes),
      mainThreadAllocatedBytes: per(probe.allocatedBytes),
      garbageCollections: Object.fromEntries(Object.entries(probe.collections).map(([kind, n]) => [kind, per(n)])),
      postedToWorkers: {
        messages: per(probe.posted.messages),
        clonedBytes: per(probe.posted.clonedBytes),
        transferredBytes: per(probe.posted.transferredBytes),
      },
      responseBytes: per(responseBytes),
    },
    liveHeapBytesAfter: probe.liveHeapBytes,
    byRequestKind: kinds
      .sort((a, b) => b.responseBytes - a.responseBytes)
      .map((k) => ({
        kind: k.kind,
        requests: per(k.requests),
        items: per(k.items),
        requestBytes: per(k.requestBytes),
        responseBytes: per(k.responseBytes),
      })),
    allocatingFunctions: probe.functions.slice(0, 25).map(([where, bytes]) => ({ where, bytesPerSearch: per(bytes) })),
  };
}

/** The node with this tree's SciFact index, and the other trees' written by their own adapters where they differ. */
async function prepareNode(
  roots: string[],
): Promise<{ node: OpenSearchNode; texts: string[]; collections: string[]; cacheDir: string }> {
  const index = await openScifactIndex();
  try {
    const ids = await scifactChunkIds(index);
    const { queries } = await loadScifactJudgements(index.config.dataRoot);
    const component = readComponent("opensearch", index.config.cacheDir);
    const node = await startOpenSearchNode({ dataDir: join(DIR, "opensearch"), component, heap: "1g" });
    const opensearch = createOpenSearchEngine({ url: node.url });
    const version = await mappingVersionOf(REPO_ROOT);
    if ((await indexMappingVersion(node.url)) !== version && (await opensearch.hasIndex(SCIFACT_COLLECTION)))
      await opensearch.deleteIndex(SCIFACT_COLLECTION);
    await copyIndex(index.embedded, opensearch, SCIFACT_COLLECTION, ids, index.embedder.dims);
    await opensearch.close();
    const collections: string[] = [];
    for (const root of roots) {
      const collection =
        root === REPO_ROOT ? SCIFACT_COLLECTION : treeCollection("against", version, await mappingVersionOf(root));
      if (collection !== SCIFACT_COLLECTION)
        await writeTreeIndex(
          node.url,
          root,
          collection,
          await index.embedded.getChunks(SCIFACT_COLLECTION, ids),
          index.embedder.dims,
        );
      collections.push(collection);
    }
    const texts = queries.slice(0, Number(args.queries)).map((q) => q.text);
    return { node, texts, collections, cacheDir: index.config.cacheDir };
  } finally {
    await index.close();
  }
}

function readableLine(f: TreeFigures): string {
  const p = f.perSearch;
  const kb = (x: number) => `${(x / 1000).toFixed(1)} kB`;
  return (
    `${f.tree}: per search ${p.openSearchRequests} OpenSearch requests, ${kb(p.openSearchRequestBytes)} sent, ` +
    `${kb(p.openSearchResponseBytes)} received; PostgreSQL ${p.postgresRoundTrips} round trips, ` +
    `${kb(p.postgresSentBytes)} sent, ${kb(p.postgresReceivedBytes)} received; ` +
    `main thread allocated ${kb(p.mainThreadAllocatedBytes)} (collections ${JSON.stringify(p.garbageCollections)}, ` +
    `live heap after ${kb(f.liveHeapBytesAfter)}); ` +
    `posted to workers ${p.postedToWorkers.messages} messages, ${kb(p.postedToWorkers.clonedBytes)} cloned, ` +
    `${kb(p.postedToWorkers.transferredBytes)} transferred; answer ${kb(p.responseBytes)}\n` +
    f.byRequestKind
      .map(
        (k) =>
          `  ${k.kind}: ${k.requests} a search, ${kb(k.requestBytes)} sent, ${kb(k.responseBytes)} received ` +
          `(${k.items} documents or hits)`,
      )
      .join("\n")
  );
}

async function main(): Promise<void> {
  const loadBefore = loadavg()[0];
  const roots = args.trees.split(",").map((t) => (t.trim() === "this" ? REPO_ROOT : resolve(t.trim())));
  for (const root of roots)
    if (root !== REPO_ROOT) installMissingDependencies(root, root, REPO_ROOT, resolve(root, ".."));
  mkdirSync(DIR, { recursive: true });
  const { node, texts, collections, cacheDir } = await prepareNode(roots);
  let postgres: PostgresServer | undefined;
  const figures: TreeFigures[] = [];
  try {
    postgres = await startPostgresServer({
      dataDir: join(DIR, "postgres"),
      component: readComponent("postgres", cacheDir),
    });
    for (const [i, root] of roots.entries()) {
      const tag = root === REPO_ROOT ? "this" : root;
      const databaseUrl = await createDatabase(postgres.url, `litsearch_bytes_${i}`);
      figures.push(
        await measureTree({ tag, root, collection: collections[i]!, databaseUrl, nodeUrl: node.url, texts }),
      );
    }
  } finally {
    await postgres?.stop();
    await node.stop();
  }
  const load = { before: Math.round(loadBefore * 10) / 10, after: Math.round(loadavg()[0] * 10) / 10 };
  console.log(JSON.stringify({ loadAverage: load, trees: figures }, null, 2));
  console.log(`load average ${load.before} before, ${load.after} after`);
  for (const f of figures) console.log(readableLine(f));
}

await main();
