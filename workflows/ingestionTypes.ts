// What the ingestion workflow and its activities exchange, and its progress query (shared with the Ingestions port).
import { defineQuery } from "@temporalio/workflow";
import type { PlainCollection } from "../src/domain/collectionDefinitions.js";
import type { IngestionCounts, IngestionMode, VectorTiming } from "../src/domain/events.js";
import type { VectorCoverage } from "../src/retrieval/port.js";

export interface IngestionInput {
  ingestionId: string;
  /** the collection's definition when the ingestion started */
  collection: PlainCollection;
  /** the files as the operator gave them (relative paths under DATA_ROOT) */
  files: string[];
  mode: IngestionMode;
  /** documents per batch activity */
  batchSize: number;
  /** batch activities in flight at once (each worker process takes one at a time from the ingestion task queue) */
  parallelism: number;
  /** where the batches run (batchTaskQueueOf the service's task queue) */
  batchTaskQueue: string;
  /**
   * when a dense or hybrid collection's chunks get their vectors: 'at_commit' (default: each batch embeds before it
   * commits) or 'backfill' (each batch commits its chunks searchable by BM25 at once; the vector backfill embeds them
   * after the last batch, and the ingestion's workflow ends when it has)
   */
  vectors?: VectorTiming;
}

export interface StagedSource {
  batches: number;
  documentsRead: number;
}

export interface BatchInput {
  ingestionId: string;
  collection: PlainCollection;
  batch: number;
  /** commit the batch's new chunks without vectors (the vector backfill gives them theirs) */
  deferVectors?: boolean;
}

export interface IngestionProgress {
  /**
   * reading: the source is being staged into batches; indexing: batches run; backfilling: committed, every document
   * searchable by BM25, the vector backfill runs
   */
  phase: "reading" | "indexing" | "finishing" | "backfilling";
  batches: number | null;
  batchesDone: number;
  counts: IngestionCounts;
  /** the collection's chunks and how many have a vector, as the vector backfill last told (backfilling only) */
  vectors?: VectorCoverage;
}

export const ingestionProgressQuery = defineQuery<IngestionProgress>("ingestionProgress");

/** The ingestion's workflow id: one run per ingestion. */
export const ingestionWorkflowId = (ingestionId: string) => `ingestion-${ingestionId}`;

/**
 * The task queue of the batch activities beside a worker's queue: one batch at a time per worker process, so more
 * processes embed more at once.
 */
export const batchTaskQueueOf = (taskQueue: string) => `${taskQueue}-ingest`;

/** The ingestion steps; activities/ingestion.ts implements them. */
export interface IngestionActivities {
  stageIngestion(input: IngestionInput): Promise<StagedSource>;
  ingestBatch(input: BatchInput): Promise<IngestionCounts>;
  finishIngestion(input: IngestionInput): Promise<IngestionCounts>;
  failIngestion(input: { ingestionId: string; collection: string; error: string }): Promise<void>;
}

/** One vector backfill batch: the chunks it gave vectors, those it left (changed meanwhile), the coverage after. */
export interface BackfillBatch {
  embedded: number;
  skipped: number;
  coverage: VectorCoverage;
}

export interface VectorBackfillInput {
  collection: string;
  /** chunks embedded per activity */
  batchSize: number;
  /** where the backfill's activities run: the ingestion task queue, which every worker process polls */
  batchTaskQueue: string;
}

/** The vector backfill's activity; activities/vectorBackfill.ts implements it. */
export interface VectorBackfillActivities {
  backfillVectors(input: { collection: string; batchSize: number }): Promise<BackfillBatch>;
}

export const vectorBackfillProgressQuery = defineQuery<VectorCoverage | null>("vectorBackfillProgress");

/** The backfill started by an ingestion: one per ingestion. */
export const vectorBackfillWorkflowId = (ingestionId: string) => `vector-backfill-${ingestionId}`;
