// The scale benchmark's machinery: N generated chunks (real SciFact texts and vectors, replicated with rotated words
// and jittered vectors so postings and similarities keep a realistic shape) indexed into the embedded engine or an
// OpenSearch node, then searched through the engine port with real SciFact train queries in each mode, with and without
// a filter; the exact dense top 10 of every query is computed while the chunks are generated, so approximate search is
// measured against it on the same run. bench/scale.ts is the command; its JSON line is `ScaleReport`.
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { z } from "zod";
import { cacheDirFrom } from "../src/app/config.js";
import { modelManifestPath } from "../test/support/modelFiles.js";
import { createOnnxEmbedder } from "../src/embedding/onnxEmbedder.js";
import type { FilterNode } from "../src/filters/ast.js";
import { compileToPredicate } from "../src/filters/compileToPredicate.js";
import { readComponent, type OpenSearchComponent } from "../src/infra/components.js";
import { startOpenSearchNode, type OpenSearchNode } from "../src/infra/opensearchNode.js";
import { createEmbeddedEngine } from "../src/retrieval/engines/embedded/embeddedEngine.js";
import { dotProduct } from "../src/retrieval/fusion.js";
import { efSearchFor, largestPrimaryShard, type ShardDocs } from "../src/retrieval/engines/opensearch/denseScoring.js";
import { chunkIndexBody, FIELD } from "../src/retrieval/engines/opensearch/indexMapping.js";
import { createOpenSearchEngine } from "../src/retrieval/engines/opensearch/openSearchEngine.js";
import type { ChunkRecord, RetrievalMode, SearchEngine, VectorSearchMode } from "../src/retrieval/port.js";
import { benchConfig, loadScifactJudgements, openScifactIndex, scifactChunkIds } from "./scifactBench.js";

export type ScaleEngine = "embedded" | "opensearch";

/** The six measured searches: each retrieval mode without and with the filter. */
export const LATENCY_KEYS = ["sparse", "dense", "hybrid", "sparseFiltered", "denseFiltered", "hybridFiltered"] as const;
export type LatencyKey = (typeof LATENCY_KEYS)[number];

const percentiles = z
  .object({
    p50: z.number().nonnegative(),
    p95: z.number().nonnegative(),
    /** the lowest median of the measured rounds: the figure least disturbed by other processes on a shared machine */
    bestRoundP50: z.number().nonnegative(),
  })
  .strict();

/**
 * The one JSON line `npm run bench:scale` prints: a stable contract (test/bench/scaleReport.int.spec.ts runs the
 * command and parses its output with this schema). Latencies are ms per search through the engine port, one query
 * at a time; recall is the share of the exact dense top 10 that the engine's dense top 10 holds.
 */
export const scaleReportSchema = z
  .object({
    engine: z.enum(["embedded", "opensearch"]),
    chunks: z.number().int().positive(),
    /** how dense and hybrid search find vector candidates on this run */
    knn: z.enum(["lucene-hnsw", "exact"]),
    /** generating the chunks and indexing them through the engine port, commits included */
    indexSeconds: z.number().nonnegative(),
    chunksPerSecond: z.number().nonnegative(),
    /**
     * true when an index built by an earlier run (same chunks, source and mapping) was searched; indexSeconds is that
     * run's
     */
    indexReused: z.boolean(),
    /**
     * OpenSearch: the merge into one segment, part of indexSeconds when commit ran it after a fresh load, else the
     * --max-segments force-merge (null when neither ran)
     */
    forceMergeSeconds: z.number().nonnegative().nullable(),
    /** primary shards of the OpenSearch index, each with its own segments and graphs (null on the embedded engine) */
    shards: z.number().int().positive().nullable(),
    /** Lucene segments of the OpenSearch index as searched, all shards (null on the embedded engine) */
    segments: z.number().int().nonnegative().nullable(),
    indexMB: z.number().nonnegative(),
    /**
     * embedded: resident set of the measuring process once the index is loaded; OpenSearch: the node's JVM heap in use
     */
    memory: z
      .object({
        kind: z.enum(["rss", "jvm-heap"]),
        usedMB: z.number().nonnegative(),
        /** JVM heap maximum; null for RSS */
        maxMB: z.number().nonnegative().nullable(),
      })
      .strict(),
    latencyMs: z
      .object(
        Object.fromEntries(LATENCY_KEYS.map((key) => [key, percentiles])) as Record<LatencyKey, typeof percentiles>,
      )
      .strict(),
    /** measured rounds over the queries (after one warm-up round); every query's six searches run back to back */
    rounds: z.number().int().positive(),
    /** dense top 10 against the exact top 10 over the same chunks, unfiltered and filtered, all queries pooled */
    recallAt10VsExact: z.number().min(0).max(1),
    recallAt10VsExactFiltered: z.number().min(0).max(1),
    queries: z.number().int().positive(),
    filter: z.string(),
    /** where the replicated texts and vectors come from */
    source: z.string(),
    /** OpenSearch k-NN settings of the index (null when vectors are scored exactly) */
    hnsw: z.object({ m: z.number(), efConstruction: z.number(), efSearch: z.number() }).strict().nullable(),
    loadAverage: z.object({ before: z.number(), after: z.number() }).strict(),
  })
  .strict();

export type ScaleReport = z.infer<typeof scaleReportSchema>;

/** The chunks every generated index is made from, and the queries every run searches with. */
export interface ScaleSource {
  /**
   * e.g. "scifact-chunks (10144); copies: ..." or "scifact-abstracts (300); copies: ..." (the generator is part of the
   * name)
   */
  name: string;
  sources: ChunkRecord[];
  texts: string[];
  /** `texts.length` query vectors of `dims`, back to back */
  vectors: Float32Array;
  dims: number;
}

export const SCALE_INDEX = "generated";
const PROGRESS_EVERY = 100_000;
const BATCH = 5_000;
/** The measured filter: generated publication years are spread evenly over 2000-2024, so this keeps 9 in 25 (36%). */
export const SCALE_FILTER: FilterNode = { kind: "range", field: "publication_date", bounds: { gte: "2016" } };
export const SCALE_FILTER_TEXT = "publication_date >= 2016 (36% of the chunks)";
const YEARS = 25;

const round1 = (x: number): number => Math.round(x * 10) / 10;
const round2 = (x: number): number => Math.round(x * 100) / 100;
export const mb = (bytes: number): number => round1(bytes / 1024 / 1024);

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

/**
 * Half-width of the uniform noise added to each dimension of a copy's vector. Calibrated on SciFact: a real chunk's
 * nearest chunk of another document has cosine 0.65 (median; p90 0.79), and two copies of one chunk with this noise
 * have cosine 0.76 (median), so the copies crowd each other about as much as the closest real neighbours do. The
 * first generator used ±0.01 (copies 0.99 apart: 49 near-duplicates of every chunk at 500,000, which no deduplicated
 * corpus holds, and among which an approximate search can only guess).
 */
const VECTOR_NOISE = 0.05;
/**
 * In every report's `source` and every cache directory's name, so figures and indexes of another generator never mix.
 */
const GENERATOR = `copies: words rotated, vectors +-${VECTOR_NOISE} noise`;

/**
 * Chunk `ordinal`: its source's words rotated by a step that depends on the round (how many times the sources have
 * been used), its vector the source's plus uniform noise of ±VECTOR_NOISE per dimension, renormalized (cosine about
 * 0.87 to the source), a synthetic publication date (years 2000-2024 in turn) and open-access flag for the filter.
 */
function generatedChunk(source: ChunkRecord, ordinal: number, round: number, next: () => number): ChunkRecord {
  const words = source.text.split(" ");
  const shift = (round * 7) % Math.max(1, words.length);
  const text = round === 0 ? source.text : [...words.slice(shift), ...words.slice(0, shift)].join(" ");
  const vector = Float32Array.from(source.vector!);
  if (round > 0) {
    let norm = 0;
    for (let i = 0; i < vector.length; i++) {
      vector[i]! += (next() - 0.5) * 2 * VECTOR_NOISE;
      norm += vector[i]! * vector[i]!;
    }
    const scale = 1 / Math.sqrt(norm);
    for (let i = 0; i < vector.length; i++) vector[i]! *= scale;
  }
  const year = 2000 + (ordinal % YEARS);
  const month = String((Math.floor(ordinal / YEARS) % 12) + 1).padStart(2, "0");
  return {
    id: `gen-${ordinal}`,
    text,
    tokens: source.tokens,
    metadata: {
      ...source.metadata,
      doc_id: `gen-${ordinal}`,
      chunk_index: 0,
      publication_date: `${year}-${month}-15`,
      open_access: ordinal % 2 === 0,
    },
    vector,
  };
}

/**
 * The first `count` SciFact abstracts (title and text, one chunk each) embedded as the ingest does, cached per model.
 */
async function abstractSource(count: number, queryCount: number, workDir: string): Promise<ScaleSource> {
  const { dataRoot, cacheDir } = benchConfig();
  const embedder = await createOnnxEmbedder({ manifest: modelManifestPath(cacheDir) });
  try {
    const cacheFile = join(workDir, `source-abstracts-${count}-${queryCount}-${embedder.modelName}.json`);
    const { queries } = await loadScifactJudgements(dataRoot);
    const picked = queries.slice(0, queryCount);
    const lines = readFileSync(join(dataRoot, "scifact", "corpus.jsonl"), "utf8")
      .split("\n")
      .filter(Boolean)
      .slice(0, count);
    const docs = lines.map((line) => JSON.parse(line) as { _id: string | number; title: string; text: string });
    let vectors: number[][];
    let queryVectors: number[][];
    if (existsSync(cacheFile)) {
      ({ vectors, queryVectors } = JSON.parse(readFileSync(cacheFile, "utf8")) as {
        vectors: number[][];
        queryVectors: number[][];
      });
    } else {
      vectors = (await embedder.embedPassages(docs.map((doc) => `${doc.title}\n${doc.text}`))).map((v) =>
        Array.from(v),
      );
      queryVectors = [];
      for (const query of picked) queryVectors.push(Array.from(await embedder.embedQuery(query.text)));
      mkdirSync(workDir, { recursive: true });
      writeFileSync(cacheFile, JSON.stringify({ vectors, queryVectors }));
    }
    const sources = docs.map((doc, i): ChunkRecord => ({
      id: `abstract-${doc._id}`,
      text: doc.text,
      tokens: doc.text.split(/\s+/).length,
      metadata: { chunk_index: 0, doc_id: String(doc._id), title: doc.title },
      vector: Float32Array.from(vectors[i]!),
    }));
    const flat = new Float32Array(picked.length * embedder.dims);
    queryVectors.forEach((v, i) => flat.set(v, i * embedder.dims));
    return {
      name: `scifact-abstracts (${count}); ${GENERATOR}`,
      sources,
      texts: picked.map((q) => q.text),
      vectors: flat,
      dims: embedder.dims,
    };
  } finally {
    await embedder.close();
  }
}

/** The SciFact collection as the service ingests it (the quality benchmark's cached index; built on first use). */
async function chunkSource(queryCount: number): Promise<ScaleSource> {
  const index = await openScifactIndex();
  try {
    const sources = await index.embedded.getChunks("scifact", await scifactChunkIds(index));
    const { queries } = await loadScifactJudgements(index.config.dataRoot);
    const picked = queries.slice(0, queryCount);
    const vectors = new Float32Array(picked.length * index.embedder.dims);
    for (const [i, q] of picked.entries())
      vectors.set(await index.embedder.embedQuery(q.text), i * index.embedder.dims);
    return {
      name: `scifact-chunks (${sources.length}); ${GENERATOR}`,
      sources,
      texts: picked.map((q) => q.text),
      vectors,
      dims: index.embedder.dims,
    };
  } finally {
    await index.close();
  }
}

/** `sources` undefined: every SciFact chunk of the bench index; a number: that many SciFact abstracts embedded here. */
export function loadScaleSource(options: { sources?: number; queries: number; workDir: string }): Promise<ScaleSource> {
  return options.sources === undefined
    ? chunkSource(options.queries)
    : abstractSource(options.sources, options.queries, options.workDir);
}

/**
 * The exact dense top 10 of every query over the generated chunks, unfiltered and within the filter, kept while the
 * chunks are generated: cosine by fusion.ts's dotProduct, ties by chunk id (the engines' order for dense search).
 */
export class ExactTopTen {
  private readonly ids: string[][][];
  private readonly scores: number[][][];
  private readonly accepts = compileToPredicate(SCALE_FILTER);

  constructor(
    private readonly queries: Float32Array,
    private readonly dims: number,
  ) {
    const count = queries.length / dims;
    this.ids = [0, 1].map(() => Array.from({ length: count }, () => []));
    this.scores = [0, 1].map(() => Array.from({ length: count }, () => []));
  }

  add(chunk: ChunkRecord): void {
    const filtered = this.accepts(chunk.metadata);
    const vector = chunk.vector!;
    for (let q = 0; q < this.ids[0]!.length; q++) {
      const cosine = dotProduct(vector, this.queries, q * this.dims, this.dims);
      this.offer(0, q, chunk.id, cosine);
      if (filtered) this.offer(1, q, chunk.id, cosine);
    }
  }

  private offer(list: number, query: number, id: string, cosine: number): void {
    const ids = this.ids[list]![query]!;
    const scores = this.scores[list]![query]!;
    if (ids.length === 10 && !better(cosine, id, scores[9]!, ids[9]!)) return;
    let at = Math.min(ids.length, 9);
    if (ids.length === 10) {
      ids.pop();
      scores.pop();
    }
    while (at > 0 && better(cosine, id, scores[at - 1]!, ids[at - 1]!)) at--;
    ids.splice(at, 0, id);
    scores.splice(at, 0, cosine);
  }

  /** [unfiltered, filtered] top 10 ids per query */
  result(): { all: string[][]; filtered: string[][] } {
    return { all: this.ids[0]!, filtered: this.ids[1]! };
  }
}

function better(cosine: number, id: string, otherCosine: number, otherId: string): boolean {
  return cosine > otherCosine || (cosine === otherCosine && id < otherId);
}

/**
 * Generates the same N chunks for any engine (the seed is N) and indexes them in batches; the exact reference is
 * filled on the way. OpenSearch gets one commit at the end, as the service's ingest does (a k-NN index is merged into
 * one segment then); the embedded engine commits every PROGRESS_EVERY chunks too, which bounds the memory its
 * uncommitted chunks take and changes nothing it searches.
 */
export async function indexGenerated(
  engine: SearchEngine | undefined,
  source: ScaleSource,
  chunks: number,
  reference: ExactTopTen,
  hooks: LoadHooks = {},
): Promise<number | null> {
  const next = generator(chunks);
  let batch: ChunkRecord[] = [];
  const inFlight = new Set<Promise<void>>();
  const most = engine?.kind === "opensearch" ? LOAD_IN_FLIGHT : 1;
  const loadStarted = performance.now();
  for (let ordinal = 0; ordinal < chunks; ordinal++) {
    const chunk = generatedChunk(
      source.sources[ordinal % source.sources.length]!,
      ordinal,
      Math.floor(ordinal / source.sources.length),
      next,
    );
    reference.add(chunk);
    if (!engine) continue;
    batch.push(chunk);
    if (batch.length === BATCH || ordinal === chunks - 1) {
      while (inFlight.size >= most) await Promise.race(inFlight);
      const call: Promise<void> = engine.indexChunks(SCALE_INDEX, batch).then(() => void inFlight.delete(call));
      inFlight.add(call);
      batch = [];
    }
    if ((ordinal + 1) % PROGRESS_EVERY === 0) {
      if (engine.kind === "embedded" && ordinal !== chunks - 1) {
        await Promise.all(inFlight);
        await engine.commit(SCALE_INDEX);
      }
      console.error(
        `[scale] ${engine.kind}: ${ordinal + 1}/${chunks} chunks indexed ` +
          `(${round1((performance.now() - loadStarted) / 1000)} s)`,
      );
    }
  }
  if (!engine) return null;
  await Promise.all(inFlight);
  await hooks.beforeCommit?.();
  const started = performance.now();
  await engine.commit(SCALE_INDEX);
  const commitSeconds = round1((performance.now() - started) / 1000);
  console.error(`[scale] ${engine.kind}: committed in ${commitSeconds} s`);
  return commitSeconds;
}

/** bulk calls in flight while loading OpenSearch: one a core indexes (and grows its segment's graph) meanwhile */
const LOAD_IN_FLIGHT = 2;

export interface LoadHooks {
  /** after the last chunk is written, before the commit (which merges a k-NN index's segments into one) */
  beforeCommit?: () => Promise<void>;
}

/** The six searches of each query, in this order. */
const SEARCHES: Array<{ key: LatencyKey; mode: RetrievalMode; filter: FilterNode | undefined }> = LATENCY_KEYS.map(
  (key) => ({
    key,
    mode: key.replace("Filtered", "") as RetrievalMode,
    filter: key.endsWith("Filtered") ? SCALE_FILTER : undefined,
  }),
);

const at = (sorted: number[], p: number): number =>
  round2(sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!);

function recall(found: string[][], exact: string[][]): number {
  let hit = 0;
  let wanted = 0;
  found.forEach((ids, q) => {
    const want = new Set(exact[q]);
    wanted += want.size;
    hit += ids.filter((id) => want.has(id)).length;
  });
  return wanted === 0 ? 1 : Math.round((hit / wanted) * 10_000) / 10_000;
}

export interface SearchFigures {
  latencyMs: ScaleReport["latencyMs"];
  rounds: number;
  recallAt10VsExact: number;
  recallAt10VsExactFiltered: number;
}

/**
 * One warm-up round (caches, JIT), then `rounds` measured rounds over every query; each query runs its six searches
 * back to back, so load from other processes on this shared machine falls on every kind of search alike. p50 and p95
 * pool every measured search; bestRoundP50 is the lowest of the rounds' medians (the least disturbed round).
 * Recall comes from the dense searches (their hits are the same in every round).
 */
export async function measureSearches(
  engine: SearchEngine,
  source: ScaleSource,
  exact: { all: string[][]; filtered: string[][] },
  rounds: number,
): Promise<SearchFigures> {
  const times = new Map<LatencyKey, number[][]>(
    LATENCY_KEYS.map((key) => [key, Array.from({ length: rounds }, () => [])]),
  );
  const hits = { dense: [] as string[][], denseFiltered: [] as string[][] };
  for (let round = 0; round <= rounds; round++) {
    for (const [i, text] of source.texts.entries()) {
      const vector = source.vectors.subarray(i * source.dims, (i + 1) * source.dims);
      for (const { key, mode, filter } of SEARCHES) {
        const started = performance.now();
        const found = await engine.search({ index: SCALE_INDEX, mode, text, vector, limit: 10, filter });
        if (round === 0) {
          if (key === "dense" || key === "denseFiltered") hits[key].push(found.map((hit) => hit.id));
        } else times.get(key)![round - 1]!.push(performance.now() - started);
      }
    }
    if (round > 0) console.error(`[scale] ${engine.kind}: round ${round}/${rounds} measured`);
  }
  const latencyMs = {} as ScaleReport["latencyMs"];
  for (const [key, perRound] of times) {
    const pooled = perRound.flat().sort((a, b) => a - b);
    const roundMedians = perRound.map((list) =>
      at(
        [...list].sort((a, b) => a - b),
        50,
      ),
    );
    latencyMs[key] = { p50: at(pooled, 50), p95: at(pooled, 95), bestRoundP50: Math.min(...roundMedians) };
    console.error(
      `[scale] ${engine.kind} ${key}: p50 ${latencyMs[key].p50} ms, p95 ${latencyMs[key].p95} ms, best ` +
        `round's p50 ${latencyMs[key].bestRoundP50} ms`,
    );
  }
  return {
    latencyMs,
    rounds,
    recallAt10VsExact: recall(hits.dense, exact.all),
    recallAt10VsExactFiltered: recall(hits.denseFiltered, exact.filtered),
  };
}

// ---------------------------------------------------------------------------------------------------------------
// embedded engine

interface EmbeddedBuild {
  chunks: number;
  source: string;
  indexSeconds: number;
  exact: { all: string[][]; filtered: string[][] };
}

export function embeddedDir(workDir: string, chunks: number, source: ScaleSource | string): string {
  const name = typeof source === "string" ? source : source.name;
  return join(workDir, `embedded-${chunks}-${name.replace(/[^a-z0-9]+/gi, "-").replace(/-$/, "")}`);
}

/**
 * Builds the embedded index of N generated chunks in `dir` unless a finished build of the same chunks and source is
 * there.
 */
export async function buildEmbedded(
  dir: string,
  source: ScaleSource,
  chunks: number,
): Promise<{ build: EmbeddedBuild; reused: boolean }> {
  const builtFile = join(dir, "built.json");
  if (existsSync(builtFile)) {
    const build = JSON.parse(readFileSync(builtFile, "utf8")) as EmbeddedBuild;
    if (build.chunks === chunks && build.source === source.name && build.exact.all.length === source.texts.length)
      return { build, reused: true };
  }
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  writeFileSync(
    join(dir, "queries.json"),
    JSON.stringify({ texts: source.texts, dims: source.dims, name: source.name }),
  );
  writeFileSync(
    join(dir, "queries.f32"),
    Buffer.from(source.vectors.buffer, source.vectors.byteOffset, source.vectors.byteLength),
  );
  const started = performance.now();
  const engine = createEmbeddedEngine({ dir: join(dir, "index") });
  await engine.ensureIndex(SCALE_INDEX, source.dims);
  const reference = new ExactTopTen(source.vectors, source.dims);
  await indexGenerated(engine, source, chunks, reference);
  await engine.close();
  const build: EmbeddedBuild = {
    chunks,
    source: source.name,
    indexSeconds: round1((performance.now() - started) / 1000),
    exact: reference.result(),
  };
  writeFileSync(builtFile, JSON.stringify(build));
  return { build, reused: false };
}

/** The process's own memory after a collection, when run with --expose-gc. */
function memoryNow(): { heap: number; rss: number } {
  (globalThis as { gc?: () => void }).gc?.();
  const usage = process.memoryUsage();
  return { heap: usage.heapUsed + usage.arrayBuffers, rss: usage.rss };
}

/** Loads a built embedded index in this (fresh) process and measures it; the queries come from the build's files. */
export async function measureEmbedded(
  dir: string,
  rounds: number,
): Promise<Omit<ScaleReport, "chunksPerSecond" | "indexSeconds" | "indexReused" | "loadAverage">> {
  const build = JSON.parse(readFileSync(join(dir, "built.json"), "utf8")) as EmbeddedBuild;
  const { texts, dims, name } = JSON.parse(readFileSync(join(dir, "queries.json"), "utf8")) as {
    texts: string[];
    dims: number;
    name: string;
  };
  const raw = readFileSync(join(dir, "queries.f32"));
  const vectors = new Float32Array(raw.buffer.slice(raw.byteOffset, raw.byteOffset + raw.byteLength));
  const engine = createEmbeddedEngine({ dir: join(dir, "index") });
  try {
    const stats = await engine.stats(SCALE_INDEX);
    const source: ScaleSource = { name, sources: [], texts, vectors, dims };
    const searches = await measureSearches(engine, source, build.exact, rounds);
    const after = memoryNow();
    return {
      engine: "embedded",
      chunks: stats.chunks,
      knn: "exact",
      forceMergeSeconds: null,
      shards: null,
      segments: null,
      indexMB: mb(stats.bytes),
      memory: { kind: "rss", usedMB: mb(after.rss), maxMB: null },
      ...searches,
      queries: texts.length,
      filter: SCALE_FILTER_TEXT,
      source: name,
      hnsw: null,
    };
  } finally {
    await engine.close();
  }
}

// ---------------------------------------------------------------------------------------------------------------
// OpenSearch

interface NodesStatsBody {
  nodes: Record<string, { jvm: { mem: { heap_used_in_bytes: number; heap_max_in_bytes: number } } }>;
}

/** The single node's JVM heap, used and maximum. */
async function jvmHeap(url: string): Promise<{ used: number; max: number }> {
  const response = await fetch(`${url}/_nodes/stats/jvm`);
  if (!response.ok) throw new Error(`GET /_nodes/stats/jvm answered ${response.status}`);
  const [node] = Object.values(((await response.json()) as NodesStatsBody).nodes);
  if (!node) throw new Error("GET /_nodes/stats/jvm listed no node");
  return { used: node.jvm.mem.heap_used_in_bytes, max: node.jvm.mem.heap_max_in_bytes };
}

/** The chunks of the index's largest primary shard: what the service chooses its k-NN queries' ef_search by. */
async function largestShardChunks(url: string, index: string): Promise<number> {
  const response = await fetch(`${url}/_cat/shards/${index}?format=json&h=prirep,docs`);
  if (!response.ok) throw new Error(`GET _cat/shards/${index} answered ${response.status}`);
  return largestPrimaryShard((await response.json()) as ShardDocs[]);
}

async function segmentCount(url: string, index: string): Promise<number> {
  const response = await fetch(`${url}/${index}/_stats/segments`);
  if (!response.ok) throw new Error(`GET ${index}/_stats/segments answered ${response.status}`);
  const body = (await response.json()) as { _all: { primaries: { segments: { count: number } } } };
  return body._all.primaries.segments.count;
}

/** Force-merges as a task (a merge of HNSW graphs can outlast any HTTP timeout) and waits for it; seconds taken. */
async function forceMerge(url: string, index: string, maxSegments: number): Promise<number> {
  const started = performance.now();
  const response = await fetch(
    `${url}/${index}/_forcemerge?max_num_segments=${maxSegments}&wait_for_completion=false`,
    { method: "POST" },
  );
  if (!response.ok) throw new Error(`force-merge answered ${response.status}: ${await response.text()}`);
  const { task } = (await response.json()) as { task: string };
  for (;;) {
    await new Promise((resolve) => setTimeout(resolve, 5000));
    const status = (await (await fetch(`${url}/_tasks/${task}`)).json()) as { completed?: boolean; error?: unknown };
    if (status.error) throw new Error(`force-merge failed: ${JSON.stringify(status.error)}`);
    if (status.completed) {
      // the index refreshes only when told (refresh_interval -1): without this, searches keep reading the old segments
      const refreshed = await fetch(`${url}/${index}/_refresh`, { method: "POST" });
      if (!refreshed.ok) throw new Error(`refresh after the force-merge answered ${refreshed.status}`);
      return round1((performance.now() - started) / 1000);
    }
  }
}

/**
 * The index's settings while the generated chunks load. The k-NN plugin's `index.knn.advanced.approximate_threshold`
 * (-1: no graph while loading) does not apply here: the plugin (2.19.1) reads it only for its native engines (faiss,
 * nmslib: BasePerFieldKnnVectorsFormat hands it to NativeEngines990KnnVectorsFormat), and the Lucene engine, the one
 * provisioned, grows each segment's HNSW graph as it indexes whatever the setting. What costs the load is merging:
 * each merge of k-NN segments re-inserts all but the largest segment's vectors into its graph, so the merge policy's
 * cascade of merges (tens of segments merged into larger ones, those again) built the graph several times over. While
 * loading, the merge policy lets up to LOADING_SEGMENTS_PER_TIER segments stand (none are merged), and the translog is
 * fsynced every 5 s rather than every bulk request; once loaded, both go back to the index's defaults and commit's
 * force-merge builds the one graph once (its largest segment's graph plus every other vector).
 */
const LOADING_SEGMENTS_PER_TIER = 1000;
const LOADING_SETTINGS = {
  translog: { durability: "async" },
  merge: { policy: { segments_per_tier: LOADING_SEGMENTS_PER_TIER } },
};
const LOADED_SETTINGS = { translog: { durability: "request" }, merge: { policy: { segments_per_tier: null } } };

async function putIndexSettings(url: string, settings: Record<string, unknown>): Promise<void> {
  const response = await fetch(`${url}/scale-${SCALE_INDEX}/_settings`, {
    method: "PUT",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ index: settings }),
  });
  if (!response.ok) throw new Error(`PUT _settings answered ${response.status}: ${await response.text()}`);
}

export interface OpenSearchRunOptions {
  workDir: string;
  /** 'auto': the provisioned node (k-NN when its plugin is there); 'exact': a node started without the plugin's jars */
  knn: "auto" | "exact";
  /** JVM heap of the node, e.g. "1g" (default: the provisioned launcher's) */
  heap?: string;
  /** primary shards of the index (default 1) */
  shards?: number;
  /** force-merge the index to at most this many segments (per shard) after indexing */
  maxSegments?: number;
  /**
   * keep the node's home (and index) for the next run with the same chunks, source and mode, which then skips indexing
   */
  keep: boolean;
  rounds: number;
  /**
   * k-NN queries' ef_search (default: efSearchFor the largest shard's chunks): a search-time setting, so a kept index
   * can be measured with several
   */
  efSearch?: number;
}

function nodeComponent(options: OpenSearchRunOptions): OpenSearchComponent {
  const component = readComponent("opensearch", cacheDirFrom(process.env));
  const classpath =
    options.knn === "exact"
      ? component.classpath
          .split(":")
          .filter((entry) => !entry.includes("opensearch-knn"))
          .join(":")
      : component.classpath;
  const jvmArgs = options.heap
    ? [...component.jvmArgs.filter((arg) => !/^-Xm[sx]/.test(arg)), `-Xms${options.heap}`, `-Xmx${options.heap}`]
    : component.jvmArgs;
  return { ...component, classpath, jvmArgs };
}

interface OpenSearchBuild {
  chunks: number;
  source: string;
  indexSeconds: number;
  forceMergeSeconds: number | null;
  exact: { all: string[][]; filtered: string[][] };
}

/**
 * One OpenSearch run on a node of its own (a fresh home, so the heap holds this index alone): the generated chunks
 * indexed through the service's engine (bulk, no refresh until each commit, no replicas), optionally force-merged, then
 * searched. The home is deleted afterwards unless `keep`.
 */
export async function runOpenSearch(
  chunks: number,
  source: ScaleSource,
  options: OpenSearchRunOptions,
): Promise<Omit<ScaleReport, "loadAverage">> {
  const shards = options.shards ?? 1;
  const home = join(
    options.workDir,
    `opensearch-${options.knn}-${chunks}${shards === 1 ? "" : `-${shards}-shards`}-` +
      source.name.replace(/[^a-z0-9]+/gi, "-").replace(/-$/, ""),
  );
  const builtFile = join(home, "built.json");
  let build: OpenSearchBuild | undefined;
  if (options.keep && existsSync(builtFile)) {
    const previous = JSON.parse(readFileSync(builtFile, "utf8")) as OpenSearchBuild;
    if (
      previous.chunks === chunks &&
      previous.source === source.name &&
      previous.exact.all.length === source.texts.length
    )
      build = previous;
  }
  if (!build) rmSync(home, { recursive: true, force: true });
  let node: OpenSearchNode | undefined;
  const engine = await (async () => {
    node = await startOpenSearchNode({ dataDir: home, component: nodeComponent(options), startTimeoutMs: 300_000 });
    return createOpenSearchEngine({
      url: node.url,
      indexPrefix: "scale-",
      efSearch: options.efSearch,
      indexLayout: { shards, replicas: 0 },
    });
  })();
  const indexReused = build !== undefined;
  try {
    const knn: VectorSearchMode = await engine.vectorSearchMode();
    if (!build) {
      const started = performance.now();
      await engine.ensureIndex(SCALE_INDEX, source.dims);
      const reference = new ExactTopTen(source.vectors, source.dims);
      const url = node!.url;
      await putIndexSettings(url, LOADING_SETTINGS);
      const commitSeconds = await indexGenerated(engine, source, chunks, reference, {
        beforeCommit: async () => {
          const refreshed = await fetch(`${url}/scale-${SCALE_INDEX}/_refresh`, { method: "POST" });
          if (!refreshed.ok) throw new Error(`refresh after loading answered ${refreshed.status}`);
          console.error(`[scale] opensearch: loaded as ${await segmentCount(url, `scale-${SCALE_INDEX}`)} segments`);
          await putIndexSettings(url, LOADED_SETTINGS);
        },
      });
      const indexSeconds = round1((performance.now() - started) / 1000);
      build = {
        chunks,
        source: source.name,
        indexSeconds,
        forceMergeSeconds: commitSeconds,
        exact: reference.result(),
      };
      if (options.keep) writeFileSync(builtFile, JSON.stringify(build));
    }
    // also on a kept index: measure it as indexed first, then again merged
    if (
      options.maxSegments !== undefined &&
      (await segmentCount(node!.url, `scale-${SCALE_INDEX}`)) > options.maxSegments
    ) {
      build.forceMergeSeconds = await forceMerge(node!.url, `scale-${SCALE_INDEX}`, options.maxSegments);
      console.error(
        `[scale] opensearch: force-merged to ${options.maxSegments} segment(s) in ${build.forceMergeSeconds} s`,
      );
      if (options.keep) writeFileSync(builtFile, JSON.stringify(build));
    }
    const stats = await engine.stats(SCALE_INDEX);
    console.error(
      `[scale] opensearch (${knn}): ${stats.chunks} chunks, ${build.indexSeconds} s to index` +
        `${indexReused ? " (earlier run)" : ""}; searching`,
    );
    const searches = await measureSearches(engine, source, build.exact, options.rounds);
    const heap = await jvmHeap(node!.url);
    return {
      engine: "opensearch",
      chunks: stats.chunks,
      knn,
      indexSeconds: build.indexSeconds,
      chunksPerSecond: Math.round(chunks / Math.max(build.indexSeconds, 0.001)),
      indexReused,
      forceMergeSeconds: build.forceMergeSeconds,
      shards,
      segments: await segmentCount(node!.url, `scale-${SCALE_INDEX}`),
      indexMB: mb(stats.bytes),
      memory: { kind: "jvm-heap", usedMB: mb(heap.used), maxMB: mb(heap.max) },
      ...searches,
      queries: source.texts.length,
      filter: SCALE_FILTER_TEXT,
      source: source.name,
      hnsw:
        knn === "lucene-hnsw"
          ? {
              ...hnswBuildParameters(),
              efSearch: options.efSearch ?? efSearchFor(await largestShardChunks(node!.url, `scale-${SCALE_INDEX}`)),
            }
          : null,
    };
  } finally {
    if (!options.keep)
      await engine
        .deleteIndex(SCALE_INDEX)
        .catch((error: unknown) => console.error(`[scale] deleting the index failed: ${String(error)}`));
    await engine.close();
    await node?.stop();
    if (!options.keep) rmSync(home, { recursive: true, force: true });
  }
}

/** The HNSW graph's build parameters, read from the body the engine creates a k-NN chunk index with. */
function hnswBuildParameters(): { m: number; efConstruction: number } {
  const body = chunkIndexBody(384, "knn") as {
    mappings: { properties: Record<string, { method: { parameters: { m: number; ef_construction: number } } }> };
  };
  const { m, ef_construction } = body.mappings.properties[FIELD.vectorKnn]!.method.parameters;
  return { m, efConstruction: ef_construction };
}
