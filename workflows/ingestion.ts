// One ingestion of source files into a plain collection: stage the source into batches, index each batch, then finish
// (replace-mode deletions, inventory, the completed event). Deterministic; the activities do the I/O and the books.
import { patched, proxyActivities, setHandler } from "@temporalio/workflow";
import type { IngestionCounts } from "../src/domain/events.js";
import { addCounts as add, zeroCounts } from "../src/domain/ingestionCounts.js";
import {
  ingestionProgressQuery,
  type IngestionActivities,
  type IngestionInput,
  type IngestionProgress,
} from "./ingestionTypes.js";
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

// The alerts that watch the collection run after the commit; a failure to start them never fails the ingestion.
const { startAlertsAfterIngestion } = proxyActivities<AlertActivities>({
  startToCloseTimeout: "1 minute",
  retry: { initialInterval: "1 second", maximumInterval: "10 seconds", maximumAttempts: 5 },
});

export async function ingestionWorkflow(input: IngestionInput): Promise<IngestionCounts> {
  const progress: IngestionProgress = {
    phase: "reading",
    batches: null,
    batchesDone: 0,
    counts: zeroCounts(),
  };
  setHandler(ingestionProgressQuery, () => progress);
  const { ingestionId, collection } = input;
  const { ingestBatch } = batchActivities(input.batchTaskQueue);
  try {
    const staged = await stageIngestion(input);
    progress.phase = "indexing";
    progress.batches = staged.batches;
    progress.counts.documentsRead = staged.documentsRead;

    let next = 0;
    const worker = async (): Promise<void> => {
      while (next < staged.batches) {
        const batch = next++;
        progress.counts = add(progress.counts, await ingestBatch({ ingestionId, collection, batch }));
        progress.batchesDone += 1;
      }
    };
    await Promise.all(Array.from({ length: Math.max(1, Math.min(input.parallelism, staged.batches)) }, worker));

    progress.phase = "finishing";
    progress.counts = await finishIngestion(input);
    if (patched("alerts-after-ingestion")) {
      await startAlertsAfterIngestion({ ingestionId, collection: collection.name, counts: progress.counts }).catch(
        () => undefined,
      );
    }
    return progress.counts;
  } catch (err) {
    const message = err instanceof Error ? causeMessage(err) : String(err);
    await failIngestion({ ingestionId, collection: collection.name, error: message });
    throw err;
  }
}

/** The innermost message: an activity failure wraps the activity's own error. */
function causeMessage(err: Error): string {
  let inner: Error = err;
  while (inner.cause instanceof Error) inner = inner.cause;
  return inner.message;
}
