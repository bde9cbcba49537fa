// One ingestion of source files into a plain collection on Temporal: the steps of ingestionSteps.ts (stage, batches,
// finish) through activity proxies, then the alerts. Deterministic; the activities do the I/O and the books.
import { executeChild, ParentClosePolicy, patched, proxyActivities, setHandler } from "@temporalio/workflow";
import type { IngestionCounts } from "../src/domain/events.js";
import {
  ingestionProgressQuery,
  vectorBackfillWorkflowId,
  type IngestionActivities,
  type IngestionInput,
} from "./ingestionTypes.js";
import { vectorBackfillWorkflow } from "./vectorBackfill.js";
import { runIngestionSteps, startingProgress } from "./ingestionSteps.js";
import type { AlertActivities } from "./alertTypes.js";

// Reading, finishing and the failure record run on any worker; a batch runs on the ingestion task queue, where each
// worker process takes one at a time. A worker that dies mid-batch stops heartbeating: the batch runs again elsewhere
// (it is recorded once, by (ingestion, batch), so the counts stay exact).
const { stageIngestion, finishIngestion, failIngestion } = proxyActivities<IngestionActivities>({
  startToCloseTimeout: "30 minutes",
  heartbeatTimeout: "30 seconds",
  retry: {
    initialInterval: "1 second",
    maximumInterval: "30 seconds",
    maximumAttempts: 10,
    nonRetryableErrorTypes: ["VALIDATION_ERROR"],
  },
});
const batchActivities = (taskQueue: string) =>
  proxyActivities<IngestionActivities>({
    taskQueue,
    startToCloseTimeout: "30 minutes",
    heartbeatTimeout: "20 seconds",
    retry: {
      initialInterval: "1 second",
      maximumInterval: "30 seconds",
      maximumAttempts: 10,
      nonRetryableErrorTypes: ["VALIDATION_ERROR"],
    },
  });

// The alerts that watch the collection run after the commit; a failure to start them never fails the ingestion. The
// starts of thousands of runs may take minutes on a loaded server, but the activity beats every 2 s: a killed worker
// is noticed within the heartbeat timeout and its retry skips the runs already started.
const { startAlertsAfterIngestion } = proxyActivities<AlertActivities>({
  startToCloseTimeout: "15 minutes",
  heartbeatTimeout: "10 seconds",
  retry: { initialInterval: "1 second", maximumInterval: "10 seconds", maximumAttempts: 5 },
});

/** Chunks per backfill activity: about 15 s of embedding on one CPU core, a heartbeat's worth of loss when killed. */
const BACKFILL_BATCH_CHUNKS = 256;

export async function ingestionWorkflow(input: IngestionInput): Promise<IngestionCounts> {
  const progress = startingProgress();
  setHandler(ingestionProgressQuery, () => progress);
  const { ingestionId, collection } = input;
  const { ingestBatch } = batchActivities(input.batchTaskQueue);
  const counts = await runIngestionSteps(
    input,
    { stageIngestion, finishIngestion, failIngestion },
    ingestBatch,
    progress,
  );
  if (patched("alerts-after-ingestion")) {
    await startAlertsAfterIngestion({ ingestionId, collection: collection.name, counts }).catch(() => undefined);
  }
  if (input.vectors === "backfill" && collection.retrieval !== "sparse") {
    // committed and searchable by BM25; the ingestion ends when its chunks have their vectors (a demo waits for that)
    progress.phase = "backfilling";
    const batchSize = BACKFILL_BATCH_CHUNKS;
    progress.vectors = await executeChild(vectorBackfillWorkflow, {
      workflowId: vectorBackfillWorkflowId(ingestionId),
      args: [{ collection: collection.name, batchSize, batchTaskQueue: input.batchTaskQueue }],
      parentClosePolicy: ParentClosePolicy.ABANDON,
    }).then((coverage) => coverage ?? undefined);
  }
  return counts;
}
