// What the alert-run workflows, their activities and the alerts use case agree on; no I/O, safe in the workflow
// sandbox.
import { defineSignal } from "@temporalio/workflow";
import type { AlertRunOutcome, IngestionCounts } from "../src/domain/events.js";

export interface AlertRunInput {
  alertId: string;
  /** the run's cached query (derived from the alert and its trigger, so a trigger sent twice starts one run) */
  queryId: string;
  /** what started it: `ingestion:<id>`, `schedule`, ... */
  trigger: string;
  /** how long the run waits for proof that it reached its receiver (a 2xx or a re-fetch) before it ends unpaid */
  deliveryWaitMs: number;
}

export interface AlertScheduleInput {
  alertId: string;
  deliveryWaitMs: number;
}

/** What a run found: nothing new (ended at once), or new works sent, waiting for proof of delivery. */
export type AlertRunStart = { status: "empty" | "skipped" } | { status: "sent"; works: number };

/** A proof of delivery: the webhook answered 2xx, or the client re-fetched the run's queryId. */
export const alertDeliveredSignal = defineSignal("alertDelivered");

/**
 * One workflow per run, named by its queryId: the proof of delivery finds it, and a second start of the same run starts
 * nothing.
 */
export const alertRunWorkflowId = (queryId: string) => `alert-run-${queryId}`;
/** The Temporal Schedule of a daily or weekly alert. */
export const alertScheduleId = (alertId: string) => `alert-schedule-${alertId}`;

export interface AlertsAfterIngestionInput {
  ingestionId: string;
  collection: string;
  counts: IngestionCounts;
}

/**
 * The runs an ingestion's commit calls for, in batches: batch k takes the watching alerts whose ids lie from
 * `bounds[k]` up to (not including) `bounds[k + 1]`, created by `plannedAt` (an alert made after the commit counts its
 * works as seen already).
 */
export interface AlertBatchesInput {
  ingestionId: string;
  collection: string;
  plannedAt: string;
  bounds: string[];
}

export interface AlertBatchInput {
  ingestionId: string;
  collection: string;
  plannedAt: string;
  /** the batch's first alert id */
  from: string;
  /** the next batch's first alert id; null for the last batch */
  to: string | null;
}

/**
 * How a batch's runs went: delivered (a 2xx at the first attempt, charged), waiting (their own workflow waits for
 * proof of delivery), empty (nothing new, ended free), skipped (paused, deleted, or the key can no longer pay).
 */
export type AlertBatchOutcome = Record<"delivered" | "waiting" | "empty" | "skipped", number>;

/** One workflow per ingestion that starts alert runs, named by it: a second start of the same commit starts nothing. */
export const alertBatchesWorkflowId = (ingestionId: string) => `alert-runs-${ingestionId}`;

/**
 * How an alert step (a run's step, a batch of runs) is retried: backing off to a minute, 20 times, never on a business
 * answer.
 */
export const alertStepRetry = (businessAnswers: string[]) => ({
  initialInterval: "1 second",
  maximumInterval: "1 minute",
  backoffCoefficient: 2,
  maximumAttempts: 20,
  nonRetryableErrorTypes: businessAnswers,
});

/** The alert steps workflows run; activities/alerts.ts implements them. */
export interface AlertActivities {
  startAlertRun(input: AlertRunInput): Promise<AlertRunStart>;
  endAlertRun(input: { alertId: string; queryId: string; delivered: boolean }): Promise<AlertRunOutcome>;
  /**
   * After a committed ingestion that added or changed documents: the runs of the on_ingest alerts watching the
   * collection, planned in batches and started as one workflow; how many alerts watch it.
   */
  startAlertsAfterIngestion(input: AlertsAfterIngestionInput): Promise<number>;
  /** One batch of an ingestion's runs, each searched, sent, and charged when its receiver answered 2xx. */
  runAlertBatch(input: AlertBatchInput): Promise<AlertBatchOutcome>;
}
