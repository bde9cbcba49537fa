// Retrieval quality on SciFact train queries: nDCG@10 and Recall@100 (documents counted once, at their best chunk)
// for sparse, dense and hybrid on the embedded engine and on OpenSearch, through the service's engines and reranker.
// With both engines, the same run also compares OpenSearch's vector search (lucene-hnsw when the node has the k-NN
// plugin) with the embedded engine's exact one: recall@10 of the chunk top 10 and the nDCG@10 differences.
// It also prints what a min_relevance threshold does to a default search (10 rows, the collection's own mode, the
// embedded engine): for each threshold the share of rows held back, the share of relevant rows lost and the cost per
// relevant row delivered (the recommendation in docs/api.md comes from it).
// It prints the figures of the served answers too (nDCG@10 of a default search's 10 rows, and of 10 rows one per
// document), and the SYNERGY reviews (bench/synergyBench.ts: our phrasings of ten systematic reviews' needs, as
// questions and as keywords, in the openalex-synergy collection): topical precision@10 and included recall@30 and
// @100 per query form. Each of these is shown before and after a document's further chunks are set below its first
// (src/retrieval/repeats.ts).
// Prints JSON, then a table. The first run embeds the corpus into data/bench (minutes); later runs reuse it.
// Usage: npm run bench:quality [-- --engines embedded,opensearch] [--queries N] [--tune] [--fit] [--thresholds]
//   [--synergy]
//   --tune        sweeps fusion variants offline (alpha, BM25 normalization, candidate depth, missing BM25) on train
//   --fit         fits one-score curves per mode on train (the relevance model itself: npm run bench:relevance)
//   --thresholds  only the min_relevance table
//   --calibration only the relevance calibration table (bench/relevanceCalibration.ts), which every full run ends with
//   --synergy     only the SYNERGY figures and the served SciFact figures, before and after (about a minute)
//   --skip-assisted  without the assisted-recall figures (bench/assistedRecall.ts), printed last otherwise
import { join } from "node:path";
import { loadavg } from "node:os";
import { parseArgs } from "node:util";
import { startOpenSearchNode, type OpenSearchNode } from "../src/infra/opensearchNode.js";
import { readComponent } from "../src/infra/components.js";
import { createOpenSearchEngine } from "../src/retrieval/engines/opensearch/openSearchEngine.js";
import { HYBRID_ALPHA, hybridCandidateCount, dotProduct } from "../src/retrieval/fusion.js";
import type { RetrievalMode, SearchEngine } from "../src/retrieval/port.js";
import { searchCollections } from "../src/usecases/search/collectionSearch.js";
import { embedQueryCached } from "../src/retrieval/queryVectorCache.js";
import {
  copyIndex,
  loadScifactJudgements,
  openScifactIndex,
  scifactChunkIds,
  SCIFACT_COLLECTION,
  type BenchQuery,
  type ScifactIndex,
} from "./scifactBench.js";
import { documentRanking, mean, ndcgAt, recallAt } from "./retrievalMetrics.js";
import { selectRows } from "../src/retrieval/rowSelection.js";
import { chargeLines, totalMicros } from "../src/domain/organization.js";
import { pricePer1000Micros } from "../src/domain/collectionDefinitions.js";
import { formatCredits } from "../src/domain/money.js";
import { calibrationSection } from "./relevanceCalibration.js";
import { REPEAT_CHUNK_PENALTY } from "../src/retrieval/repeats.js";
import { MAX_DOCUMENT_DEPTH } from "../src/usecases/search/pipeline.js";
import {
  loadSynergyLabels,
  loadSynergyQueries,
  QUERY_FORMS,
  SPLITS,
  SYNERGY_COLLECTION,
  synergyTable,
  type SynergyFigures,
} from "./synergyBench.js";
import { ingestBenchCollection, preparedRecords } from "./scifactBench.js";
import { firstPerDocument } from "../src/retrieval/rowSelection.js";
import { assistedRecall, printAssistedRecall } from "./assistedRecall.js";

const { values: args } = parseArgs({
  options: {
    engines: { type: "string", default: "embedded,opensearch" },
    queries: { type: "string" },
    tune: { type: "boolean", default: false },
    fit: { type: "boolean", default: false },
    thresholds: { type: "boolean", default: false },
    calibration: { type: "boolean", default: false },
    synergy: { type: "boolean", default: false },
    // the assisted-recall figures (bench/assistedRecall.ts) start the whole service: skip them for a quick run
    "skip-assisted": { type: "boolean", default: false },
  },
});

const MODES: RetrievalMode[] = ["sparse", "dense", "hybrid"];
/** chunks asked for per query: enough to reach 100 distinct documents (SciFact abstracts make about 2 chunks each) */
const CHUNK_DEPTH = 300;

interface ModeFigures {
  ndcg10: number;
  recall100: number;
  msPerQuery: number;
}

type QueryVectors = Map<string, Float32Array>;

async function embedQueries(index: ScifactIndex, queries: BenchQuery[]): Promise<QueryVectors> {
  const vectors: QueryVectors = new Map();
  for (const query of queries) vectors.set(query.id, await embedQueryCached(index.embedder, query.text));
  return vectors;
}

/**
 * Runs every query through the service's retrieval step (searchCollections: query embedding, engine, fragment guard,
 * reranker) on one engine, with the collection's retrieval mode set to `mode`; the query vectors are embedded first.
 */
async function evaluate(
  index: ScifactIndex,
  engine: SearchEngine,
  mode: RetrievalMode,
  queries: BenchQuery[],
  relevant: Map<string, Set<string>>,
  repeatPenalty: number = REPEAT_CHUNK_PENALTY,
): Promise<ModeFigures> {
  const ndcg: number[] = [];
  const recall: number[] = [];
  const collection = { ...index.collection, retrieval: mode };
  const started = performance.now();
  for (const query of queries) {
    const merged = await searchCollections(
      { engine, embedder: index.embedder },
      [{ key: SCIFACT_COLLECTION, collection }],
      query.text,
      CHUNK_DEPTH,
      undefined,
      repeatPenalty,
    );
    const ranking = documentRanking(merged.map((m) => String(m.hit.chunk.metadata.doc_id)));
    const judged = relevant.get(query.id) ?? new Set<string>();
    ndcg.push(ndcgAt(ranking, judged, 10));
    recall.push(recallAt(ranking, judged, 100));
  }
  return {
    ndcg10: round4(mean(ndcg)),
    recall100: round4(mean(recall)),
    msPerQuery: round2((performance.now() - started) / queries.length),
  };
}

const round4 = (x: number): number => Math.round(x * 10_000) / 10_000;

/** Share of the exact engine's top 10 chunks that the other engine's top 10 holds, over every query, in one mode. */
async function recallAt10(
  engine: SearchEngine,
  exact: SearchEngine,
  mode: RetrievalMode,
  queries: BenchQuery[],
  vectors: QueryVectors,
): Promise<number> {
  let found = 0;
  let wanted = 0;
  for (const query of queries) {
    const request = { index: SCIFACT_COLLECTION, mode, text: query.text, vector: vectors.get(query.id), limit: 10 };
    const [got, want] = await Promise.all([engine.search(request), exact.search(request)]);
    const wantIds = new Set(want.map((hit) => hit.id));
    wanted += wantIds.size;
    found += got.filter((hit) => wantIds.has(hit.id)).length;
  }
  return round4(found / Math.max(1, wanted));
}
const round2 = (x: number): number => Math.round(x * 100) / 100;

/** Per query: every chunk's cosine and BM25 (0 when no term matches) and the query's BM25 ceiling. */
interface QueryFeatures {
  query: BenchQuery;
  cosines: Float32Array;
  bm25: Float32Array;
  ceiling: number;
}

async function collectFeatures(
  index: ScifactIndex,
  ids: string[],
  queries: BenchQuery[],
  vectors: QueryVectors,
): Promise<{ docIds: string[]; features: QueryFeatures[] }> {
  const dims = index.embedder.dims;
  const chunks = await index.embedded.getChunks(SCIFACT_COLLECTION, ids);
  const matrix = new Float32Array(chunks.length * dims);
  chunks.forEach((chunk, ordinal) => matrix.set(chunk.vector!, ordinal * dims));
  const ordinalOf = new Map(chunks.map((chunk, ordinal) => [chunk.id, ordinal]));
  const docIds = chunks.map((chunk) => String(chunk.metadata.doc_id));
  const features: QueryFeatures[] = [];
  for (const query of queries) {
    const vector = vectors.get(query.id)!;
    const cosines = new Float32Array(chunks.length);
    for (let ordinal = 0; ordinal < chunks.length; ordinal++)
      cosines[ordinal] = dotProduct(vector, matrix, ordinal * dims, dims);
    const bm25 = new Float32Array(chunks.length);
    let ceiling = 0;
    for (const hit of await index.embedded.search({
      index: SCIFACT_COLLECTION,
      mode: "sparse",
      text: query.text,
      limit: chunks.length,
    })) {
      bm25[ordinalOf.get(hit.id)!] = hit.sparse!;
      if (hit.score > 0) ceiling = hit.sparse! / hit.score;
    }
    features.push({ query, cosines, bm25, ceiling });
  }
  return { docIds, features };
}

interface FusionVariant {
  name: string;
  normalization: "ceiling" | "list-max" | "rrf";
  alpha: number;
  /** candidates per retriever, as a function of the chunk depth asked for */
  pool: number;
  /** a dense candidate outside the sparse pool: its BM25 counted as 0 (what the engines do) or exactly */
  missingSparse: "zero" | "exact";
}

function topOrdinals(scores: Float32Array, count: number, eligible?: (ordinal: number) => boolean): number[] {
  const ordinals: number[] = [];
  for (let i = 0; i < scores.length; i++) if (!eligible || eligible(i)) ordinals.push(i);
  ordinals.sort((a, b) => scores[b]! - scores[a]!);
  return ordinals.slice(0, count);
}

function fuse(variant: FusionVariant, f: QueryFeatures, depth: number): number[] {
  const denseTop = topOrdinals(f.cosines, variant.pool);
  const sparseTop = topOrdinals(f.bm25, variant.pool, (i) => f.bm25[i]! > 0);
  const inSparse = new Set(sparseTop);
  const candidates = [...new Set([...denseTop, ...sparseTop])];
  const sparseOf = (i: number): number => (inSparse.has(i) || variant.missingSparse === "exact" ? f.bm25[i]! : 0);
  let score: (i: number) => number;
  if (variant.normalization === "rrf") {
    const denseRank = new Map(denseTop.map((i, r) => [i, r]));
    const sparseRank = new Map(sparseTop.map((i, r) => [i, r]));
    score = (i) =>
      (denseRank.has(i) ? 1 / (60 + denseRank.get(i)!) : 0) + (sparseRank.has(i) ? 1 / (60 + sparseRank.get(i)!) : 0);
  } else {
    const denominator = variant.normalization === "ceiling" ? f.ceiling : Math.max(...candidates.map(sparseOf), 0);
    score = (i) =>
      variant.alpha * Math.min(1, Math.max(0, f.cosines[i]!)) +
      (1 - variant.alpha) * (denominator > 0 ? sparseOf(i) / denominator : 0);
  }
  return candidates
    .map((i) => ({ i, s: score(i) }))
    .sort((a, b) => b.s - a.s)
    .slice(0, depth)
    .map((c) => c.i);
}

function scoreVariant(
  variant: FusionVariant,
  features: QueryFeatures[],
  docIds: string[],
  relevant: Map<string, Set<string>>,
): { ndcg10: number; recall100: number } {
  const ndcg: number[] = [];
  const recall: number[] = [];
  for (const f of features) {
    const ranking = documentRanking(fuse(variant, f, CHUNK_DEPTH).map((i) => docIds[i]!));
    const judged = relevant.get(f.query.id)!;
    ndcg.push(ndcgAt(ranking, judged, 10));
    recall.push(recallAt(ranking, judged, 100));
  }
  return { ndcg10: round4(mean(ndcg)), recall100: round4(mean(recall)) };
}

function tune(features: QueryFeatures[], docIds: string[], relevant: Map<string, Set<string>>): void {
  const results: Array<FusionVariant & { ndcg10: number; recall100: number }> = [];
  const defaultPool = hybridCandidateCount(CHUNK_DEPTH);
  const run = (variant: FusionVariant): void => {
    results.push({ ...variant, ...scoreVariant(variant, features, docIds, relevant) });
  };
  run({ name: "rrf k=60", normalization: "rrf", alpha: 0, pool: defaultPool, missingSparse: "zero" });
  for (const normalization of ["ceiling", "list-max"] as const) {
    for (let alpha = 0; alpha <= 1.0001; alpha += 0.05) {
      run({
        name: `${normalization} a=${alpha.toFixed(2)}`,
        normalization,
        alpha: round2(alpha),
        pool: defaultPool,
        missingSparse: "zero",
      });
    }
  }
  const best = [...results].sort((a, b) => b.ndcg10 - a.ndcg10)[0]!;
  for (const pool of [100, 300, 600, 1500, 3000]) {
    for (const missingSparse of ["zero", "exact"] as const) {
      run({
        ...best,
        name: `${best.normalization} a=${best.alpha} pool=${pool} missing=${missingSparse}`,
        pool,
        missingSparse,
      });
    }
  }
  console.log(JSON.stringify({ tuning: results }, null, 1));
  console.log("\nvariant                                         nDCG@10  Recall@100");
  for (const r of [...results].sort((a, b) => b.ndcg10 - a.ndcg10).slice(0, 25)) {
    console.log(`${r.name.padEnd(46)}  ${r.ndcg10.toFixed(4)}   ${r.recall100.toFixed(4)}`);
  }
}

/** The thresholds docs/api.md's min_relevance recommendation is read from; 0 is today's behaviour (every row). */
const THRESHOLDS = [0, 0.01, 0.02, 0.05, 0.1, 0.2];
/** the default `limit` of a search */
const SEARCH_LIMIT = 10;

interface ThresholdFigures {
  minRelevance: number;
  /** rows returned over all queries */
  rows: number;
  /** share of the rows returned without a threshold that this threshold holds back */
  rowsRemoved: number;
  /** rows whose document is judged relevant */
  relevantRows: number;
  /** share of the relevant rows returned without a threshold that this threshold holds back */
  relevantRowsLost: number;
  /** queries left with no row at all */
  emptyAnswers: number;
  /** credits charged over all queries (each query's charge rounded as the service rounds it) */
  credits: string;
  /** credits charged per relevant row delivered */
  creditsPerRelevantRow: string;
}

/**
 * Whether relevance reads as a probability: the rows of one band of relevance, their mean relevance and the share
 * judged relevant.
 */
interface CalibrationBand {
  from: number;
  to: number;
  rows: number;
  meanRelevance: number;
  relevantShare: number;
}

/**
 * A default search (10 rows, the collection's configured mode) of every query through searchCollections, then the
 * service's own row selection (selectRows) at each threshold, charged as the service charges (chargeLines).
 */
async function thresholdTable(
  index: ScifactIndex,
  engine: SearchEngine,
  queries: BenchQuery[],
  relevant: Map<string, Set<string>>,
): Promise<{ table: ThresholdFigures[]; bands: CalibrationBand[] }> {
  const price = pricePer1000Micros(index.collection);
  const ranked: Array<{
    judged: Set<string>;
    rows: Array<{ id: string; physical: string; relevance: number; tokens: number; metadata: { doc_id: string } }>;
  }> = [];
  for (const query of queries) {
    const merged = await searchCollections(
      { engine, embedder: index.embedder },
      [{ key: SCIFACT_COLLECTION, collection: index.collection }],
      query.text,
      SEARCH_LIMIT,
    );
    ranked.push({
      judged: relevant.get(query.id) ?? new Set(),
      rows: merged.map((m) => ({
        id: m.hit.id,
        physical: m.source,
        relevance: m.relevance,
        tokens: m.hit.chunk.tokens,
        metadata: { doc_id: String(m.hit.chunk.metadata.doc_id) },
      })),
    });
  }
  const figuresAt = (minRelevance: number) => {
    let rows = 0;
    let relevantRows = 0;
    let emptyAnswers = 0;
    let micros = 0n;
    for (const q of ranked) {
      const delivered = selectRows(q.rows, { minRelevance, onePerDocument: false }, SEARCH_LIMIT).rows;
      rows += delivered.length;
      relevantRows += delivered.filter((r) => q.judged.has(r.metadata.doc_id)).length;
      if (delivered.length === 0) emptyAnswers++;
      micros += totalMicros(
        chargeLines(
          delivered.map((r) => ({ collection: SCIFACT_COLLECTION, tokens: r.tokens, pricePer1000Micros: price })),
        ),
      );
    }
    return { rows, relevantRows, emptyAnswers, micros };
  };
  const all = figuresAt(0);
  const edges = [...THRESHOLDS, 0.5, 1.0001];
  const bands = edges.slice(0, -1).map((from, i): CalibrationBand => {
    const to = edges[i + 1]!;
    const inBand = ranked.flatMap((q) =>
      q.rows
        .filter((r) => r.relevance >= from && r.relevance < to)
        .map((r) => ({ relevance: r.relevance, relevant: q.judged.has(r.metadata.doc_id) })),
    );
    return {
      from,
      to: Math.min(1, to),
      rows: inBand.length,
      meanRelevance: round4(mean(inBand.map((r) => r.relevance))),
      relevantShare: round4(inBand.filter((r) => r.relevant).length / Math.max(1, inBand.length)),
    };
  });
  const table = THRESHOLDS.map((minRelevance) => {
    const f = figuresAt(minRelevance);
    return {
      minRelevance,
      rows: f.rows,
      rowsRemoved: round4(1 - f.rows / Math.max(1, all.rows)),
      relevantRows: f.relevantRows,
      relevantRowsLost: round4(1 - f.relevantRows / Math.max(1, all.relevantRows)),
      emptyAnswers: f.emptyAnswers,
      credits: formatCredits(f.micros, 6),
      creditsPerRelevantRow: formatCredits(f.relevantRows > 0 ? f.micros / BigInt(f.relevantRows) : 0n, 6),
    };
  });
  return { table, bands };
}

function printThresholdTable(
  { table, bands }: { table: ThresholdFigures[]; bands: CalibrationBand[] },
  queries: number,
): void {
  console.log(`
min_relevance on ${queries} train queries, ${SEARCH_LIMIT} rows each, scifact (hybrid), embedded engine`);
  console.log(
    "min_relevance  rows  removed  relevant rows  relevant lost  empty answers  credits   credits/relevant row",
  );
  for (const t of table) {
    console.log(
      `${t.minRelevance.toFixed(2).padEnd(13)}  ${String(t.rows).padStart(4)}  ` +
        `${t.rowsRemoved.toFixed(3).padStart(7)}  ${String(t.relevantRows).padStart(13)}  ` +
        `${t.relevantRowsLost.toFixed(3).padStart(13)}  ${String(t.emptyAnswers).padStart(13)}  ${t.credits}  ` +
        `${t.creditsPerRelevantRow}`,
    );
  }
  console.log("relevance band  rows  mean relevance  share judged relevant");
  for (const b of bands)
    console.log(
      `[${b.from.toFixed(2)}, ${b.to.toFixed(2)})   ${String(b.rows).padStart(4)}  ` +
        `${b.meanRelevance.toFixed(3).padStart(14)}  ${b.relevantShare.toFixed(3).padStart(21)}`,
    );
}

/** What a customer is served: nDCG@10 of a default search's 10 rows, and of 10 rows one per document. */
interface ServedFigures {
  rows10: number;
  onePerDocument10: number;
}

/**
 * A default search (limit 10, every row: a document may fill two rows) and one with one_per_document, searched as
 * the service searches it (3 chunks per row asked, three times deeper while documents repeat, up to
 * MAX_DOCUMENT_DEPTH), on the embedded engine in the collection's mode.
 */
async function servedFigures(
  index: ScifactIndex,
  queries: BenchQuery[],
  relevant: Map<string, Set<string>>,
  repeatPenalty: number,
): Promise<ServedFigures> {
  const rows10: number[] = [];
  const onePerDocument10: number[] = [];
  const search = (text: string, depth: number) =>
    searchCollections(
      { engine: index.embedded, embedder: index.embedder },
      [{ key: SCIFACT_COLLECTION, collection: index.collection }],
      text,
      depth,
      undefined,
      repeatPenalty,
    );
  const docOf = (m: { source: string; hit: { chunk: { metadata: Record<string, unknown> } } }) => ({
    physical: m.source,
    metadata: { doc_id: String(m.hit.chunk.metadata.doc_id) },
  });
  for (const query of queries) {
    const judged = relevant.get(query.id) ?? new Set<string>();
    const rows = await search(query.text, SEARCH_LIMIT);
    rows10.push(ndcgAt(documentRanking(rows.map((m) => String(m.hit.chunk.metadata.doc_id))), judged, 10));
    let depth = SEARCH_LIMIT * 3;
    for (;;) {
      const merged = await search(query.text, depth);
      const firsts = firstPerDocument(merged, docOf, SEARCH_LIMIT);
      if (firsts.length >= SEARCH_LIMIT || merged.length < depth || depth >= MAX_DOCUMENT_DEPTH) {
        onePerDocument10.push(
          ndcgAt(
            firsts.map((m) => String(m.hit.chunk.metadata.doc_id)),
            judged,
            10,
          ),
        );
        break;
      }
      depth = Math.min(MAX_DOCUMENT_DEPTH, depth * 3);
    }
  }
  return { rows10: round4(mean(rows10)), onePerDocument10: round4(mean(onePerDocument10)) };
}

/**
 * The SYNERGY reviews' phrasings searched in openalex-synergy (its own mode, the embedded engine, CHUNK_DEPTH chunks)
 * before and after repeats are demoted; the collection is ingested into the bench index first (its
 * passages come from the shipped vectors, so nothing is embedded).
 */
async function synergySection(index: ScifactIndex): Promise<{
  collection: string;
  works: number;
  included: { total: number; held: number };
  before: Record<string, SynergyFigures>;
  after: Record<string, SynergyFigures>;
}> {
  const { collection } = await ingestBenchCollection(index.config, index.embedder, index.embedded, SYNERGY_COLLECTION);
  const records = await preparedRecords(index.config, index.embedder, collection);
  const held = new Set(records.map((r) => String(r.metadata.doc_id)));
  const labels = await loadSynergyLabels(index.config.dataRoot);
  const queries = await loadSynergyQueries();
  const run = async (repeatPenalty: number) => {
    const rankings = [];
    const docIds = (merged: Awaited<ReturnType<typeof searchCollections>>) =>
      merged.map((m) => String(m.hit.chunk.metadata.doc_id));
    for (const query of queries) {
      const search = (depth: number) =>
        searchCollections(
          { engine: index.embedded, embedder: index.embedder },
          [{ key: SYNERGY_COLLECTION, collection }],
          query.text,
          depth,
          undefined,
          repeatPenalty,
        );
      const rows = docIds(await search(SEARCH_LIMIT));
      rankings.push({ query, rows, ranking: documentRanking(docIds(await search(CHUNK_DEPTH))) });
    }
    return synergyTable(rankings, labels, held);
  };
  const included = [...labels.values()].flatMap((r) => [...r.included]);
  return {
    collection: SYNERGY_COLLECTION,
    works: held.size,
    included: { total: included.length, held: included.filter((id) => held.has(id)).length },
    before: await run(0),
    after: await run(REPEAT_CHUNK_PENALTY),
  };
}

function printSynergy(synergy: Awaited<ReturnType<typeof synergySection>>): void {
  console.log(
    `\nSYNERGY: ${synergy.collection} (${synergy.works} works searchable; ${synergy.included.held} of the ` +
      `${synergy.included.total} included works), our phrasings; before -> after repeats are demoted`,
  );
  console.log(
    "form               queries  topical P@10     included works in 10 rows   included R@30    included R@100",
  );
  const arrow = (a: number, b: number) => `${a.toFixed(3)} -> ${b.toFixed(3)}`;
  for (const key of QUERY_FORMS.flatMap((form) => [form, ...SPLITS.map((split) => `${form}/${split}`)])) {
    const [b, a] = [synergy.before[key]!, synergy.after[key]!];
    console.log(
      `${key.padEnd(18)} ${String(a.queries).padStart(7)}  ${arrow(b.topicalPrecision10, a.topicalPrecision10)}` +
        `   ${arrow(b.includedWorksIn10Rows, a.includedWorksIn10Rows)}              ` +
        `${arrow(b.includedRecall30, a.includedRecall30)}   ${arrow(b.includedRecall100, a.includedRecall100)}`,
    );
  }
}

function printServed(served: { before: ServedFigures; after: ServedFigures }, queries: number): void {
  console.log(`\nserved answers, ${queries} train queries, scifact (hybrid), embedded engine: nDCG@10 before -> after`);
  console.log(`10 rows                 ${served.before.rows10.toFixed(4)} -> ${served.after.rows10.toFixed(4)}`);
  const { before, after } = served;
  console.log(`10 rows, one per work   ${before.onePerDocument10.toFixed(4)} -> ${after.onePerDocument10.toFixed(4)}`);
}

/** One engine score's logistic curve (what the reranker used before src/retrieval/relevance.ts). */
interface ModeCalibration {
  intercept: number;
  slope: number;
}

/** Logistic regression of relevance on one engine score (Newton's method, two parameters). */
function fitLogistic(samples: Array<{ x: number; y: number }>): ModeCalibration {
  let a = 0;
  let b = 0;
  for (let iteration = 0; iteration < 50; iteration++) {
    let ga = 0;
    let gb = 0;
    let haa = 0;
    let hab = 0;
    let hbb = 0;
    for (const { x, y } of samples) {
      const p = 1 / (1 + Math.exp(-(a + b * x)));
      const w = p * (1 - p);
      ga += y - p;
      gb += (y - p) * x;
      haa += w;
      hab += w * x;
      hbb += w * x * x;
    }
    const det = haa * hbb - hab * hab;
    if (Math.abs(det) < 1e-12) break;
    const da = (hbb * ga - hab * gb) / det;
    const db = (haa * gb - hab * ga) / det;
    a += da;
    b += db;
    if (Math.abs(da) + Math.abs(db) < 1e-9) break;
  }
  return { intercept: round4(a), slope: round4(b) };
}

/** Fits each mode's calibration on the engine scores of the first 30 chunks (the most a search returns) per query. */
async function fit(
  engine: SearchEngine,
  queries: BenchQuery[],
  vectors: QueryVectors,
  relevant: Map<string, Set<string>>,
): Promise<void> {
  const fitted: Partial<Record<RetrievalMode, ModeCalibration & { samples: number; positives: number }>> = {};
  for (const mode of MODES) {
    const samples: Array<{ x: number; y: number }> = [];
    for (const query of queries) {
      const hits = await engine.search({
        index: SCIFACT_COLLECTION,
        mode,
        text: query.text,
        vector: vectors.get(query.id),
        limit: 30,
      });
      const judged = relevant.get(query.id)!;
      for (const hit of hits) samples.push({ x: hit.score, y: judged.has(String(hit.chunk.metadata.doc_id)) ? 1 : 0 });
    }
    fitted[mode] = {
      ...fitLogistic(samples),
      samples: samples.length,
      positives: samples.filter((s) => s.y === 1).length,
    };
  }
  console.log(JSON.stringify({ calibration: fitted }, null, 2));
}

async function main(): Promise<void> {
  if (args.calibration) {
    await calibrationSection();
    return;
  }
  const engines = args.engines
    .split(",")
    .map((name) => name.trim())
    .filter(Boolean);
  const loadBefore = loadavg()[0];
  const index = await openScifactIndex();
  let node: OpenSearchNode | undefined;
  const opened: SearchEngine[] = [];
  try {
    const { queries: allQueries, relevant } = await loadScifactJudgements(index.config.dataRoot);
    const queries = args.queries ? allQueries.slice(0, Number(args.queries)) : allQueries;
    const ids = await scifactChunkIds(index);
    console.error(`[quality] ${queries.length} train queries, ${ids.length} chunks; embedding queries...`);
    // embedded once up front (the pipeline's query-vector cache then serves every mode and engine)
    const vectors = await embedQueries(index, queries);

    if (args.tune) {
      const { docIds, features } = await collectFeatures(index, ids, queries, vectors);
      tune(features, docIds, relevant);
      return;
    }
    if (args.fit) {
      await fit(index.embedded, queries, vectors, relevant);
      return;
    }
    const served = {
      before: await servedFigures(index, queries, relevant, 0),
      after: await servedFigures(index, queries, relevant, REPEAT_CHUNK_PENALTY),
    };
    const synergy = await synergySection(index);
    if (args.synergy) {
      const hybridBefore = await evaluate(index, index.embedded, "hybrid", queries, relevant, 0);
      const hybridAfter = await evaluate(index, index.embedded, "hybrid", queries, relevant);
      console.log(
        JSON.stringify(
          {
            scifact: {
              queries: queries.length,
              repeatPenalty: REPEAT_CHUNK_PENALTY,
              hybridBefore,
              hybridAfter,
              served,
            },
            synergy,
          },
          null,
          2,
        ),
      );
      console.log(
        `\nscifact hybrid (embedded, ${CHUNK_DEPTH} chunks): nDCG@10 ${hybridBefore.ndcg10.toFixed(4)} -> ` +
          `${hybridAfter.ndcg10.toFixed(4)}, Recall@100 ${hybridBefore.recall100.toFixed(4)} -> ` +
          `${hybridAfter.recall100.toFixed(4)}`,
      );
      printServed(served, queries.length);
      printSynergy(synergy);
      return;
    }
    const thresholds = await thresholdTable(index, index.embedded, queries, relevant);
    if (args.thresholds) {
      console.log(
        JSON.stringify(
          {
            dataset: "SciFact (BEIR) train",
            queries: queries.length,
            limit: SEARCH_LIMIT,
            mode: index.collection.retrieval,
            engine: "embedded",
            loadAverage: { before: round2(loadBefore), after: round2(loadavg()[0]) },
            minRelevance: thresholds.table,
            calibration: thresholds.bands,
          },
          null,
          2,
        ),
      );
      printThresholdTable(thresholds, queries.length);
      return;
    }

    const byEngine: Record<string, Record<RetrievalMode, ModeFigures>> = {};
    let knnVsExact: { knn: string; exact: "embedded"; recallAt10: { dense: number; hybrid: number } } | undefined;
    for (const name of engines) {
      let engine: SearchEngine;
      if (name === "embedded") engine = index.embedded;
      else if (name === "opensearch") {
        node ??= await startOpenSearchNode({
          dataDir: join(index.config.dataDir, "opensearch"),
          component: readComponent("opensearch", index.config.cacheDir),
        });
        const opensearch = createOpenSearchEngine({ url: node.url, indexPrefix: "bench-" });
        opened.push(opensearch);
        const copy = await copyIndex(index.embedded, opensearch, SCIFACT_COLLECTION, ids, index.embedder.dims);
        console.error(`[quality] OpenSearch index ${copy} (${ids.length} chunks)`);
        engine = opensearch;
        if (engines.includes("embedded")) {
          knnVsExact = {
            knn: await opensearch.vectorSearchMode!(),
            exact: "embedded",
            recallAt10: {
              dense: await recallAt10(opensearch, index.embedded, "dense", queries, vectors),
              hybrid: await recallAt10(opensearch, index.embedded, "hybrid", queries, vectors),
            },
          };
          console.error(`[quality] OpenSearch against exact search: ${JSON.stringify(knnVsExact)}`);
        }
      } else throw new Error(`unknown engine ${name} (embedded, opensearch)`);
      const figures = {} as Record<RetrievalMode, ModeFigures>;
      for (const mode of MODES) {
        figures[mode] = await evaluate(index, engine, mode, queries, relevant);
        console.error(`[quality] ${name} ${mode}: ${JSON.stringify(figures[mode])}`);
      }
      byEngine[name] = figures;
    }
    const workBefore = byEngine.embedded
      ? await evaluate(index, index.embedded, "hybrid", queries, relevant, 0)
      : undefined;

    const report = {
      dataset: "SciFact (BEIR) train: 809 queries, qrels/train.tsv; 5,183 abstracts",
      queries: queries.length,
      chunks: ids.length,
      chunkDepth: CHUNK_DEPTH,
      hybridAlpha: HYBRID_ALPHA,
      hybridCandidates: hybridCandidateCount(CHUNK_DEPTH),
      model: index.embedder.modelName,
      // the bench index is built once per model: a run that built it says how long the whole ingest took
      ingest: index.report.skipped
        ? "reused"
        : {
            chunks: index.report.chunks,
            seconds: index.report.seconds,
            chunksPerSecond: Math.round((index.report.chunks / index.report.seconds) * 10) / 10,
          },
      loadAverage: { before: round2(loadBefore), after: round2(loadavg()[0]) },
      results: byEngine,
      workScoring: {
        share: REPEAT_CHUNK_PENALTY,
        hybridBefore: byEngine.embedded ? workBefore : undefined,
      },
      served,
      synergy,
      minRelevance: {
        limit: SEARCH_LIMIT,
        mode: index.collection.retrieval,
        engine: "embedded",
        thresholds: thresholds.table,
        calibration: thresholds.bands,
      },
      ...(knnVsExact && byEngine.embedded && byEngine.opensearch
        ? {
            knnVsExact: {
              ...knnVsExact,
              ndcg10Difference: Object.fromEntries(
                MODES.map((mode) => [
                  mode,
                  round4(byEngine.opensearch![mode].ndcg10 - byEngine.embedded![mode].ndcg10),
                ]),
              ),
            },
          }
        : {}),
    };
    console.log(JSON.stringify(report, null, 2));
    console.log("\nengine      mode     nDCG@10  Recall@100  ms/query");
    for (const [name, figures] of Object.entries(byEngine)) {
      for (const mode of MODES) {
        const f = figures[mode];
        console.log(
          `${name.padEnd(11)} ${mode.padEnd(8)} ${f.ndcg10.toFixed(4)}   ${f.recall100.toFixed(4)}      ` +
            `${f.msPerQuery.toFixed(1)}`,
        );
      }
    }
    if (report.knnVsExact)
      console.log(`\nOpenSearch (${report.knnVsExact.knn}) against exact: ${JSON.stringify(report.knnVsExact)}`);
    if (workBefore)
      console.log(
        `embedded hybrid before repeats are demoted: nDCG@10 ${workBefore.ndcg10.toFixed(4)}, ` +
          `Recall@100 ${workBefore.recall100.toFixed(4)}`,
      );
    printServed(served, queries.length);
    printSynergy(synergy);
    printThresholdTable(thresholds, queries.length);
  } finally {
    for (const engine of opened) await engine.close();
    await node?.stop();
    await index.close();
  }
  if (!args.tune && !args.fit && !args.thresholds)
    console.log(JSON.stringify({ relevanceCalibration: await calibrationSection() }));
}

await main();
if (!args.tune && !args.fit && !args.thresholds && !args.synergy && !args["skip-assisted"]) {
  const recall = await assistedRecall();
  console.log(JSON.stringify({ assistedRecall: recall }));
  printAssistedRecall({ shipped: recall });
}
