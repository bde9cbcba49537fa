// The alert runs an ingestion's commit calls for, run in batches: one activity searches, records and sends a batch of
// runs, and charges each one its receiver acknowledged (a 2xx to the run's first attempt); only a run still waiting for
// proof of delivery gets a workflow of its own (alertRun.ts). So a run costs Temporal one batch's share of a few
// steps, not two workflows of its own: a thousand runs are twenty activities. Several batches run at once, on any
// worker polling the queue. Deterministic; activities do the I/O.
import { proxyActivities } from "@temporalio/workflow";
import type { AlertActivities, AlertBatchesInput, AlertBatchOutcome } from "./alertTypes.js";
import { BUSINESS_ANSWERS } from "./shared.js";

// A batch beats every 2 s, so a worker killed mid-batch is noticed in seconds; its retry resumes the batch: a run
// already recorded is not searched again, an attempt already recorded is not sent again, a charge is made once.
const { runAlertBatch } = proxyActivities<AlertActivities>({
  startToCloseTimeout: "10 minutes",
  heartbeatTimeout: "10 seconds",
  retry: {
    initialInterval: "1 second",
    maximumInterval: "1 minute",
    backoffCoefficient: 2,
    maximumAttempts: 20,
    nonRetryableErrorTypes: BUSINESS_ANSWERS,
  },
});

/** Batches in flight at once: spread over the worker processes, each batch runs a few runs at a time itself. */
const BATCHES_IN_FLIGHT = 8;

export async function alertBatchesWorkflow(input: AlertBatchesInput): Promise<AlertBatchOutcome> {
  const total: AlertBatchOutcome = { delivered: 0, waiting: 0, empty: 0, skipped: 0 };
  let next = 0;
  const lane = async (): Promise<void> => {
    while (next < input.bounds.length) {
      const k = next++;
      const done = await runAlertBatch({
        ingestionId: input.ingestionId,
        collection: input.collection,
        plannedAt: input.plannedAt,
        from: input.bounds[k]!,
        to: input.bounds[k + 1] ?? null,
      });
      for (const key of Object.keys(total) as (keyof AlertBatchOutcome)[]) total[key] += done[key];
    }
  };
  await Promise.all(Array.from({ length: Math.min(BATCHES_IN_FLIGHT, input.bounds.length) }, lane));
  return total;
}
