// SciFact for the benchmarks: the `scifact` collection ingested by the product's one pipeline into a cached bench
// index (data/bench), the train queries and qrels, and a copy of the embedded index into an OpenSearch node.
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { loadConfig, REPO_ROOT, type Config } from "../src/app/config.js";
import { type PlainCollection } from "../src/domain/collectionDefinitions.js";
import { loadCollectionCatalog } from "../src/app/collectionsFile.js";
import { openEmbedder, openEventStore, openIngestEmbedder, openIngestionActivityDeps } from "../src/app/composition.js";
import { buildCollection, type CollectionBuildReport } from "../test/support/buildCollection.js";
import type { OnnxEmbedder } from "../src/embedding/onnxEmbedder.js";
import { prepareCollection } from "../src/ingest/pipelineRules.js";
import { createProgressReporter, statusSnapshot } from "../src/ingest/progressReport.js";
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
  return benchCollection(config, SCIFACT_COLLECTION);
}

/** A plain collection of the service's catalogue, by name. */
export async function benchCollection(config: Config, name: string): Promise<PlainCollection> {
  const catalog = await loadCollectionCatalog(config.collectionsConfig);
  const entry = catalog.resolveCollection(name);
  if (!entry || entry.type !== "plain") throw new Error(`collection ${name} is not configured as a plain collection`);
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
  report: CollectionBuildReport;
  close(): Promise<void>;
}

/**
 * The scifact collection in an embedded index under data/bench/index, ingested exactly as the service ingests it;
 * the first run embeds every chunk (minutes on 2 cores), later runs find the same input fingerprint and reuse it.
 */
export async function openScifactIndex(): Promise<ScifactIndex> {
  const config = benchConfig();
  const embedder = await openEmbedder(config);
  const embedded = createEmbeddedEngine({ dir: join(config.dataDir, "index") });
  const { collection, report } = await ingestBenchCollection(config, embedder, embedded, SCIFACT_COLLECTION);
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

/**
 * Ingests one collection of the catalogue into the bench's embedded engine as the service does (reused when its input
 * fingerprint did not change; the demo collections' passages come from the shipped vectors).
 */
export async function ingestBenchCollection(
  config: Config,
  embedder: OnnxEmbedder,
  engine: SearchEngine,
  name: string,
): Promise<{ collection: PlainCollection; report: CollectionBuildReport }> {
  const collection = await benchCollection(config, name);
  const bar = createProgressReporter();
  // the bench's own store (PGlite under data/bench) keeps the document manifest beside the cached index
  const db = await openEventStore({ ...config, databaseUrl: undefined });
  const deps = openIngestionActivityDeps(config, {
    db,
    engine,
    embedder,
    clock: () => new Date(),
    openPassageEmbedder: () => openIngestEmbedder(config),
  });
  try {
    const report = await buildCollection(deps, {
      collection,
      retracted: await loadRetractedDois(config.dataRoot),
      fingerprintFile: join(config.dataDir, "ingest-fingerprints.embedded.json"),
      onProgress: (progress) => bar.update(statusSnapshot({ ...progress.counts, collection: collection.name })),
    });
    return { collection, report };
  } finally {
    bar.stop();
    await deps.close();
    await db.close();
  }
}

/** Every chunk id of the collection, in ingestion order (reads and chunks again; no embedding). */
export async function scifactChunkIds(index: ScifactIndex): Promise<string[]> {
  return (await preparedRecords(index.config, index.embedder, index.collection)).map((record) => record.id);
}

/** The chunk records a collection's ingestion makes (reads and chunks again; no embedding). */
export async function preparedRecords(
  config: Config,
  embedder: OnnxEmbedder,
  collection: PlainCollection,
): Promise<Array<{ id: string; metadata: Record<string, unknown> }>> {
  const prepared = await prepareCollection({
    collection,
    dataRoot: config.dataRoot,
    tokenizer: embedder.tokenizer,
    retracted: await loadRetractedDois(config.dataRoot),
  });
  return prepared.records;
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

/**
 * The judge benches' index (calibrateVerdicts.ts, deeperRound.ts): SciFact and the SYNERGY works on the embedded
 * engine in the bench folder, each ingested where it is missing; `close` closes the engine and the embedder.
 */
export async function openJudgeBench() {
  const config = benchConfig();
  const embedder = await openEmbedder(config);
  const engine = createEmbeddedEngine({ dir: join(config.dataDir, "index") });
  const close = async () => {
    await engine.close();
    await embedder.close();
  };
  try {
    const collections = new Map<string, PlainCollection>();
    for (const name of [SCIFACT_COLLECTION, "openalex-synergy"])
      collections.set(name, (await ingestBenchCollection(config, embedder, engine, name)).collection);
    return { config, embedder, engine, collections, close };
  } catch (err) {
    await close();
    throw err;
  }
}
