// Alert activities: a run's two steps (search and send the new works; end it, charged once when delivered) and the
// start of the runs an ingestion's commit calls for. Thin: the alerts use case decides. A run's steps heartbeat, so a
// worker killed mid-step is noticed in seconds and the step retried on another.
import { asActivity, heartbeating } from "./asActivity.js";
import type { Alerts } from "../src/usecases/alerts/alerts.js";
import type {
  AlertActivities,
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
      // thousands of starts take a while: it beats, so a killed worker's starts resume elsewhere within seconds
      // (a retry skips the runs already started: each is named by its alert and the ingestion)
      return heartbeating(() =>
        asActivity(async () => (await deps.alerts().runAfterIngestion(input.collection, input.ingestionId)).length),
      );
    },
  };
}

export type { AlertActivities };
