// The ingestion port: how the operator API, the CLI and a first start run one ingestion of source files into a plain
// collection and follow it. Implemented by the Temporal ingestion workflow (workflows/ingestion.ts).
import type { Actor, IngestionCounts, IngestionMode, VectorTiming } from "../domain/events.js";

type IngestionState = "running" | "completed" | "failed";

/** What GET /admin/v1/ingestions/{id} answers. */
export interface IngestionStatus extends IngestionCounts {
  ingestionId: string;
  collection: string;
  mode: IngestionMode;
  /** the files as the operator gave them (relative paths resolve under DATA_ROOT) */
  files: string[];
  state: IngestionState;
  startedAt: string;
  finishedAt: string | null;
  error: string | null;
  /** while running: documents and chunks done so far, the rate and the estimated finish */
  progress?: IngestionProgressView;
}

export interface IngestionRequest {
  /** a plain collection the catalogue holds */
  collection: string;
  files: string[];
  mode: IngestionMode;
  /**
   * documents per batch, when not the deployment's INGEST_BATCH_SIZE: the first start builds whole demo collections
   * in large batches (each batch is one commit of the index; the demo's vectors are loaded, not embedded)
   */
  batchSize?: number;
  /**
   * 'backfill': a dense or hybrid collection's batches commit their chunks searchable by BM25 at once, and the vector
   * backfill embeds them afterwards; 'at_commit' (the default) embeds each batch before it commits
   */
  vectors?: VectorTiming;
}

export interface Ingestions {
  /**
   * Starts one ingestion (appends IngestionStarted) and returns at once; a bad file is 422 and starts nothing, and a
   * collection with an ingestion running is 409 naming it.
   */
  start(request: IngestionRequest, actor: Actor, requestId?: string): Promise<{ ingestionId: string }>;
  /** progress while running (the workflow's query), the recorded outcome after; null for an unknown id */
  get(ingestionId: string): Promise<IngestionStatus | null>;
  /** the collection's latest ingestion, null when it has none (the dashboard and the collections list show it) */
  latest(collection: string): Promise<IngestionStatus | null>;
  /**
   * Stops a running ingestion: its workflow ends and it is recorded failed ("cancelled: <reason>") with what its
   * committed batches did (each is whole); an ingestion no longer running is left as it is.
   */
  cancel(ingestionId: string, reason: string, actor?: Actor): Promise<void>;
  /**
   * whether any ingestion of the collection completed: until one has, its searches answer 503 (the first ingestion's
   * rule)
   */
  hasCompleted(collection: string): Promise<boolean>;
}

/** How far a running ingestion is, as `GET /admin/v1/ingestions/{id}` reports it (`progress`). */
export interface IngestionProgressView {
  /**
   * reading: the source is being read into batches; indexing: batches run; finishing: the last writes; backfilling:
   * committed (searchable by BM25) and the vector backfill runs
   */
  phase: "reading" | "indexing" | "finishing" | "backfilling";
  /** batches in all (null while reading) and committed so far */
  batches: number | null;
  batchesDone: number;
  /** documents of committed batches, of those read (null while reading) */
  documentsDone: number;
  documentsTotal: number | null;
  /** chunks of committed batches */
  chunksIndexed: number;
  /** since the ingestion started, per second; null until a batch committed */
  documentsPerSecond: number | null;
  chunksPerSecond: number | null;
  /** when it should be done at that rate (ISO 8601); null until a batch committed and the total is known */
  estimatedFinishAt: string | null;
}
