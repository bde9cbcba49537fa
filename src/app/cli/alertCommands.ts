// The operator CLI's alert commands: an organization's alerts as a table (the operator API's JSON with --json), one
// alert with its runs, and pause, resume or delete. Alerts run in the service (their runs and schedules are its
// workflows), so these go to the running server's operator API; main.ts registers them.
import type { Operations } from "../../usecases/operator/operations.js";
import { renderTable } from "./tables.js";
import { intOpt, type CommandContext, type Commands } from "./commandContext.js";

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

type AlertList = Awaited<ReturnType<Operations["listAlerts"]>>;
type AlertWithRuns = Awaited<ReturnType<Operations["alert"]>>;

/** The alert list as a table: one line an alert. */
function alertListTable(list: AlertList): string {
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
function alertTable(alert: AlertWithRuns): string {
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

/** The alert commands: list and show print tables (the operator API's JSON with --json), the actions print the
 * changed alert as the operator API answers it. */
export function alertCommands({ values, rest, ops, print }: CommandContext): Commands {
  const [orgId = "", alertId = ""] = rest;
  const json = values.json ?? false;
  return {
    "alert list": async () => {
      const list = await ops.listAlerts(orgId);
      if (json) print(list);
      else console.log(alertListTable(list));
      return 0;
    },
    "alert show": async () => {
      const alert = await ops.alert(orgId, alertId, intOpt(values.limit, "limit"));
      if (json) print(alert);
      else console.log(alertTable(alert));
      return 0;
    },
    "alert pause": async () => {
      print(await ops.pauseAlert(orgId, alertId));
      return 0;
    },
    "alert resume": async () => {
      print(await ops.resumeAlert(orgId, alertId));
      return 0;
    },
    "alert delete": async () => {
      print(await ops.deleteAlert(orgId, alertId));
      return 0;
    },
  };
}
