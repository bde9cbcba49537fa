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

/** The alert steps workflows run; activities/alerts.ts implements them. */
export interface AlertActivities {
  startAlertRun(input: AlertRunInput): Promise<AlertRunStart>;
  endAlertRun(input: { alertId: string; queryId: string; delivered: boolean }): Promise<AlertRunOutcome>;
  /**
   * After a committed ingestion that added or changed documents: a run of each on_ingest alert watching the collection.
   */
  startAlertsAfterIngestion(input: AlertsAfterIngestionInput): Promise<number>;
}
