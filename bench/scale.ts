// Scale benchmark: one engine, N generated chunks, one JSON line (bench/scaleBench.ts `ScaleReport`): index time, index
// size, memory (RSS of the process holding the embedded index, or the OpenSearch node's JVM heap), p50/p95 of sparse,
// dense and hybrid search with and without a filter, and the dense top 10's recall against the exact top 10.
// Usage: npm run bench:scale -- --engine embedded|opensearch --chunks N [--json]
// [--knn auto|exact] OpenSearch: the provisioned node (k-NN plugin: lucene-hnsw), or one started without the plugin
//          [--queries 100]       SciFact train queries searched: a warm-up round, then the measured rounds
// [--rounds 3] measured rounds (the machine is shared: p50/p95 pool them, bestRoundP50 is the calmest)
//          [--sources N]         replicate the first N SciFact abstracts (embedded here, cached) instead of the bench's
//                                SciFact chunks (the quality benchmark's index in data/bench, built on first use)
//          [--max-segments N]    OpenSearch: force-merge to at most N segments after indexing
// [--ef-search N] OpenSearch k-NN: the queries' ef_search (default: the service's, by the largest shard's chunks)
//          [--heap 1g]           OpenSearch: JVM heap of the node (default: the provisioned launcher's, 1g)
//          [--shards 1]          OpenSearch: primary shards of the index (the service's OPENSEARCH_SHARDS), each with
//                                its own HNSW graph, walked with the same ef_search
// [--keep] keep the built index (embedded: always cached) for the next run with the same arguments
//          [--work-dir DIR]      default data/bench/scale
// Without --json a readable summary comes first; the JSON line is always the last line on stdout. Progress goes to
// stderr.
import { execFileSync } from "node:child_process";
import { loadavg } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { REPO_ROOT } from "../src/app/config.js";
import { BENCH_DIR } from "./scifactBench.js";
import {
  LATENCY_KEYS,
  buildEmbedded,
  embeddedDir,
  loadScaleSource,
  measureEmbedded,
  runOpenSearch,
  scaleReportSchema,
  type ScaleReport,
} from "./scaleBench.js";

const { values: args } = parseArgs({
  options: {
    engine: { type: "string" },
    chunks: { type: "string" },
    json: { type: "boolean", default: false },
    knn: { type: "string", default: "auto" },
    queries: { type: "string", default: "100" },
    rounds: { type: "string", default: "3" },
    sources: { type: "string" },
    "max-segments": { type: "string" },
    heap: { type: "string" },
    shards: { type: "string", default: "1" },
    "ef-search": { type: "string" },
    keep: { type: "boolean", default: false },
    "work-dir": { type: "string", default: join(BENCH_DIR, "scale") },
    "measure-embedded": { type: "string" },
  },
});

function positiveInteger(name: string, raw: string | undefined): number {
  const value = Number(raw);
  if (raw === undefined || !Number.isInteger(value) || value < 1)
    throw new Error(`--${name} must be a positive integer, got ${raw ?? "nothing"}`);
  return value;
}

/** Measures a built embedded index in a fresh Node process, so the memory figure is the index's and not the build's. */
function measureEmbeddedInChild(dir: string, rounds: number): Awaited<ReturnType<typeof measureEmbedded>> {
  const out = execFileSync(
    process.execPath,
    [
      "--max-old-space-size=16000",
      "--expose-gc",
      "--import",
      "tsx",
      join(REPO_ROOT, "bench", "scale.ts"),
      "--measure-embedded",
      dir,
      "--rounds",
      String(rounds),
    ],
    {
      cwd: REPO_ROOT,
      stdio: ["ignore", "pipe", "inherit"],
      maxBuffer: 64 * 1024 * 1024,
    },
  ).toString();
  return JSON.parse(out.trim().split("\n").pop()!);
}

function summary(report: ScaleReport): string {
  const lines = [
    `${report.engine} (${report.knn}), ${report.chunks} chunks from ${report.source}: indexed in ` +
      `${report.indexSeconds} s (${report.chunksPerSecond} chunks/s` +
      `${report.indexReused ? ", an earlier run" : ""})` +
      `${report.shards === null || report.shards === 1 ? "" : ` in ${report.shards} shards`}` +
      (`${report.forceMergeSeconds === null ? "" : `, force-merged in ${report.forceMergeSeconds} s`}` +
        `${report.segments === null ? "" : `, ${report.segments} segment(s)`}, ${report.indexMB} MB`),
    `memory: ${report.memory.kind} ${report.memory.usedMB} MB` +
      `${report.memory.maxMB === null ? "" : ` of ${report.memory.maxMB} MB`}`,
    ...LATENCY_KEYS.map(
      (key) =>
        `${key.padEnd(15)} p50 ${String(report.latencyMs[key].p50).padStart(8)} ms   p95 ` +
        `${String(report.latencyMs[key].p95).padStart(8)} ms   best round's p50 ` +
        `${String(report.latencyMs[key].bestRoundP50).padStart(8)} ms`,
    ),
    `dense recall@10 vs exact: ${report.recallAt10VsExact} (filtered: ${report.recallAt10VsExactFiltered}); ` +
      `filter ${report.filter}; ${report.queries} queries x ${report.rounds} rounds; load average ` +
      `${report.loadAverage.before} -> ${report.loadAverage.after}`,
  ];
  return lines.join("\n");
}

async function main(): Promise<void> {
  if (args["measure-embedded"]) {
    console.log(
      JSON.stringify(await measureEmbedded(args["measure-embedded"], positiveInteger("rounds", args.rounds))),
    );
    return;
  }
  const engine = args.engine;
  if (engine !== "embedded" && engine !== "opensearch")
    throw new Error(`--engine must be embedded or opensearch, got ${engine ?? "nothing"}`);
  const chunks = positiveInteger("chunks", args.chunks);
  const queries = positiveInteger("queries", args.queries);
  const rounds = positiveInteger("rounds", args.rounds);
  const sources = args.sources === undefined ? undefined : positiveInteger("sources", args.sources);
  const knn = args.knn;
  if (knn !== "auto" && knn !== "exact") throw new Error(`--knn must be auto or exact, got ${knn}`);
  if (engine === "embedded" && knn !== "auto")
    throw new Error("--knn exact is for OpenSearch: the embedded engine always searches exactly");
  const shards = positiveInteger("shards", args.shards);
  if (engine === "embedded" && shards !== 1)
    throw new Error("--shards is for OpenSearch: the embedded engine has none");
  const workDir = args["work-dir"];
  const loadBefore = loadavg()[0]!;

  const source = await loadScaleSource({ sources, queries, workDir });
  let measured: Omit<ScaleReport, "loadAverage">;
  if (engine === "embedded") {
    const dir = embeddedDir(workDir, chunks, source);
    const { build, reused } = await buildEmbedded(dir, source, chunks);
    measured = {
      ...measureEmbeddedInChild(dir, rounds),
      indexSeconds: build.indexSeconds,
      chunksPerSecond: Math.round(chunks / Math.max(build.indexSeconds, 0.001)),
      indexReused: reused,
    };
  } else {
    measured = await runOpenSearch(chunks, source, {
      workDir,
      knn,
      heap: args.heap,
      shards,
      maxSegments:
        args["max-segments"] === undefined ? undefined : positiveInteger("max-segments", args["max-segments"]),
      keep: args.keep,
      rounds,
      efSearch: args["ef-search"] === undefined ? undefined : positiveInteger("ef-search", args["ef-search"]),
    });
  }
  const report = scaleReportSchema.parse({
    ...measured,
    loadAverage: { before: Math.round(loadBefore * 10) / 10, after: Math.round(loadavg()[0]! * 10) / 10 },
  });
  if (!args.json) console.log(summary(report));
  console.log(JSON.stringify(report));
}

await main();
