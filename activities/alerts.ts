// Alert activities: a run's two steps (search and send the new works; end it, charged once when delivered), the
// start of the runs an ingestion's commit calls for, and one batch of those runs. Thin: the alerts use case decides.
// The steps heartbeat, so a worker killed mid-step is noticed in seconds and the step retried on another.
import { asActivity, heartbeating } from "./asActivity.js";
import type { Alerts } from "../src/usecases/alerts/alerts.js";
import { Context } from "@temporalio/activity";
import type {
  AlertActivities,
  AlertBatchInput,
  AlertBatchOutcome,
  AlertRunInput,
  AlertRunStart,
  AlertsAfterIngestionInput,
} from "../workflows/alertTypes.js";
import type { AlertRunOutcome } from "../src/domain/events.js";

export interface AlertActivityDeps {
  /** the alerts use case (built on first use: it needs the Temporal client of the worker's connection) */
  alerts: () => Alerts;
}

export function createAlertActivities(deps: AlertActivityDeps): AlertActivities {
  return {
    async startAlertRun(input: AlertRunInput): Promise<AlertRunStart> {
      return heartbeating(() => asActivity(() => deps.alerts().startRun(input)));
    },
    async endAlertRun(input: { alertId: string; queryId: string; delivered: boolean }): Promise<AlertRunOutcome> {
      return heartbeating(() => asActivity(() => deps.alerts().endRun(input)));
    },
    async startAlertsAfterIngestion(input: AlertsAfterIngestionInput): Promise<number> {
      if (input.counts.documentsAdded + input.counts.documentsUpdated === 0) return 0;
      // a retry starts nothing new: the batches' workflow is named by the ingestion
      return heartbeating(() => asActivity(() => deps.alerts().runAfterIngestion(input.collection, input.ingestionId)));
    },
    async runAlertBatch(input: AlertBatchInput): Promise<AlertBatchOutcome> {
      const firstTry = Context.current().info.attempt === 1;
      return heartbeating(() => asActivity(() => deps.alerts().runBatch(input, firstTry)));
    },
  };
}

export type { AlertActivities };
