// What the ingestion workflow and its activities exchange, and its progress query (shared with the Ingestions port).
import { defineQuery } from "@temporalio/workflow";
import type { PlainCollection } from "../src/domain/collectionDefinitions.js";
import type { IngestionCounts, IngestionMode } from "../src/domain/events.js";

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
}

export interface StagedSource {
  batches: number;
  documentsRead: number;
}

export interface BatchInput {
  ingestionId: string;
  collection: PlainCollection;
  batch: number;
}

export interface IngestionProgress {
  /** reading: the source is being staged into batches; indexing: batches run */
  phase: "reading" | "indexing" | "finishing";
  batches: number | null;
  batchesDone: number;
  counts: IngestionCounts;
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
