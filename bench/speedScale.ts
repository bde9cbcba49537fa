// The speed benchmark's scale points: an index of N generated chunks (SciFact chunks with their words rotated and
// their vectors jittered, so postings and similarities keep a realistic shape) in the embedded engine or in
// OpenSearch, its size on disk, the memory it takes, and hybrid/sparse/dense search latency through the search
// engine port with real SciFact query texts and vectors.
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { startOpenSearchNode } from '../src/infra/opensearchNode.js';
import { readComponent } from '../src/infra/components.js';
import { cacheDirFrom } from '../src/config.js';
import { createEmbeddedEngine } from '../src/search/embedded/embeddedEngine.js';
import { createOpenSearchEngine } from '../src/search/opensearch/openSearchEngine.js';
import type { ChunkRecord, RetrievalMode, SearchEngine } from '../src/search/port.js';
import { embedQueryCached } from '../src/search/queryVectorCache.js';
import { BENCH_DIR, loadScifactJudgements, openScifactIndex, scifactChunkIds, SCIFACT_COLLECTION } from './scifactBench.js';

export type ScaleEngine = 'embedded' | 'opensearch';

/** Search latency over the scale queries, ms, in each retrieval mode. */
export interface LatencyFigures {
  hybridP50: number;
  hybridP95: number;
  sparseP50: number;
  sparseP95: number;
  denseP50: number;
  denseP95: number;
}

export interface EmbeddedScaleFigures extends LatencyFigures {
  engine: 'embedded';
  chunks: number;
  buildSeconds: number | null;
  loadSeconds: number;
  indexMB: number;
  /** JS heap plus typed arrays held once the index is loaded, over the process before loading */
  heapMB: number;
  rssMB: number;
}

export interface OpenSearchScaleFigures extends LatencyFigures {
  engine: 'opensearch';
  chunks: number;
  /** generating the chunks, indexChunks in batches of 5000 and the refreshes, on a fresh node */
  indexSeconds: number;
  chunksPerSecond: number;
  /** primaries store size from the index stats API */
  indexMB: number;
  /** JVM heap used on the node before creating the index and once it is indexed and refreshed (nodes stats) */
  jvmHeapBeforeMB: number;
  jvmHeapMB: number;
  jvmHeapMaxMB: number;
}

export type ScaleFigures = EmbeddedScaleFigures | OpenSearchScaleFigures;

/** The chunks every generated index is made from, and the queries every scale point searches with. */
export interface ScaleSource {
  sources: ChunkRecord[];
  texts: string[];
  /** `texts.length` query vectors of `dims`, back to back */
  vectors: Float32Array;
  dims: number;
}

const INDEX = 'generated';
const QUERY_COUNT = 100;
const COMMIT_EVERY = 100_000;
const round1 = (x: number): number => Math.round(x * 10) / 10;
const round2 = (x: number): number => Math.round(x * 100) / 100;
const mb = (bytes: number): number => round1(bytes / 1024 / 1024);

/** mulberry32 */
function generator(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) | 0;
    let t = Math.imul(state ^ (state >>> 15), 1 | state);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function generatedChunk(source: ChunkRecord, ordinal: number, round: number, next: () => number): ChunkRecord {
  const words = source.text.split(' ');
  const shift = (round * 7) % Math.max(1, words.length);
  const text = round === 0 ? source.text : [...words.slice(shift), ...words.slice(0, shift)].join(' ');
  const vector = Float32Array.from(source.vector!);
  if (round > 0) {
    let norm = 0;
    for (let i = 0; i < vector.length; i++) {
      vector[i]! += (next() - 0.5) * 0.02;
      norm += vector[i]! * vector[i]!;
    }
    const scale = 1 / Math.sqrt(norm);
    for (let i = 0; i < vector.length; i++) vector[i]! *= scale;
  }
  return { id: `gen-${ordinal}`, text, tokens: source.tokens, metadata: { ...source.metadata, doc_id: `gen-${ordinal}`, chunk_index: 0 }, vector };
}

/** Opens the SciFact bench index just long enough to read its chunks and embed the queries. */
export async function loadScaleSource(): Promise<ScaleSource> {
  const index = await openScifactIndex();
  try {
    const sources = await index.embedded.getChunks(SCIFACT_COLLECTION, await scifactChunkIds(index));
    const { queries } = await loadScifactJudgements(index.config.dataRoot);
    const picked = queries.slice(0, QUERY_COUNT);
    const vectors = new Float32Array(picked.length * index.embedder.dims);
    for (const [i, q] of picked.entries()) vectors.set(await embedQueryCached(index.embedder, q.text), i * index.embedder.dims);
    return { sources, texts: picked.map((q) => q.text), vectors, dims: index.embedder.dims };
  } finally {
    await index.close();
  }
}

/** Writes the same N generated chunks into any engine (the seed is N), committing every COMMIT_EVERY chunks and at the end. */
async function indexGenerated(engine: SearchEngine, index: string, sources: ChunkRecord[], chunks: number): Promise<void> {
  const next = generator(chunks);
  let batch: ChunkRecord[] = [];
  for (let ordinal = 0; ordinal < chunks; ordinal++) {
    batch.push(generatedChunk(sources[ordinal % sources.length]!, ordinal, Math.floor(ordinal / sources.length), next));
    if (batch.length === 5000 || ordinal === chunks - 1) {
      await engine.indexChunks(index, batch);
      batch = [];
    }
    if ((ordinal + 1) % COMMIT_EVERY === 0 || ordinal === chunks - 1) {
      await engine.commit(index);
      console.error(`[speed scale] ${engine.kind}: ${ordinal + 1}/${chunks} chunks indexed`);
    }
  }
}

async function build(dir: string, chunks: number): Promise<number> {
  const started = performance.now();
  const { sources, texts, vectors, dims } = await loadScaleSource();
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, 'queries.json'), JSON.stringify({ texts, dims }));
  writeFileSync(join(dir, 'queries.f32'), Buffer.from(vectors.buffer));
  const engine = createEmbeddedEngine({ dir: join(dir, 'index') });
  await engine.ensureIndex(INDEX, dims);
  await indexGenerated(engine, INDEX, sources, chunks);
  await engine.close();
  writeFileSync(join(dir, 'built.json'), JSON.stringify({ chunks }));
  return round1((performance.now() - started) / 1000);
}

function memory(): { heap: number; rss: number } {
  (globalThis as { gc?: () => void }).gc?.();
  const usage = process.memoryUsage();
  return { heap: usage.heapUsed + usage.arrayBuffers, rss: usage.rss };
}

async function latencies(engine: SearchEngine, index: string, mode: RetrievalMode, texts: string[], vectors: Float32Array, dims: number): Promise<number[]> {
  const times: number[] = [];
  for (let round = 0; round < 2; round++) {
    for (const [i, text] of texts.entries()) {
      const started = performance.now();
      await engine.search({ index, mode, text, vector: vectors.subarray(i * dims, (i + 1) * dims), limit: 10 });
      if (round === 1) times.push(performance.now() - started);
    }
  }
  return times.sort((a, b) => a - b);
}

const at = (sorted: number[], p: number): number => round2(sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!);

/** p50 and p95 in each mode, the modes one after another over the same queries. */
async function latencyFigures(engine: SearchEngine, index: string, texts: string[], vectors: Float32Array, dims: number): Promise<LatencyFigures> {
  const hybrid = await latencies(engine, index, 'hybrid', texts, vectors, dims);
  const sparse = await latencies(engine, index, 'sparse', texts, vectors, dims);
  const dense = await latencies(engine, index, 'dense', texts, vectors, dims);
  return { hybridP50: at(hybrid, 50), hybridP95: at(hybrid, 95), sparseP50: at(sparse, 50), sparseP95: at(sparse, 95), denseP50: at(dense, 50), denseP95: at(dense, 95) };
}

/** Builds the index when absent (data/bench/scale/<chunks>), then loads it and measures. */
export async function runScaleWorker(chunks: number): Promise<EmbeddedScaleFigures> {
  const dir = join(BENCH_DIR, 'scale', String(chunks));
  const built = existsSync(join(dir, 'built.json')) && (JSON.parse(readFileSync(join(dir, 'built.json'), 'utf8')) as { chunks: number }).chunks === chunks;
  const buildSeconds = built ? null : await build(dir, chunks);
  const { texts, dims } = JSON.parse(readFileSync(join(dir, 'queries.json'), 'utf8')) as { texts: string[]; dims: number };
  const raw = readFileSync(join(dir, 'queries.f32'));
  const vectors = new Float32Array(raw.buffer.slice(raw.byteOffset, raw.byteOffset + raw.byteLength));
  const before = memory();
  const started = performance.now();
  const engine = createEmbeddedEngine({ dir: join(dir, 'index') });
  const stats = await engine.stats(INDEX);
  const loadSeconds = round2((performance.now() - started) / 1000);
  const after = memory();
  const latency = await latencyFigures(engine, INDEX, texts, vectors, dims);
  await engine.close();
  return {
    engine: 'embedded',
    chunks: stats.chunks,
    buildSeconds,
    loadSeconds,
    indexMB: mb(stats.bytes),
    heapMB: mb(after.heap - before.heap),
    rssMB: mb(after.rss - before.rss),
    ...latency,
  };
}

interface NodesStatsBody {
  nodes: Record<string, { jvm: { mem: { heap_used_in_bytes: number; heap_max_in_bytes: number } } }>;
}

/** The single node's JVM heap, used and maximum. */
async function jvmHeap(url: string): Promise<{ used: number; max: number }> {
  const response = await fetch(`${url}/_nodes/stats/jvm`);
  if (!response.ok) throw new Error(`GET /_nodes/stats/jvm answered ${response.status}`);
  const [node] = Object.values(((await response.json()) as NodesStatsBody).nodes);
  if (!node) throw new Error('GET /_nodes/stats/jvm listed no node');
  return { used: node.jvm.mem.heap_used_in_bytes, max: node.jvm.mem.heap_max_in_bytes };
}

/**
 * One OpenSearch scale point on a node of its own (a fresh home, so the heap figures hold this index alone, as each
 * embedded point runs in a fresh process): the generated chunks indexed through the engine the service uses, then
 * searched with the same queries. The index and the node's home are deleted afterwards, so nothing is reused.
 */
export async function runOpenSearchScalePoint(chunks: number, source: ScaleSource): Promise<OpenSearchScaleFigures> {
  const home = join(BENCH_DIR, 'opensearch-scale');
  const index = `${INDEX}-${chunks}`;
  rmSync(home, { recursive: true, force: true });
  const node = await startOpenSearchNode({ dataDir: home, component: readComponent('opensearch', cacheDirFrom(process.env)) });
  const engine = createOpenSearchEngine({ url: node.url });
  try {
    const before = await jvmHeap(node.url);
    const started = performance.now();
    await engine.ensureIndex(index, source.dims);
    await indexGenerated(engine, index, source.sources, chunks);
    const indexSeconds = (performance.now() - started) / 1000;
    const stats = await engine.stats(index);
    const after = await jvmHeap(node.url);
    console.error(`[speed scale] opensearch: ${chunks} chunks indexed in ${round1(indexSeconds)} s; searching`);
    const latency = await latencyFigures(engine, index, source.texts, source.vectors, source.dims);
    return {
      engine: 'opensearch',
      chunks: stats.chunks,
      indexSeconds: round1(indexSeconds),
      chunksPerSecond: Math.round(chunks / indexSeconds),
      indexMB: mb(stats.bytes),
      jvmHeapBeforeMB: mb(before.used),
      jvmHeapMB: mb(after.used),
      jvmHeapMaxMB: mb(after.max),
      ...latency,
    };
  } finally {
    await engine.deleteIndex(index).catch((error: unknown) => console.error(`[speed scale] deleting ${index} failed: ${String(error)}`));
    await engine.close();
    await node.stop();
    rmSync(home, { recursive: true, force: true });
  }
}
