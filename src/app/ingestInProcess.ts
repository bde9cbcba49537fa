// The ingestion pipeline run in this process, without Temporal: the ingestion workflow's own steps
// (workflows/ingestionSteps.ts: stage, batches, finish; a failure recorded) with its activities called directly, so a
// first start whose process runs no worker, the CLI `ingest`, benchmarks and tests build an index exactly as an
// operator's ingestion does: the same events, document manifest, works and inventory. Any Db serves (PGlite in memory
// too).
import { performance } from "node:perf_hooks";
import { createIngestionActivities, type IngestionActivityDeps } from "../../activities/ingestion.js";
import { runIngestionSteps, startingProgress } from "../../workflows/ingestionSteps.js";
import type { IngestionProgress } from "../../workflows/ingestionTypes.js";
import type { PlainCollection } from "../domain/collectionDefinitions.js";
import type { Actor, IngestionCounts, IngestionMode, VectorTiming } from "../domain/events.js";
import type { Db } from "../eventstore/db.js";
import type { SearchEngine } from "../retrieval/port.js";
import { clearManifest, manifestKey, manifestTotals } from "../ingest/manifest.js";
import { needsVectors } from "../ingest/pipelineRules.js";
import type { IndexInputOptions } from "../ingest/indexInput.js";
import { recordIngestionStarted } from "../usecases/collections/temporalIngestions.js";
import { newId } from "../usecases/accounts/apiKeys.js";

/** Who runs an in-process ingestion, unless the caller names someone. */
const IN_PROCESS_ACTOR: Actor = { kind: "operator", id: "in-process-ingestion" };
/**
 * Documents per batch by default: each batch is one commit of the index, and two batches in flight keep the embedder
 * busy while the other one indexes.
 */
const DEFAULT_BATCH_SIZE = 1024;
const DEFAULT_PARALLELISM = 2;

interface InProcessIngestion {
  collection: PlainCollection;
  /** relative paths under the data root; by default the collection's source files */
  files?: string[];
  /** by default replace: the collection becomes exactly its files */
  mode?: IngestionMode;
  /** documents per batch */
  batchSize?: number;
  /** batches in flight at once */
  parallelism?: number;
  /** 'backfill': commit without vectors (the caller runs the vector backfill: activities/vectorBackfill.ts) */
  vectors?: VectorTiming;
  actor?: Actor;
  /** told the progress after each batch and at the end */
  onProgress?: (progress: IngestionProgress) => void;
  /** asked before each batch; true stops the ingestion, recorded failed (its committed batches stay) */
  cancelled?: () => boolean;
}

export interface IngestionReport {
  collection: string;
  ingestionId: string;
  /** what this ingestion did (IngestionCompleted's counts) */
  counts: IngestionCounts;
  /** documents and chunks the index holds after it (the document manifest's totals) */
  documents: number;
  chunks: number;
  embedded: boolean;
  seconds: number;
}

/**
 * Runs one ingestion of the collection's files to its end: IngestionStarted (refused while another ingestion of the
 * collection runs), the workflow's steps, IngestionCompleted or IngestionFailed. Throws what failed it.
 */
export async function ingestInProcess(
  deps: IngestionActivityDeps,
  request: InProcessIngestion,
): Promise<IngestionReport> {
  const started = performance.now();
  const { collection } = request;
  const ingestionId = newId("ing");
  const files = request.files ?? collection.source.files;
  const mode = request.mode ?? "replace";
  await recordIngestionStarted(
    deps.db,
    deps.clock,
    { ingestionId, collection: collection.name, files, mode },
    request.actor ?? IN_PROCESS_ACTOR,
  );
  const activities = createIngestionActivities(deps);
  const progress = startingProgress();
  const counts = await runIngestionSteps(
    {
      ingestionId,
      collection,
      files,
      mode,
      batchSize: request.batchSize ?? DEFAULT_BATCH_SIZE,
      parallelism: request.parallelism ?? DEFAULT_PARALLELISM,
      batchTaskQueue: "in-process",
      vectors: request.vectors,
    },
    activities,
    async (batch) => {
      if (request.cancelled?.()) throw new Error("cancelled: the process is stopping");
      return activities.ingestBatch(batch);
    },
    progress,
    request.onProgress,
  );
  const built = await manifestTotals(deps.db, manifestKey(deps.engine.kind, collection.name));
  return {
    collection: collection.name,
    ingestionId,
    counts,
    ...built,
    embedded: needsVectors(collection),
    seconds: Math.round((performance.now() - started) / 10) / 100,
  };
}

/**
 * Drops the collection's index and document manifest, so the next ingestion builds it afresh: a forced build
 * re-embeds everything (it repairs an index).
 */
export async function dropCollectionIndex(db: Db, engine: SearchEngine, collection: string): Promise<void> {
  if (await engine.hasIndex(collection)) await engine.deleteIndex(collection);
  await clearManifest(db, manifestKey(engine.kind, collection));
}

/** What decides whether the collection's index holds its input, from the activities' dependencies. */
export function indexInputOf(
  deps: IngestionActivityDeps,
  build: Pick<IndexInputOptions, "collection" | "retracted" | "fingerprintFile" | "force">,
): IndexInputOptions {
  return {
    collection: build.collection,
    dataRoot: deps.dataRoot,
    engine: deps.engine,
    embedder: deps.model,
    tokenizer: deps.tokenizer,
    retracted: build.retracted,
    fingerprintFile: build.fingerprintFile,
    force: build.force,
    chunking: deps.chunking,
    figureDir: deps.figureDir,
  };
}
