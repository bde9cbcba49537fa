// The MCP tool `alerts`: the alerts of POST/GET /api/v1/alerts in one tool, an action per REST route (same use case,
// validation, organization and sandbox rules).
import { alertBody, parseOr422 } from "../../wire/schemas.js";
import { refuseSandbox } from "../../usecases/search/sandbox.js";
import { ALERTS_SANDBOX_REASON } from "../../usecases/alerts/alerts.js";
import { alertsArgs, alertsSchemas } from "../toolSchemas.js";
import { bad, type ToolDefinition } from "../toolKit.js";

export const alertsTool: ToolDefinition = {
  name: "alerts",
  cost: "billed",
  costNote: "each delivery of new works",
  description: "Alerts: new papers on a saved search, sent by webhook (unseen works only) and charged once delivered.",
  details:
    "create takes query, collection(s), filters, min_relevance, one_per_document, schedule (on_ingest, daily, " +
    "weekly), max_cost_per_run and webhook (an endpoint id); what the collections hold at creation counts as " +
    "seen. get shows the runs: each has a queryId that get_results re-fetches for 7 days.",
  schemas: alertsSchemas,
  run: async ({ deps, auth }, args) => {
    refuseSandbox(auth, "alerts", ALERTS_SANDBOX_REASON);
    const { action, id, ...rest } = parseOr422(alertsArgs, args);
    const actor = { kind: "key" as const, id: auth.key.id };
    if (action === "create") return deps.alerts.create(auth, parseOr422(alertBody, rest), actor);
    if (Object.keys(rest).length > 0) throw bad(`${action} takes only id; the alert's fields go with action create`);
    if (action === "list") return { data: await deps.alerts.list(auth.org.id) };
    if (id === undefined) throw bad(`id: ${action} needs the alert id (al_…); action list gives them`);
    if (action === "get") return deps.alerts.get(auth.org.id, id);
    if (action === "pause") return deps.alerts.pause(auth.org.id, id, actor);
    if (action === "resume") return deps.alerts.resume(auth.org.id, id, actor);
    return deps.alerts.remove(auth.org.id, id, actor);
  },
};
