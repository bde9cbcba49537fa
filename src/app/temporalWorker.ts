// Builds the Temporal worker that runs the workflows in workflows/ with activities from their factories.
import { fileURLToPath } from "node:url";
import { NativeConnection, Worker, bundleWorkflowCode, type WorkflowBundleWithSourceMap } from "@temporalio/worker";
import { createUnlockActivities, type UnlockActivityDeps } from "../../activities/unlock.js";
import { createAssistedActivities, type AssistedActivityDeps } from "../../activities/assisted.js";
import { alertBatchTaskQueueOf, deliveryTaskQueueOf, TASK_QUEUE } from "../../workflows/shared.js";
import { createIngestionActivities, type IngestionActivityDeps } from "../../activities/ingestion.js";
import { createCollectionWriters } from "../../activities/collectionWriters.js";
import { createVectorBackfillActivities } from "../../activities/vectorBackfill.js";
import {
  createWebhookActivities,
  type WebhookActivities,
  type WebhookActivityDeps,
} from "../../activities/webhooks.js";
import { createAlertActivities, type AlertActivities, type AlertActivityDeps } from "../../activities/alerts.js";
import { batchTaskQueueOf } from "../../workflows/ingestionTypes.js";

// the queue this worker polls; the composition root reads it here (use cases take it from workflows/shared.ts)
export { TASK_QUEUE };

const WORKFLOWS_PATH = fileURLToPath(new URL("../../workflows/index.ts", import.meta.url));

let bundle: Promise<WorkflowBundleWithSourceMap> | undefined;

/** Bundles the workflow code once per process (webpack is slow; several workers in a test share it). */
export function workflowBundle(): Promise<WorkflowBundleWithSourceMap> {
  bundle ??= bundleWorkflowCode({
    workflowsPath: WORKFLOWS_PATH,
    logger: {
      log: () => undefined,
      trace: () => undefined,
      debug: () => undefined,
      info: () => undefined,
      warn: (m: string) => console.warn(m),
      error: (m: string) => console.error(m),
    },
  });
  return bundle;
}

interface WorkerOptions {
  address: string;
  namespace: string;
  taskQueue?: string;
  deps: UnlockActivityDeps;
  /** the assisted-search activities' dependencies; without them this worker runs only unlocks */
  assisted?: AssistedActivityDeps;
  /** the webhook delivery activities' dependencies; without them this worker delivers no webhook */
  webhooks?: WebhookActivityDeps;
  /** the alert-run activities' dependencies; without them this worker runs no alert */
  alerts?: AlertActivityDeps;
  /** the ingestion activities' dependencies; without them this worker runs no ingestion */
  ingestion?: IngestionActivityDeps;
  /**
   * also take ingestion batches (the batch task queue, one at a time: a batch keeps the embedder's threads busy). On
   * the embedded engine only the process that owns the index may (the API process); on OpenSearch every worker process
   * may, and each one more embeds one batch more at a time. Default: with `ingestion`.
   */
  ingestBatches?: boolean;
}

interface TemporalWorker {
  /** the workflows and their short activities */
  worker: Worker;
  /** the ingestion batches' worker, when this process takes batches */
  batchWorker?: Worker;
  /** the deliveries' and charges' worker (the delivery queue), when this process delivers webhooks or runs alerts */
  deliveryWorker?: Worker;
  /** the worker of ingestions' batches of alert runs (the alerts' queue), when this process runs alerts */
  alertWorker?: Worker;
  connection: NativeConnection;
}

/**
 * Slots of the delivery queue per process: its steps are short (an HTTP attempt, a store write), and never wait for a
 * slot the main queue's searches hold.
 */
const DELIVERY_SLOTS = 16;

/**
 * Batches of alert runs per process at once, each running 4 runs at a time (a search, a send, a charge): 24 runs. On 2
 * cores 12, 24 and 32 at once ended a thousand runs equally soon (they wait on the store's append lock; measured in
 * docs/measurements.md), so a few keep the store's connections free for the process's other work.
 */
const ALERT_BATCH_SLOTS = 6;

/** The steps the delivery queue runs: a webhook's attempts and end, an alert run's charge. */
function deliveryActivities(webhooks?: WebhookActivities, alerts?: AlertActivities) {
  return {
    ...(webhooks ? { attemptDelivery: webhooks.attemptDelivery, endDelivery: webhooks.endDelivery } : {}),
    ...(alerts ? { endAlertRun: alerts.endAlertRun } : {}),
  };
}

export async function createTemporalWorker(opts: WorkerOptions): Promise<TemporalWorker> {
  const connection = await NativeConnection.connect({ address: opts.address });
  const writers = opts.ingestion ? (opts.ingestion.writers ?? createCollectionWriters(opts.ingestion.db)) : undefined;
  const ingestion = opts.ingestion ? createIngestionActivities({ ...opts.ingestion, writers }) : undefined;
  // the vector backfill runs beside the batches, on the queue every worker process polls
  const backfill =
    opts.ingestion && writers
      ? // the batches' fault pause (FAULT_INGEST_BATCH_DELAY_MS) holds each backfill batch before it writes, too
        createVectorBackfillActivities({
          ...opts.ingestion,
          writers,
          beforeWriteDelayMs: opts.ingestion.afterCommitDelayMs,
        })
      : undefined;
  const webhooks = opts.webhooks ? createWebhookActivities(opts.webhooks) : undefined;
  const alerts = opts.alerts ? createAlertActivities(opts.alerts) : undefined;
  const worker = await Worker.create({
    connection,
    namespace: opts.namespace,
    taskQueue: opts.taskQueue ?? TASK_QUEUE,
    workflowBundle: await workflowBundle(),
    activities: {
      ...createUnlockActivities(opts.deps),
      ...(opts.assisted ? createAssistedActivities(opts.assisted) : {}),
      ...(ingestion ?? {}),
      ...(webhooks ?? {}),
      ...(alerts ?? {}),
    },
    // this service runs its work inline on two cores; small slots keep latency predictable
    maxConcurrentActivityTaskExecutions: 20,
    maxConcurrentWorkflowTaskExecutions: 20,
  });
  const batchWorker =
    ingestion && opts.ingestBatches !== false
      ? await Worker.create({
          connection,
          namespace: opts.namespace,
          taskQueue: batchTaskQueueOf(opts.taskQueue ?? TASK_QUEUE),
          activities: { ingestBatch: ingestion.ingestBatch, ...backfill },
          maxConcurrentActivityTaskExecutions: 1,
        })
      : undefined;
  const deliveryWorker =
    webhooks || alerts
      ? await Worker.create({
          connection,
          namespace: opts.namespace,
          taskQueue: deliveryTaskQueueOf(opts.taskQueue ?? TASK_QUEUE),
          activities: deliveryActivities(webhooks, alerts),
          maxConcurrentActivityTaskExecutions: DELIVERY_SLOTS,
        })
      : undefined;
  const alertWorker = alerts
    ? await Worker.create({
        connection,
        namespace: opts.namespace,
        taskQueue: alertBatchTaskQueueOf(opts.taskQueue ?? TASK_QUEUE),
        activities: { runAlertBatch: alerts.runAlertBatch },
        maxConcurrentActivityTaskExecutions: ALERT_BATCH_SLOTS,
      })
    : undefined;
  return { worker, batchWorker, deliveryWorker, alertWorker, connection };
}

/** The process's workers: the main one, and the batch, delivery and alert workers where it has them. */
const workersOf = (created: TemporalWorker): Worker[] =>
  [created.worker, created.batchWorker, created.deliveryWorker, created.alertWorker].filter(
    (w): w is Worker => w !== undefined,
  );

/** Begins the shutdown of every worker of the process still running (the SDK's own signal handling may have begun). */
export function shutdownTemporalWorker(created: TemporalWorker): void {
  for (const w of workersOf(created)) if (w.getState() === "RUNNING") w.shutdown();
}

/** Runs the process's workers until all stop; the first one to fail stops the others. */
export async function runTemporalWorker(created: TemporalWorker): Promise<void> {
  const stop = () => shutdownTemporalWorker(created);
  await Promise.all(
    workersOf(created).map((w) =>
      w.run().catch((err: unknown) => {
        stop();
        throw err;
      }),
    ),
  );
}
