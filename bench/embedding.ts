// Embedding benchmark: model load time, passage throughput (abstracts and short chunks), query latency; prints JSON and one line.
// Usage: tsx bench/embedding.ts [--batch 32] [--threads 2] [--passages 256] [--rounds 3] [--queries 200] [--onnx model.onnx] [--scifact DIR]
import { readFile, readdir, stat } from 'node:fs/promises';
import { loadavg } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { loadModelManifest, modelManifestPath } from '../src/embedding/modelManifest.js';
import { cacheDirFrom } from '../src/config.js';
import { createOnnxEmbedder, type OnnxEmbedder } from '../src/embedding/onnxEmbedder.js';

const { values: args } = parseArgs({
  options: {
    batch: { type: 'string', default: '32' },
    threads: { type: 'string', default: '2' },
    passages: { type: 'string', default: '256' },
    rounds: { type: 'string', default: '3' },
    queries: { type: 'string', default: '200' },
    onnx: { type: 'string' },
    scifact: { type: 'string', default: '/work/shared/data/scifact' },
  },
});
const batchSize = Number(args.batch);
const threads = Number(args.threads);
const passageCount = Number(args.passages);
const queryCount = Number(args.queries);
const rounds = Number(args.rounds);
const SCIFACT = args.scifact;

async function readJsonl<T>(path: string): Promise<T[]> {
  return (await readFile(path, 'utf8'))
    .split('\n')
    .filter((line) => line.trim())
    .map((line) => JSON.parse(line) as T);
}

async function directoryBytes(dir: string): Promise<number> {
  let total = 0;
  for (const entry of await readdir(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    total += entry.isDirectory() ? await directoryBytes(path) : (await stat(path)).size;
  }
  return total;
}

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? Number.NaN;
}

/** Cuts text to about `pieces` word pieces at a word boundary. */
function cutToPieces(embedder: OnnxEmbedder, text: string, pieces: number): string {
  const words = text.split(/\s+/);
  let lo = 1;
  let hi = words.length;
  while (lo < hi) {
    const mid = Math.ceil((lo + hi) / 2);
    if (embedder.tokenizer.count(words.slice(0, mid).join(' ')) <= pieces) lo = mid;
    else hi = mid - 1;
  }
  return words.slice(0, lo).join(' ');
}

/** Embeds all texts once per round; the median resists other processes on a shared machine, the best shows the quiet speed. */
async function throughput(embedder: OnnxEmbedder, texts: string[]): Promise<{ medianPerSecond: number; bestPerSecond: number; meanTokens: number }> {
  await embedder.embedPassages(texts.slice(0, batchSize)); // warm-up
  const rates: number[] = [];
  for (let r = 0; r < rounds; r++) {
    const start = performance.now();
    await embedder.embedPassages(texts);
    rates.push(texts.length / ((performance.now() - start) / 1000));
  }
  rates.sort((a, b) => a - b);
  const meanTokens = texts.reduce((sum, t) => sum + Math.min(embedder.tokenizer.count(t) + 2, embedder.maxTokens), 0) / texts.length;
  return { medianPerSecond: round(percentile(rates, 50)), bestPerSecond: round(rates[rates.length - 1] ?? Number.NaN), meanTokens: round(meanTokens) };
}

function round(n: number, digits = 1): number {
  const f = 10 ** digits;
  return Math.round(n * f) / f;
}

const manifestPath = modelManifestPath(cacheDirFrom(process.env));
const baseManifest = await loadModelManifest(manifestPath);
const manifest = args.onnx ? { ...baseManifest, onnx: args.onnx } : baseManifest;

const loadBefore = loadavg()[0] ?? 0;
const loadStart = performance.now();
const embedder = await createOnnxEmbedder({ manifest, batchSize, threads });
const loadMs = performance.now() - loadStart;

const corpus = await readJsonl<{ title: string; text: string }>(join(SCIFACT, 'corpus.jsonl'));
const queries = await readJsonl<{ text: string }>(join(SCIFACT, 'queries.jsonl'));

// Abstracts of typical length (200-300 pieces) and short chunks (~120 pieces cut from other abstracts).
const abstracts = corpus
  .map((d) => `${d.title}\n${d.text}`)
  .filter((t) => {
    const n = embedder.tokenizer.count(t);
    return n >= 200 && n <= 300;
  })
  .slice(0, passageCount);
const chunks = corpus
  .map((d) => d.text)
  .filter((t) => embedder.tokenizer.count(t) >= 160)
  .slice(passageCount, passageCount * 2)
  .map((t) => cutToPieces(embedder, t, 118));

const abstractRun = await throughput(embedder, abstracts);
const chunkRun = await throughput(embedder, chunks);

const latencies: number[] = [];
for (const q of queries.slice(0, 10)) await embedder.embedQuery(q.text); // warm-up
for (const q of queries.slice(0, queryCount)) {
  const start = performance.now();
  await embedder.embedQuery(q.text);
  latencies.push(performance.now() - start);
}
latencies.sort((a, b) => a - b);
await embedder.close();

const onnxBytes = (await stat(join(manifest.dir, manifest.onnx))).size;
const result = {
  model: manifest.name,
  onnx: manifest.onnx,
  dims: manifest.dims,
  batchSize,
  threads,
  rounds,
  modelLoadMs: round(loadMs),
  abstracts: { count: abstracts.length, ...abstractRun },
  shortChunks: { count: chunks.length, ...chunkRun },
  query: {
    count: latencies.length,
    p50Ms: round(percentile(latencies, 50), 2),
    p95Ms: round(percentile(latencies, 95), 2),
    meanTokens: round(queries.slice(0, queryCount).reduce((s, q) => s + embedder.tokenizer.count(q.text) + 2, 0) / latencies.length),
  },
  /** 1-minute load average before and after: other processes on the machine skew every figure */
  loadAverage: { before: round(loadBefore, 2), after: round(loadavg()[0] ?? 0, 2) },
  disk: { onnxMB: round(onnxBytes / 2 ** 20), modelDirMB: round((await directoryBytes(manifest.dir)) / 2 ** 20) },
};
console.log(JSON.stringify(result, null, 2));
console.log(
  `${result.model} (${result.onnx}, ${threads} threads, batch ${batchSize}): ` +
    `${result.abstracts.medianPerSecond} abstracts/s (best ${result.abstracts.bestPerSecond}, ~${result.abstracts.meanTokens} tok), ` +
    `${result.shortChunks.medianPerSecond} chunks/s (best ${result.shortChunks.bestPerSecond}, ~${result.shortChunks.meanTokens} tok), ` +
    `query p50 ${result.query.p50Ms} ms (p95 ${result.query.p95Ms} ms), load ${result.modelLoadMs} ms, onnx ${result.disk.onnxMB} MB, loadavg ${result.loadAverage.before}->${result.loadAverage.after}`,
);
