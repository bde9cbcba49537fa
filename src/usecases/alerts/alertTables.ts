// The alerts' tables, written by their projection (alertProjection.ts): each alert with the works it has seen, and
// each run with the works it delivered.
import type { TableSpec } from "../../../projections/tables.js";
import type { AlertDefinitionData, AlertPausedReason, AlertRunOutcome } from "../../domain/events.js";

declare module "../../../projections/tables.js" {
  interface RowOf {
    alerts: AlertRow;
    alert_runs: AlertRunRow;
  }
}

/**
 * An alert on a saved search; `seen`: the identities of the works it counts as seen
 * (src/usecases/alerts/alertRules.ts).
 */
export interface AlertRow {
  alert_id: string;
  org_id: string;
  key_id: string;
  definition: AlertDefinitionData;
  state: "active" | "paused" | "deleted";
  created_at: string;
  seen: string[];
  runs: number;
  last_run_at: string | null;
  paused_reason: AlertPausedReason | null;
  /** the new works its last run held back (max_cost_per_run, or past a run's most): its next run searches them again */
  deferred: string[];
}
/**
 * One run of an alert: its cached query, the rows and works it delivers, and how it ended (amount: what it charged).
 */
export interface AlertRunRow {
  query_id: string;
  alert_id: string;
  org_id: string;
  created_at: string;
  trigger: string;
  result_ids: string[];
  works: string[];
  cost_micros: string;
  state: "pending" | AlertRunOutcome;
  ended_at: string | null;
  amount_micros: string;
}

export const ALERTS: TableSpec<"alerts"> = {
  name: "alerts",
  columns: {
    alert_id: "text",
    org_id: "text",
    key_id: "text",
    definition: "jsonb",
    state: "text",
    created_at: "timestamptz",
    seen: "jsonb",
    runs: "integer",
    last_run_at: "timestamptz",
    paused_reason: "jsonb",
    deferred: "jsonb",
  },
  primaryKey: ["alert_id"],
  ddl: (p) => `-- alerts on a saved search: each with the works it has seen, and each run with the works it delivered
CREATE TABLE IF NOT EXISTS ${p}alerts (
  alert_id TEXT PRIMARY KEY, org_id TEXT NOT NULL, key_id TEXT NOT NULL, definition JSONB NOT NULL, state TEXT NOT NULL,
  created_at TIMESTAMPTZ NOT NULL, seen JSONB NOT NULL, runs INTEGER NOT NULL, last_run_at TIMESTAMPTZ);
CREATE INDEX IF NOT EXISTS ${p}alerts_org ON ${p}alerts (org_id, created_at);
-- why the service paused an alert (its collection retired); null when it runs or its organization paused it
ALTER TABLE ${p}alerts ADD COLUMN IF NOT EXISTS paused_reason JSONB;
-- the new works its last run held back, searched again by its next run
ALTER TABLE ${p}alerts ADD COLUMN IF NOT EXISTS deferred JSONB NOT NULL DEFAULT '[]';
`,
};

export const ALERT_RUNS: TableSpec<"alert_runs"> = {
  name: "alert_runs",
  columns: {
    query_id: "text",
    alert_id: "text",
    org_id: "text",
    created_at: "timestamptz",
    trigger: "text",
    result_ids: "jsonb",
    works: "jsonb",
    cost_micros: "bigint",
    state: "text",
    ended_at: "timestamptz",
    amount_micros: "bigint",
  },
  primaryKey: ["query_id"],
  ddl: (p) => `CREATE TABLE IF NOT EXISTS ${p}alert_runs (
  query_id TEXT PRIMARY KEY, alert_id TEXT NOT NULL, org_id TEXT NOT NULL, created_at TIMESTAMPTZ NOT NULL,
  trigger TEXT NOT NULL,
  result_ids JSONB NOT NULL, works JSONB NOT NULL, cost_micros BIGINT NOT NULL, state TEXT NOT NULL,
  ended_at TIMESTAMPTZ,
  amount_micros BIGINT NOT NULL);
CREATE INDEX IF NOT EXISTS ${p}alert_runs_alert ON ${p}alert_runs (alert_id, created_at);
`,
};
