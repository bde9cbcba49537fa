// SciFact for the benchmarks: the `scifact` collection ingested by the product's own pipeline into a cached bench
// index (data/bench), the train queries and qrels, and a copy of the embedded index into an OpenSearch node.
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { loadConfig, REPO_ROOT, type Config } from "../src/app/config.js";
import { type PlainCollection } from "../src/domain/collectionDefinitions.js";
import { loadCollectionCatalog } from "../src/app/collectionsFile.js";
import { openEmbedder, openIngestEmbedder } from "../src/app/composition.js";
import type { OnnxEmbedder } from "../src/embedding/onnxEmbedder.js";
import { ingestCollection, prepareCollection, type IngestReport } from "../src/ingest/ingestCollection.js";
import { createProgressReporter, pipelineProgress } from "../src/ingest/progressReport.js";
import { loadRetractedDois } from "../src/ingest/retractions.js";
import { createEmbeddedEngine } from "../src/retrieval/engines/embedded/embeddedEngine.js";
import type { SearchEngine } from "../src/retrieval/port.js";

export const BENCH_DIR = join(REPO_ROOT, "data", "bench");
export const SCIFACT_COLLECTION = "scifact";

export interface BenchQuery {
  id: string;
  text: string;
}

export interface ScifactJudgements {
  queries: BenchQuery[];
  /** query id -> relevant corpus ids (every SciFact judgement is 1) */
  relevant: Map<string, Set<string>>;
}

/** The service's configuration with the bench's data directory. */
export function benchConfig(): Config {
  return loadConfig({
    ...process.env,
    DATA_DIR: BENCH_DIR,
    ADMIN_TOKEN: process.env.ADMIN_TOKEN ?? "bench-admin-token-0123456789",
  });
}

export async function scifactCollection(config: Config): Promise<PlainCollection> {
  const catalog = await loadCollectionCatalog(config.collectionsConfig);
  const entry = catalog.resolveCollection(SCIFACT_COLLECTION);
  if (!entry || entry.type !== "plain")
    throw new Error(`collection ${SCIFACT_COLLECTION} is not configured as a plain collection`);
  return entry;
}

/** Train queries and qrels (tab-separated with a header and CRLF line ends, as BEIR ships them). */
export async function loadScifactJudgements(dataRoot: string): Promise<ScifactJudgements> {
  const dir = join(dataRoot, "scifact");
  const relevant = new Map<string, Set<string>>();
  const qrelLines = (await readFile(join(dir, "qrels", "train.tsv"), "utf8")).split(/\r?\n/);
  for (const line of qrelLines.slice(1)) {
    if (!line.trim()) continue;
    const [queryId, corpusId, score] = line.split("\t");
    if (!queryId || !corpusId || Number(score) <= 0) continue;
    let set = relevant.get(queryId);
    if (!set) relevant.set(queryId, (set = new Set()));
    set.add(corpusId);
  }
  const queries: BenchQuery[] = [];
  for (const line of (await readFile(join(dir, "queries.jsonl"), "utf8")).split(/\r?\n/)) {
    if (!line.trim()) continue;
    const record = JSON.parse(line) as { _id: string | number; text: string };
    const id = String(record._id);
    if (relevant.has(id)) queries.push({ id, text: record.text });
  }
  return { queries, relevant };
}

export interface ScifactIndex {
  config: Config;
  collection: PlainCollection;
  embedder: OnnxEmbedder;
  embedded: SearchEngine;
  report: IngestReport;
  close(): Promise<void>;
}

/**
 * The scifact collection in an embedded index under data/bench/index, ingested exactly as the service ingests it;
 * the first run embeds every chunk (minutes on 2 cores), later runs find the same input fingerprint and reuse it.
 */
export async function openScifactIndex(): Promise<ScifactIndex> {
  const config = benchConfig();
  const collection = await scifactCollection(config);
  const embedder = await openEmbedder(config);
  const embedded = createEmbeddedEngine({ dir: join(config.dataDir, "index") });
  const bar = createProgressReporter();
  const ingestEmbedder = await openIngestEmbedder(config);
  let report: IngestReport;
  try {
    report = await ingestCollection({
      collection,
      dataRoot: config.dataRoot,
      engine: embedded,
      embedder: ingestEmbedder,
      tokenizer: embedder.tokenizer,
      retracted: await loadRetractedDois(config.dataRoot),
      fingerprintFile: join(config.dataDir, "ingest-fingerprints.embedded.json"),
      onProgress: pipelineProgress(bar),
    });
  } finally {
    bar.stop();
    await ingestEmbedder.close();
  }
  return {
    config,
    collection,
    embedder,
    embedded,
    report,
    async close() {
      await embedded.close();
      await embedder.close();
    },
  };
}

/** Every chunk id of the collection, in ingestion order (reads and chunks again; no embedding). */
export async function scifactChunkIds(index: ScifactIndex): Promise<string[]> {
  const prepared = await prepareCollection({
    collection: index.collection,
    dataRoot: index.config.dataRoot,
    tokenizer: index.embedder.tokenizer,
    retracted: await loadRetractedDois(index.config.dataRoot),
  });
  return prepared.records.map((record) => record.id);
}

/** Copies the embedded index (vectors included) into another engine unless it already holds the same chunk count. */
export async function copyIndex(
  from: SearchEngine,
  to: SearchEngine,
  index: string,
  ids: string[],
  dims: number,
): Promise<"copied" | "reused"> {
  if ((await to.hasIndex(index)) && (await to.stats(index)).chunks === ids.length) return "reused";
  if (await to.hasIndex(index)) await to.deleteIndex(index);
  await to.ensureIndex(index, dims);
  for (let start = 0; start < ids.length; start += 500) {
    const chunks = await from.getChunks(index, ids.slice(start, start + 500));
    await to.indexChunks(index, chunks);
  }
  await to.commit(index);
  return "copied";
}
