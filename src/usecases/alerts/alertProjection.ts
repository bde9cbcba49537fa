// What an alert's events change: its row (definition, state, the works it has seen, its runs) and each run's row.
// project() hands these events here; the same handler feeds the inline projector and replay.
import type { ProjectableEvent } from "../../domain/events.js";
import type { AlertRow } from "./alertTables.js";
import type { Change, ProjectionReader } from "../../../projections/projectionReader.js";

type AlertEvent = Extract<
  ProjectableEvent,
  { type: "AlertCreated" | "AlertPaused" | "AlertResumed" | "AlertDeleted" | "AlertRunStarted" | "AlertRunEnded" }
>;

function requireAlert(read: ProjectionReader, alertId: string): AlertRow {
  const row = read.alert(alertId);
  if (!row) throw new Error(`projection: no alert ${alertId}`);
  return row;
}

export function projectAlert(e: AlertEvent, read: ProjectionReader): Change[] {
  switch (e.type) {
    case "AlertCreated": {
      const d = e.data;
      return [
        {
          table: "alerts",
          row: {
            alert_id: d.alertId,
            org_id: d.orgId,
            key_id: d.keyId,
            definition: d.definition,
            state: "active",
            created_at: e.recordedAt,
            seen: [...d.seenWorks],
            deferred: [],
            runs: 0,
            last_run_at: null,
            paused_reason: null,
          },
        },
      ];
    }
    case "AlertPaused":
    case "AlertResumed":
    case "AlertDeleted":
      return [
        {
          table: "alerts",
          row: Object.assign(requireAlert(read, e.data.alertId), {
            state: e.type === "AlertPaused" ? "paused" : e.type === "AlertResumed" ? "active" : "deleted",
            paused_reason: e.type === "AlertPaused" ? (e.data.reason ?? null) : null,
          }),
        },
      ];
    case "AlertRunStarted": {
      const d = e.data;
      const alert = requireAlert(read, d.alertId);
      return [
        {
          table: "alerts",
          row: Object.assign(alert, {
            seen: [...alert.seen, ...d.works],
            deferred: [...(d.deferredWorks ?? [])],
            runs: alert.runs + 1,
            last_run_at: e.recordedAt,
          }),
        },
        {
          table: "alert_runs",
          row: {
            query_id: d.queryId,
            alert_id: d.alertId,
            org_id: d.orgId,
            created_at: e.recordedAt,
            trigger: d.trigger,
            result_ids: [...d.resultIds],
            works: [...d.works],
            cost_micros: d.costMicros,
            state: "pending",
            ended_at: null,
            amount_micros: "0",
          },
        },
      ];
    }
    case "AlertRunEnded": {
      const run = read.alertRun(e.data.queryId);
      if (!run) throw new Error(`projection: no alert run ${e.data.queryId}`);
      return [
        {
          table: "alert_runs",
          row: Object.assign(run, {
            state: e.data.outcome,
            ended_at: e.recordedAt,
            amount_micros: e.data.chargedMicros,
          }),
        },
      ];
    }
    default: {
      const unknownEvent: never = e;
      throw new Error(`projection: unknown alert event ${JSON.stringify(unknownEvent)}`);
    }
  }
}
