// The operator CLI's alert commands: an organization's alerts as a table (the operator API's JSON with --json), one
// alert with its runs, and pause, resume or delete. Alerts run in the service (their runs and schedules are its
// workflows), so these go to the running server's operator API; main.ts registers them.
import type { Operations } from "../../usecases/operator/operations.js";
import { renderTable } from "./tables.js";

export type AlertOperations = Pick<Operations, "listAlerts" | "alert" | "pauseAlert" | "resumeAlert" | "deleteAlert">;

export const ALERT_USAGE = `  alert list ORG_ID                        the organization's alerts (the running service's;
                                           docs/webhooks.md)
  alert show ORG_ID ALERT_ID [--limit N]   an alert and its runs, newest first: status, works delivered, charge,
                                           queryId
  alert pause|resume|delete ORG_ID ALERT_ID`;

/** The positional arguments each alert command takes. */
export const ALERT_ARGUMENTS: Record<string, string[]> = {
  "alert list": ["ORG_ID"],
  "alert show": ["ORG_ID", "ALERT_ID"],
  "alert pause": ["ORG_ID", "ALERT_ID"],
  "alert resume": ["ORG_ID", "ALERT_ID"],
  "alert delete": ["ORG_ID", "ALERT_ID"],
};

type AdminCall = (method: string, path: string) => Promise<Record<string, unknown>>;

/** The alert operations sent to a running server's operator API. */
export function remoteAlertOperations(call: AdminCall): AlertOperations {
  const path = (orgId: string, alertId?: string, tail = "") => {
    const alert = alertId === undefined ? "" : `/${encodeURIComponent(alertId)}`;
    return `/organizations/${encodeURIComponent(orgId)}/alerts${alert}${tail}`;
  };
  return {
    listAlerts: (orgId) => call("GET", path(orgId)) as never,
    alert: (orgId, alertId, limit) =>
      call("GET", path(orgId, alertId, limit === undefined ? "" : `?limit=${limit}`)) as never,
    pauseAlert: (orgId, alertId) => call("POST", path(orgId, alertId, "/pause")) as never,
    resumeAlert: (orgId, alertId) => call("POST", path(orgId, alertId, "/resume")) as never,
    deleteAlert: (orgId, alertId) => call("DELETE", path(orgId, alertId)) as never,
  };
}

type AlertList = Awaited<ReturnType<Operations["listAlerts"]>>;
type AlertWithRuns = Awaited<ReturnType<Operations["alert"]>>;

/** The alert list as a table: one line an alert. */
export function alertListTable(list: AlertList): string {
  return renderTable(list.data as never, [
    { heading: "id", cell: (r) => r.id },
    { heading: "status", cell: (r) => r.status },
    { heading: "schedule", cell: (r) => r.schedule },
    { heading: "collections", cell: (r) => r.collections },
    { heading: "max/run", cell: (r) => r.max_cost_per_run },
    { heading: "webhook", cell: (r) => r.webhook },
    { heading: "runs", cell: (r) => r.runCount },
    { heading: "last run", cell: (r) => r.lastRunAt },
    { heading: "query", cell: (r) => r.query },
  ]);
}

/** One alert: its definition, then its runs as a table. */
export function alertTable(alert: AlertWithRuns): string {
  const { runs, ...definition } = alert;
  return [
    ...Object.entries(definition).map(
      ([k, v]) => `${k}: ${typeof v === "object" && v !== null ? JSON.stringify(v) : String(v)}`,
    ),
    "",
    "Runs",
    renderTable(runs as never, [
      { heading: "queryId", cell: (r) => r.queryId },
      { heading: "status", cell: (r) => r.status },
      { heading: "works", cell: (r) => r.works },
      { heading: "charged", cell: (r) => r.charged },
      { heading: "cost", cell: (r) => r.cost },
      { heading: "trigger", cell: (r) => r.trigger },
      { heading: "started", cell: (r) => r.createdAt },
      { heading: "ended", cell: (r) => r.endedAt },
    ]),
  ].join("\n");
}

/**
 * The alert commands over `ops`, given the positional arguments after the command's two words; list and show print
 * tables (JSON with `json`), the actions print the changed alert as the operator API answers it.
 */
export function alertCommands(
  ops: AlertOperations,
  args: string[],
  options: { json: boolean; limit: () => number | undefined },
  out: (text: string) => void,
): Record<string, () => Promise<number>> {
  const [orgId = "", alertId = ""] = args;
  const json = (v: unknown) => out(JSON.stringify(v, null, 2));
  return {
    "alert list": async () => {
      const list = await ops.listAlerts(orgId);
      out(options.json ? JSON.stringify(list, null, 2) : alertListTable(list));
      return 0;
    },
    "alert show": async () => {
      const alert = await ops.alert(orgId, alertId, options.limit());
      out(options.json ? JSON.stringify(alert, null, 2) : alertTable(alert));
      return 0;
    },
    "alert pause": async () => {
      json(await ops.pauseAlert(orgId, alertId));
      return 0;
    },
    "alert resume": async () => {
      json(await ops.resumeAlert(orgId, alertId));
      return 0;
    },
    "alert delete": async () => {
      json(await ops.deleteAlert(orgId, alertId));
      return 0;
    },
  };
}
