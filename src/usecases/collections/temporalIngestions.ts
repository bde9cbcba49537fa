// The Ingestions port on Temporal: start records IngestionStarted and starts the ingestion workflow; a running
// ingestion's progress is the workflow's query, a finished one's outcome is the ingestions read model (its events).
import { ingestionProgressOf } from "../../ingest/progressReport.js";
import type { Client } from "@temporalio/client";
import type { CollectionCatalog, PlainCollection } from "../../domain/collectionDefinitions.js";
import { assertReadableFiles } from "./manageCollections.js";
import type { Db } from "../../eventstore/db.js";
import { selectList } from "../../../projections/sqlProjection.js";
import { INGESTIONS, type IngestionRow } from "./ingestionTables.js";
import { runStreamCommand } from "../../../projections/streamCommand.js";
import { ingestionStream, type Actor, type IngestionCounts, type IngestionMode } from "../../domain/events.js";
import { Rejection } from "../../domain/rejection.js";
import { newId } from "../accounts/apiKeys.js";
import { ingestionWorkflow } from "../../../workflows/ingestion.js";
import { batchTaskQueueOf, ingestionProgressQuery, ingestionWorkflowId } from "../../../workflows/ingestionTypes.js";
import { countsOf } from "../../domain/ingestionCounts.js";
import { recordedTotals, zeroCounts } from "../../ingest/manifest.js";
import type { IngestionRequest, Ingestions, IngestionStatus } from "../../ingest/ingestions.js";

const CANCELLED_BY: Actor = { kind: "operator", id: "admin" };

interface TemporalIngestionsDeps {
  db: Db;
  client: Client;
  /** the live catalogue (refreshed once when a name is unknown: another process may have just defined it) */
  catalog: CollectionCatalog & { refresh?(force?: boolean): Promise<void> };
  dataRoot: string;
  clock: () => Date;
  /** the service's task queue (the batches run on batchTaskQueueOf it) */
  taskQueue: string;
  /** documents per batch activity */
  batchSize: number;
  /** batches in flight at once */
  parallelism: number;
}

/** The status the read model records (a running one with the counts given). */
function statusOf(row: IngestionRow, running: IngestionCounts): IngestionStatus {
  const base = {
    ingestionId: row.ingestion_id,
    collection: row.collection,
    mode: row.mode as IngestionMode,
    files: row.files,
    startedAt: row.started_at,
    finishedAt: row.finished_at,
    error: row.error,
  };
  return { ...base, ...countsOf(row.counts ?? running), state: row.state };
}

export type WorkflowIngestions = Ingestions;

/**
 * Appends IngestionStarted, refused (CONFLICT) while another ingestion of the collection runs: decided under the
 * append lock, so two starts for one collection cannot both see it idle. The API's start and the in-process driver
 * (src/app/ingestInProcess.ts) both start here.
 */
export async function recordIngestionStarted(
  db: Db,
  clock: () => Date,
  started: { ingestionId: string; collection: string; files: string[]; mode: IngestionMode },
  actor: Actor,
  requestId?: string,
): Promise<void> {
  await runStreamCommand(
    db,
    clock,
    ingestionStream(started.ingestionId),
    actor,
    async (tx) => {
      const [row] = await tx.query<{ id: string }>(
        `SELECT ingestion_id AS id FROM proj_ingestions WHERE collection = $1 AND state = 'running' LIMIT 1`,
        [started.collection],
      );
      if (row?.id)
        throw new Rejection(
          "CONFLICT",
          `collection "${started.collection}" has ingestion ${row.id} running; wait for it to end (GET ` +
            `/admin/v1/ingestions/${row.id})`,
          { ingestionId: row.id },
        );
      return { version: 0, events: [{ type: "IngestionStarted", data: { ...started, files: [...started.files] } }] };
    },
    { requestId },
  );
}

export function createTemporalIngestions(deps: TemporalIngestionsDeps): WorkflowIngestions {
  const { db, client } = deps;
  const rowsWhere = (where: string, params: unknown[]) =>
    db.query<IngestionRow>(`SELECT ${selectList(INGESTIONS)} FROM proj_ingestions WHERE ${where}`, params);

  async function get(ingestionId: string): Promise<IngestionStatus | null> {
    const [row] = await rowsWhere("ingestion_id = $1", [ingestionId]);
    if (!row) return null;
    if (row.state !== "running") return statusOf(row, zeroCounts());
    const handle = client.workflow.getHandle(ingestionWorkflowId(ingestionId));
    const progress = await handle.query(ingestionProgressQuery).catch(() => null);
    if (progress)
      return {
        ...statusOf(row, progress.counts),
        progress: ingestionProgressOf(progress, row.started_at, deps.clock()),
      };
    // no answer: the run may have ended since the row was read, or ended without recording (terminated)
    const [after] = await rowsWhere("ingestion_id = $1", [ingestionId]);
    if (after && after.state !== "running") return statusOf(after, zeroCounts());
    const described = await handle.describe().catch(() => null);
    if (described && described.status.name !== "RUNNING")
      return {
        ...statusOf(row, zeroCounts()),
        state: "failed",
        error: `the ingestion workflow ended (${described.status.name}) without recording an outcome`,
      };
    return statusOf(row, zeroCounts());
  }

  return {
    async start(request: IngestionRequest, actor: Actor, requestId?: string) {
      let entry = deps.catalog.resolveCollection(request.collection);
      if (!entry && deps.catalog.refresh) {
        await deps.catalog.refresh(true);
        entry = deps.catalog.resolveCollection(request.collection);
      }
      if (!entry) {
        const retired = deps.catalog.retiredAt?.(request.collection);
        if (retired)
          throw new Rejection(
            "COLLECTION_NOT_FOUND",
            `collection "${retired.name}" was retired on ${retired.at}; its name stays reserved, so nothing is ` +
              "ingested into it: define a collection under another name (POST /admin/v1/collections) and ingest there",
            { collection: retired.name, retired: true, retiredAt: retired.at },
          );
        throw new Rejection(
          "COLLECTION_NOT_FOUND",
          `collection "${request.collection}" does not exist; GET /api/v1/search/collections lists the collections`,
        );
      }
      if (entry.type !== "plain")
        throw new Rejection(
          "VALIDATION_ERROR",
          `"${entry.name}" is a meta-collection: ingest into its members (${entry.members.join(", ")})`,
          { field: "collection" },
        );
      const collection: PlainCollection = entry;
      if (request.files.length === 0)
        throw new Rejection("VALIDATION_ERROR", "files must name at least one source file", { field: "files" });
      await assertReadableFiles(request.files, deps.dataRoot);
      const ingestionId = newId("ing");
      const collectionName = collection.name;
      await recordIngestionStarted(
        db,
        deps.clock,
        { ingestionId, collection: collectionName, files: [...request.files], mode: request.mode },
        actor,
        requestId,
      );
      try {
        await client.workflow.start(ingestionWorkflow, {
          taskQueue: deps.taskQueue,
          workflowId: ingestionWorkflowId(ingestionId),
          args: [
            {
              ingestionId,
              collection,
              files: [...request.files],
              mode: request.mode,
              batchSize: request.batchSize ?? deps.batchSize,
              parallelism: deps.parallelism,
              batchTaskQueue: batchTaskQueueOf(deps.taskQueue),
              ...(request.vectors ? { vectors: request.vectors } : {}),
            },
          ],
        });
      } catch (err) {
        // nothing runs it: recorded as failed, so the collection is not held as running
        await runStreamCommand(db, deps.clock, ingestionStream(ingestionId), actor, async () => ({
          version: 1,
          events: [
            {
              type: "IngestionFailed",
              data: {
                ingestionId,
                collection: collectionName,
                error: `the ingestion could not be started: ${(err as Error).message}`,
                counts: zeroCounts(),
              },
            },
          ],
        }));
        throw new Rejection(
          "SERVICE_UNAVAILABLE",
          `the ingestion could not be started (the workflow service did not take it); try again`,
        );
      }
      return { ingestionId };
    },
    get,
    async latest(collection: string) {
      const [row] = await rowsWhere("collection = $1 ORDER BY started_at DESC, ingestion_id DESC LIMIT 1", [
        collection,
      ]);
      return row ? get(row.ingestion_id) : null;
    },
    async cancel(ingestionId: string, reason: string, actor: Actor = CANCELLED_BY) {
      await client.workflow
        .getHandle(ingestionWorkflowId(ingestionId))
        .terminate(reason)
        .catch(() => undefined);
      const [row] = await rowsWhere("ingestion_id = $1", [ingestionId]);
      if (!row || row.state !== "running") return;
      const counts = await recordedTotals(db, ingestionId);
      await runStreamCommand(db, deps.clock, ingestionStream(ingestionId), actor, async (tx) => {
        const [now] = await tx.query<{ state: string }>("SELECT state FROM proj_ingestions WHERE ingestion_id = $1", [
          ingestionId,
        ]);
        if (now?.state !== "running") return { version: 0, events: [] };
        const [v] = await tx.query<{ v: number }>("SELECT max(stream_version) AS v FROM events WHERE stream_id = $1", [
          ingestionStream(ingestionId),
        ]);
        return {
          version: Number(v?.v ?? 1),
          events: [
            {
              type: "IngestionFailed",
              data: { ingestionId, collection: row.collection, error: `cancelled: ${reason}`, counts },
            },
          ],
        };
      });
    },
    async hasCompleted(collection: string) {
      return (await rowsWhere(`collection = $1 AND state = 'completed' LIMIT 1`, [collection])).length > 0;
    },
  };
}

/**
 * Waits until the ingestion has ended and answers its status (the first start's demo ingestion, tests); null when
 * `onProgress`, told each running status, answers true (stop waiting).
 */
export async function waitForIngestion(
  ingestions: Ingestions,
  ingestionId: string,
  pollMs = 250,
  onProgress?: (status: IngestionStatus) => boolean,
): Promise<IngestionStatus | null> {
  for (;;) {
    const status = await ingestions.get(ingestionId);
    if (!status) throw new Error(`no ingestion ${ingestionId}`);
    if (status.state !== "running") return status;
    if (onProgress?.(status)) return null;
    await new Promise((r) => setTimeout(r, pollMs));
  }
}
