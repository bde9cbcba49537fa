// Query embedding benchmark: the cost of one uncached query on the service's float32 path (bge-small-en-v1.5 over its
// dequantized weights, in-process) for session settings, alone and with concurrent queries in flight, and how far
// each setting's vectors are from the shipped setting's (max absolute difference, min cosine). Prints JSON, then a
// line per setting. SciFact's queries (demo-data/scifact/queries.jsonl), each embedded once per setting, so no
// setting gets a cache hit.
// Usage: npm run bench:query-embedding [-- --queries 200] [--concurrency 8] [--rounds 2]
import { readFileSync } from "node:fs";
import { loadavg } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { loadConfig } from "../src/app/config.js";
import { embeddingModelManifestPath } from "../src/embedding/modelManifest.js";
import { createOnnxEmbedder } from "../src/embedding/onnxEmbedder.js";

const { values: args } = parseArgs({
  options: {
    queries: { type: "string", default: "200" },
    concurrency: { type: "string", default: "8" },
    rounds: { type: "string", default: "2" },
  },
});

type Options = Omit<Parameters<typeof createOnnxEmbedder>[0], "manifest">;
/** shipped: the service's query embedder (openEmbedder in composition.ts) */
const SETTINGS: Record<string, { options: Options; concurrent?: boolean }> = {
  shipped: { options: {} },
  "threads-1": { options: { threads: 1 } },
  "arena-off": { options: { memArena: false } },
  "graph-extended": { options: { graphOptimizationLevel: "extended" } },
  "graph-basic": { options: { graphOptimizationLevel: "basic" } },
  "shipped-concurrent": { options: {}, concurrent: true },
};

const config = loadConfig();
const texts = readFileSync(join(config.dataRoot, "scifact", "queries.jsonl"), "utf8")
  .split("\n")
  .filter(Boolean)
  .map((line) => (JSON.parse(line) as { text: string }).text)
  .slice(0, Number(args.queries));
const concurrency = Number(args.concurrency);
const rounds = Number(args.rounds);

interface Figures {
  setting: string;
  concurrency: number;
  msPerQuery: number;
  cpuMsPerQuery: number;
  p50Ms: number;
  maxAbsDiff: number;
  minCosine: number;
}

let reference: Float32Array[] | undefined;
const results: Figures[] = [];
const loadBefore = loadavg()[0]!;
for (const [setting, { options, concurrent }] of Object.entries(SETTINGS)) {
  const embedder = await createOnnxEmbedder({ manifest: embeddingModelManifestPath(config.cacheDir), ...options });
  const c = concurrent ? concurrency : 1;
  for (const text of texts.slice(0, 10)) await embedder.embedQuery(`warm ${text}`);
  const best = { wall: Infinity, cpu: Infinity };
  let vectors: Float32Array[] = [];
  const latencies: number[] = [];
  for (let round = 0; round < rounds; round++) {
    vectors = new Array<Float32Array>(texts.length);
    const cpu = process.cpuUsage();
    const started = performance.now();
    for (let start = 0; start < texts.length; start += c) {
      await Promise.all(
        texts.slice(start, start + c).map(async (text, i) => {
          const t = performance.now();
          vectors[start + i] = await embedder.embedQuery(text);
          latencies.push(performance.now() - t);
        }),
      );
    }
    const used = process.cpuUsage(cpu);
    best.wall = Math.min(best.wall, (performance.now() - started) / texts.length);
    best.cpu = Math.min(best.cpu, (used.user + used.system) / 1000 / texts.length);
  }
  await embedder.close();
  reference ??= vectors;
  let maxAbsDiff = 0;
  let minCosine = 1;
  vectors.forEach((v, i) => {
    const r = reference![i]!;
    let dot = 0;
    for (let k = 0; k < v.length; k++) {
      dot += v[k]! * r[k]!;
      maxAbsDiff = Math.max(maxAbsDiff, Math.abs(v[k]! - r[k]!));
    }
    minCosine = Math.min(minCosine, dot);
  });
  latencies.sort((a, b) => a - b);
  const round3 = (x: number) => Math.round(x * 1000) / 1000;
  results.push({
    setting,
    concurrency: c,
    msPerQuery: round3(best.wall),
    cpuMsPerQuery: round3(best.cpu),
    p50Ms: round3(latencies[Math.floor(latencies.length / 2)]!),
    maxAbsDiff,
    minCosine,
  });
  console.error(`[query-embedding] ${JSON.stringify(results[results.length - 1])}`);
}
const load = { before: loadBefore, after: loadavg()[0]! };
console.log(JSON.stringify({ queries: texts.length, rounds, loadAverage: load, results }, null, 2));
for (const r of results)
  console.log(
    `${r.setting.padEnd(30)} c=${r.concurrency}: ${r.msPerQuery} ms a query (wall, best of ${rounds}), ` +
      `${r.cpuMsPerQuery} CPU ms, p50 ${r.p50Ms} ms; vs shipped: max |diff| ${r.maxAbsDiff.toExponential(2)}, ` +
      `min cosine ${r.minCosine.toFixed(7)}`,
  );
console.log(`load average ${load.before.toFixed(1)} -> ${load.after.toFixed(1)}`);
