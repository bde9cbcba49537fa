// The alert runs an ingestion's commit calls for, run in batches: one activity searches, records and sends a batch of
// runs, and charges each one its receiver acknowledged (a 2xx to the run's first attempt); only a run still waiting for
// proof of delivery gets a workflow of its own (alertRun.ts). So a run costs Temporal one batch's share of a few
// steps, not two workflows of its own: a thousand runs are twenty activities. The batches wait on the alerts' own
// queue, which each worker process takes a few at a time: more worker processes, more batches at once. Deterministic;
// activities do the I/O.
import { proxyActivities, workflowInfo } from "@temporalio/workflow";
import { alertStepRetry, type AlertActivities, type AlertBatchesInput, type AlertBatchOutcome } from "./alertTypes.js";
import { alertBatchTaskQueueOf, BUSINESS_ANSWERS } from "./shared.js";

// A batch beats every 2 s, so a worker killed mid-batch is noticed in seconds; its retry resumes the batch: a run
// already recorded is not searched again, an attempt already recorded is not sent again, a charge is made once.
const batchOptions = {
  startToCloseTimeout: "10 minutes",
  heartbeatTimeout: "10 seconds",
  retry: alertStepRetry(BUSINESS_ANSWERS),
};

/**
 * Batches scheduled at once: the workers' slots on the alerts' queue decide how many run (a few per process); this
 * bounds only what waits in the queue (10,000 alerts are 200 batches).
 */
const BATCHES_IN_FLIGHT = 256;

export async function alertBatchesWorkflow(input: AlertBatchesInput): Promise<AlertBatchOutcome> {
  const { runAlertBatch } = proxyActivities<AlertActivities>({
    ...batchOptions,
    taskQueue: alertBatchTaskQueueOf(workflowInfo().taskQueue),
  });
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
