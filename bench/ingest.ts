// Ingestion benchmark through the ingestion workflow (Temporal, the event store, the real embedding model): documents
// per second of a full build of generated sparse and hybrid collections, an upsert of a snapshot with 1% changed and
// 0.1% deleted documents against the full build, and hybrid search p50 idle and during that upsert. Prints JSON, then
// a table.
// Usage: npm run bench:ingest [-- --sparse 100000] [--hybrid 20000] [--searches 40] [--engines embedded,opensearch]
//   [--workers 1,2]
//   opensearch: OPENSEARCH_URL, else a node started here from the provisioned component. --workers (default 1) lists
// how many `src/app/worker.ts` processes take the batches, each count measured in the scaled shape: a PostgreSQL server
//   started here (a database per count), the service runtime running no worker, N worker processes on the same
//   DATA_DIR, DATA_ROOT, DATABASE_URL, TEMPORAL_ADDRESS and OPENSEARCH_URL. 0: the API process's in-process worker
//   takes them (PGlite store). The embedded engine is measured in-process only: its index belongs to the API process.
import { chmodSync, mkdirSync, mkdtempSync, readdirSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { performance } from "node:perf_hooks";
import { parseArgs } from "node:util";
import pino from "pino";
import { loadConfig, type Config } from "../src/app/config.js";
import { readComponent } from "../src/infra/components.js";
import { startOpenSearchNode, type OpenSearchNode } from "../src/infra/opensearchNode.js";
import { startPostgresServer, type PostgresServer } from "../src/infra/postgresServer.js";
import type { SupervisedProcess } from "../src/infra/supervisedProcess.js";
import { startRuntime, type Runtime } from "../src/app/composition.js";
import { waitForIngestion } from "../src/usecases/collections/temporalIngestions.js";
import type { IngestionStatus } from "../src/ingest/ingestions.js";
import { ingestShapes, type IngestShape } from "./ingestShapes.js";
import { createDatabase, startWorkers } from "./scaledShape.js";

const { values: args } = parseArgs({
  options: {
    sparse: { type: "string", default: "100000" },
    hybrid: { type: "string", default: "20000" },
    searches: { type: "string", default: "40" },
    engines: { type: "string", default: "embedded" },
    workers: { type: "string", default: "1" },
  },
});

const WORDS = (
  "coral reef bleaching heatwave symbiont algae parrotfish transect survey seagrass dugong mangrove nursery " +
  "snapper juvenile cyclone sediment turbidity recovery recruitment larvae spawning lagoon atoll salinity " +
  "nitrogen phosphate grazing herbivory predator outbreak starfish urchin sponge calcification acidification " +
  "temperature anomaly monitoring quadrat cover mortality resilience connectivity"
).split(" ");

/** A deterministic pseudo-random generator (mulberry32), so every run ingests the same documents. */
function random(seed: number): () => number {
  let a = seed;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const sentence = (next: () => number, words: number) =>
  Array.from({ length: words }, () => WORDS[Math.floor(next() * WORDS.length)]).join(" ") + ".";

function document(n: number, version = 0): Record<string, unknown> {
  const next = random(n * 7919 + version);
  return {
    id: `doc-${n}`,
    title: `Survey ${n}: ${sentence(next, 6)}`,
    text: Array.from({ length: 6 }, () => sentence(next, 14)).join(" "),
    journal: `Reef Journal ${n % 50}`,
    publication_date: String(2000 + (n % 25)),
  };
}

/** The snapshot: every document, 1% in a new version, 0.1% deleted. */
function writeSnapshot(path: string, count: number, changed: boolean): { changed: number; deleted: number } {
  const lines: string[] = [];
  let changes = 0;
  let deletions = 0;
  for (let n = 0; n < count; n++) {
    if (changed && n % 1000 === 500) {
      lines.push(JSON.stringify({ id: `doc-${n}`, deleted: true }));
      deletions += 1;
    } else if (changed && n % 100 === 7) {
      lines.push(JSON.stringify(document(n, 1)));
      changes += 1;
    } else lines.push(JSON.stringify(document(n)));
  }
  writeFileSync(path, lines.join("\n") + "\n");
  return { changed: changes, deleted: deletions };
}

const quantile = (values: number[], q: number) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted.length ? sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]! : null;
};

async function ingest(
  runtime: Runtime,
  collection: string,
  files: string[],
  mode: "upsert" | "replace",
): Promise<{ status: IngestionStatus; seconds: number }> {
  const started = performance.now();
  const { ingestionId } = await runtime.ingestions.start(
    { collection, files, mode },
    { kind: "operator", id: "bench" },
  );
  const status = (await waitForIngestion(runtime.ingestions, ingestionId, 200))!;
  if (status.state !== "completed") throw new Error(`${collection}: ${status.error}`);
  return { status, seconds: (performance.now() - started) / 1000 };
}

async function searchOnce(runtime: Runtime, index: string, query: string): Promise<number> {
  const started = performance.now();
  const vector = await runtime.embedder.embedQuery(query);
  await runtime.engine.search({ index, mode: "hybrid", text: query, vector, limit: 10 });
  return performance.now() - started;
}

type Files = Record<"sparse" | "hybrid" | "sparseUpdate" | "hybridUpdate", string>;
interface Input {
  files: Files;
  sparse: number;
  hybrid: number;
  sparseChanges: { changed: number; deleted: number };
  hybridChanges: { changed: number; deleted: number };
}

async function main(): Promise<void> {
  const shapes = ingestShapes(args.engines, args.workers);
  const sparse = Number(args.sparse);
  const hybrid = Number(args.hybrid);
  const dir = mkdtempSync(join(tmpdir(), "bench-ingest-"));
  chmodSync(dir, 0o755); // a PostgreSQL server started by root runs as 'postgres', which must enter it
  // a data root of the real one's entries (journals, retraction lists) beside the generated files
  const dataRoot = join(dir, "root");
  mkdirSync(dataRoot);
  const realRoot = loadConfig().dataRoot;
  for (const entry of readdirSync(realRoot)) symlinkSync(join(realRoot, entry), join(dataRoot, entry));
  const files = {
    sparse: "bench-sparse.jsonl",
    hybrid: "bench-hybrid.jsonl",
    hybridUpdate: "bench-hybrid-update.jsonl",
    sparseUpdate: "bench-sparse-update.jsonl",
  };
  writeSnapshot(join(dataRoot, files.sparse), sparse, false);
  writeSnapshot(join(dataRoot, files.hybrid), hybrid, false);
  const sparseChanges = writeSnapshot(join(dataRoot, files.sparseUpdate), sparse, true);
  const hybridChanges = writeSnapshot(join(dataRoot, files.hybridUpdate), hybrid, true);
  const input: Input = { files, sparse, hybrid, sparseChanges, hybridChanges };
  const base = loadConfig({ ...process.env, DATA_ROOT: dataRoot });
  let node: OpenSearchNode | undefined;
  let postgres: PostgresServer | undefined;
  const results: Result[] = [];
  try {
    for (const shape of shapes) {
      let opensearchUrl = "";
      if (shape.engine === "opensearch") {
        opensearchUrl = base.opensearchUrl ?? "";
        if (!opensearchUrl) {
          node ??= await startOpenSearchNode({
            dataDir: join(dir, "opensearch"),
            component: readComponent("opensearch", base.cacheDir),
          });
          opensearchUrl = node.url;
        }
      }
      // each shape its own collections, data directory and store: nothing carries over between shapes on one node
      const label = `${shape.engine}-w${shape.workerProcesses}`;
      const names = { sparse: `bench-sparse-${label}`, hybrid: `bench-hybrid-${label}` };
      const plain = (name: string, retrieval: string, file: string) => ({
        name,
        displayName: name,
        description: null,
        kind: "scholarly",
        retrieval,
        pricePer1000: "0.010",
        openAccessOnly: false,
        scanFilterable: false,
        excludeRetracted: false,
        source: { reader: "jsonl", files: [file] },
      });
      const collectionsConfig = join(dir, `collections-${label}.json`);
      writeFileSync(
        collectionsConfig,
        JSON.stringify({
          collections: [plain(names.sparse, "sparse", files.sparse), plain(names.hybrid, "hybrid", files.hybrid)],
          metaCollections: [],
        }),
      );
      const env: NodeJS.ProcessEnv = {
        ...process.env,
        DATA_DIR: join(dir, `data-${label}`),
        DATA_ROOT: dataRoot,
        COLLECTIONS_CONFIG: collectionsConfig,
        OPENSEARCH_URL: opensearchUrl,
        INGEST_DEMO: "0",
        LOG_LEVEL: "warn",
      };
      if (shape.workerProcesses > 0) {
        postgres ??= await startPostgresServer({
          dataDir: join(dir, "postgres"),
          component: readComponent("postgres", base.cacheDir),
        });
        env.DATABASE_URL = await createDatabase(postgres.url, `bench_${label.replace(/-/g, "_")}`);
      }
      results.push(await measure(shape, loadConfig(env), names, input, join(dir, "logs")));
    }
  } finally {
    await postgres?.stop();
    await node?.stop();
  }
  // kept after a failure, for the logs
  rmSync(dir, { recursive: true, force: true });
  printTable(results);
}

const round = (x: number | null) => (x === null ? null : Math.round(x * 100) / 100);

async function measure(
  shape: IngestShape,
  config: Config,
  names: { sparse: string; hybrid: string },
  input: Input,
  logs: string,
) {
  const { files, sparse, hybrid, sparseChanges, hybridChanges } = input;
  const scaled = shape.workerProcesses > 0;
  // scaled: the runtime runs no worker, so every batch (and the workflow) is a worker process's
  const runtime = await startRuntime(config, { worker: !scaled, log: pino({ level: "warn" }) });
  const workers: SupervisedProcess[] = [];
  const load: number[][] = [];
  try {
    if (scaled) await startWorkers(config, runtime.temporal.address, shape.workerProcesses, logs, workers);
    load.push(loadavg());
    const sparseFull = await ingest(runtime, names.sparse, [files.sparse], "replace");
    const hybridFull = await ingest(runtime, names.hybrid, [files.hybrid], "replace");
    const sparseUpsert = await ingest(runtime, names.sparse, [files.sparseUpdate], "upsert");
    load.push(loadavg());

    const queries = Array.from({ length: Number(args.searches) }, (_, k) => sentence(random(k + 1), 5));
    const idle: number[] = [];
    for (const q of queries) idle.push(await searchOnce(runtime, names.hybrid, q));
    // searches while the hybrid upsert runs (one after another, as one client would)
    const during: number[] = [];
    let upserting = true;
    const upsert = ingest(runtime, names.hybrid, [files.hybridUpdate], "upsert").finally(() => (upserting = false));
    try {
      for (let k = 0; upserting; k++)
        during.push(await searchOnce(runtime, names.hybrid, queries[k % queries.length]!));
    } catch (error) {
      // a failed search ends the measure, after the upsert (it would otherwise poll a closed store and hide the error)
      await upsert.catch(() => undefined);
      throw error;
    }
    const hybridUpsert = await upsert;
    load.push(loadavg());

    const result = {
      engine: runtime.engine.kind,
      workerProcesses: shape.workerProcesses,
      batchesTakenBy: scaled
        ? `${shape.workerProcesses} src/app/worker.ts process(es)`
        : "the API process (in-process worker)",
      store: config.databaseUrl ? "postgres" : "pglite",
      batchSize: config.ingestBatchSize,
      parallelism: config.ingestParallelism,
      embeddingWorkers: config.embeddingWorkers,
      full: {
        sparse: {
          documents: sparse,
          seconds: round(sparseFull.seconds),
          documentsPerSecond: round(sparse / sparseFull.seconds),
          chunks: sparseFull.status.chunksIndexed,
        },
        hybrid: {
          documents: hybrid,
          seconds: round(hybridFull.seconds),
          documentsPerSecond: round(hybrid / hybridFull.seconds),
          chunks: hybridFull.status.chunksIndexed,
        },
      },
      upsert: {
        sparse: {
          ...sparseChanges,
          seconds: round(sparseUpsert.seconds),
          fullSeconds: round(sparseFull.seconds),
          counts: sparseUpsert.status,
        },
        hybrid: {
          ...hybridChanges,
          seconds: round(hybridUpsert.seconds),
          fullSeconds: round(hybridFull.seconds),
          counts: hybridUpsert.status,
        },
      },
      searchMs: {
        idleP50: round(quantile(idle, 0.5)),
        duringUpsertP50: round(quantile(during, 0.5)),
        idleSearches: idle.length,
        duringSearches: during.length,
      },
      loadAverage: load.map((l) => l.map((x) => Math.round(x * 100) / 100)),
    };
    console.log(JSON.stringify(result, null, 2));
    return result;
  } finally {
    // the workers first: they hold connections to the runtime's Temporal dev server and the store
    for (const w of workers) await w.stop();
    await runtime.close();
  }
}

type Result = Awaited<ReturnType<typeof measure>>;

/** One column per measured shape. */
function printTable(results: Result[]): void {
  const row = (cells: (string | number | null)[]) =>
    console.log(cells.map((c, i) => String(c ?? "-").padEnd(i === 0 ? 24 : 26)).join(""));
  row([
    "measure",
    ...results.map(
      (r) =>
        `${r.engine}, ` +
        `${r.workerProcesses === 0 ? "in-process" : `${r.workerProcesses} worker${r.workerProcesses > 1 ? "s" : ""}`}`,
    ),
  ]);
  row(["sparse full docs/s", ...results.map((r) => r.full.sparse.documentsPerSecond)]);
  row(["hybrid full docs/s", ...results.map((r) => r.full.hybrid.documentsPerSecond)]);
  row(["sparse full seconds", ...results.map((r) => r.full.sparse.seconds)]);
  row(["hybrid full seconds", ...results.map((r) => r.full.hybrid.seconds)]);
  row(["sparse upsert seconds", ...results.map((r) => r.upsert.sparse.seconds)]);
  row(["hybrid upsert seconds", ...results.map((r) => r.upsert.hybrid.seconds)]);
  row(["search p50 idle ms", ...results.map((r) => r.searchMs.idleP50)]);
  row(["search p50 upsert ms", ...results.map((r) => r.searchMs.duringUpsertP50)]);
  row(["load average (1 min)", ...results.map((r) => r.loadAverage.map((l) => l[0]).join(" -> "))]);
  console.log(
    `sizes: ${results[0]?.full.sparse.documents} sparse, ${results[0]?.full.hybrid.documents} hybrid ` +
      "documents; the embedded engine always in-process (its index belongs to the API process)",
  );
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
