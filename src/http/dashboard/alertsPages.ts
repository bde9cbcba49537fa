// The dashboard's alert pages: the organization's alerts with the form that creates one, and one alert with its runs
// (status, works delivered, charge, queryId) and its pause, resume and delete forms. Rendered with the shared layout.
import { html, type Html } from "./html.js";
import { chosen, csrfField, layout, notice, tableHead, typed, when, type FormInput, type Viewer } from "./layout.js";
import type { AlertRunView, AlertView } from "../../usecases/alerts/alerts.js";
import { ALERT_SCHEDULES, MAX_ALERT_QUERY_CHARS, pausedMessage } from "../../usecases/alerts/alertRules.js";

/** A key the member may pay an alert's runs with, and an endpoint it may send them to. */
export interface AlertFormChoices {
  keys: { id: string; label: string }[];
  webhooks: { id: string; url: string; enabled: boolean }[];
}

const SCHEDULE_TEXT: Record<AlertView["schedule"], string> = {
  on_ingest: "after each ingestion of new documents",
  daily: "daily",
  weekly: "weekly",
};

/** The notice of an alert the service paused: which collection was retired, when, and what to do. */
function pausedNotice(alert: AlertView, reason: NonNullable<AlertView["pausedReason"]>): Html {
  const text = `Alert "${alert.query}": ${pausedMessage(reason)}`;
  return html`<div data-paused-alert="${alert.id}">${notice("warn", text)}</div>`;
}

/** The forms that pause or resume, and delete, an alert (on the list and on its own page). */
function alertActions(viewer: Viewer, alert: AlertView): Html {
  const toggle = alert.status === "paused" ? "resume" : "pause";
  const csrf = csrfField(viewer.csrfToken);
  // an alert on a retired collection cannot be resumed: only deleted
  const canToggle = !alert.pausedReason;
  return html`${
    canToggle
      ? html`<form method="post" action="/dashboard/alerts/${alert.id}/${toggle}" class="inline">${csrf}
<button type="submit">${toggle === "pause" ? "Pause" : "Resume"}</button></form>`
      : ""
  }
<form method="post" action="/dashboard/alerts/${alert.id}/delete" class="inline"
 data-confirm="Delete this alert? Its runs stay in the ledger.">${csrf}
<button type="submit" class="danger">Delete</button></form>`;
}

export function alertsPage(
  viewer: Viewer,
  alerts: AlertView[],
  choices: AlertFormChoices,
  opts: { error?: string; input?: FormInput } = {},
): Html {
  const v = (name: string) => typed(opts.input, name);
  const rows = alerts.map(
    (a) => html`<tr data-alert-id="${a.id}">
  <td><a href="/dashboard/alerts/${a.id}">${a.query}</a><br><small>${a.id}</small></td>
  <td>${a.collections.join(", ")}</td>
  <td>${SCHEDULE_TEXT[a.schedule]}</td>
  <td>${a.status}${a.pausedReason ? html`<br><small>collection retired</small>` : ""}</td>
  <td class="num">${a.runCount}</td>
  <td>${when(a.lastRunAt)}</td>
  <td class="actions">${alertActions(viewer, a)}</td>
</tr>`,
  );
  const live = choices.webhooks.filter((w) => w.enabled);
  return layout(
    viewer,
    "alerts",
    "Alerts",
    html`${opts.error ? notice("error", opts.error) : ""}
${alerts.flatMap((a) => (a.pausedReason ? [pausedNotice(a, a.pausedReason)] : []))}
<section aria-labelledby="alerts-title">
<h2 id="alerts-title">Your alerts</h2>
<div class="scroll" tabindex="0"><table>
${tableHead(["Query", "Collections", "Schedule", "Status", "Runs", "Last run", "Actions"])}
<tbody>${rows.length ? rows : html`<tr><td colspan="7">No alerts yet.</td></tr>`}</tbody>
</table></div>
<p class="hint">An alert sends the new works its search finds, once each, as an <code>alert.matched</code> webhook;
a run is charged only when it was delivered (its webhook answered 2xx, or its queryId was re-fetched).</p>
</section>
<section aria-labelledby="create-alert-title">
<h2 id="create-alert-title">Create an alert</h2>
${
  choices.keys.length === 0
    ? notice("warn", "An alert's runs are paid by a live key: create a live key first (API Keys).")
    : html`<form method="post" action="/dashboard/alerts" class="grid">
  ${csrfField(viewer.csrfToken)}
  <label for="alert-query">Query</label>
  <input id="alert-query" name="query" required maxlength="${MAX_ALERT_QUERY_CHARS}" autocomplete="off"
   value="${v("query")}">
  <label for="alert-collections">Collections <small>(comma-separated)</small></label>
  <input id="alert-collections" name="collections" required maxlength="2000" placeholder="scifact, biomedical"
   value="${v("collections")}">
  <label for="alert-key">Paid by the key</label>
  <select id="alert-key" name="key" required>${choices.keys.map(
    (k) => html`<option value="${k.id}"${chosen(v("key") === k.id, "selected")}>${k.label}</option>`,
  )}</select>
  <label for="alert-schedule">Runs</label>
  <select id="alert-schedule" name="schedule">${ALERT_SCHEDULES.map(
    (s) => html`<option value="${s}"${chosen(v("schedule") === s, "selected")}>${SCHEDULE_TEXT[s]}</option>`,
  )}</select>
  <label for="alert-relevance">Minimum relevance <small>(0 to 1; empty: 0)</small></label>
  <input id="alert-relevance" name="min_relevance" inputmode="decimal" maxlength="20" value="${v("min_relevance")}">
  <label for="alert-cap">Most one run charges, in credits <small>(empty: no cap)</small></label>
  <input id="alert-cap" name="max_cost_per_run" inputmode="decimal" pattern="\\d{1,12}(\\.\\d{1,6})?"
   value="${v("max_cost_per_run")}">
  <label for="alert-webhook">Webhook endpoint</label>
  <select id="alert-webhook" name="webhook"><option value="">none: re-fetch runs by their queryId</option>${live.map(
    (w) => html`<option value="${w.id}"${chosen(v("webhook") === w.id, "selected")}>${w.url} (${w.id})</option>`,
  )}</select>
  <button type="submit">Create alert</button>
</form>`
}
</section>`,
  );
}

const RUN_STATUS_TEXT: Record<AlertRunView["status"], string> = {
  pending: "waiting for delivery",
  delivered: "delivered",
  empty: "nothing new",
  failed: "not delivered (not charged)",
};

export function alertPage(viewer: Viewer, alert: AlertView & { runs: AlertRunView[] }): Html {
  const runs = alert.runs.map(
    (r) => html`<tr data-query-id="${r.queryId}">
  <td>${when(r.createdAt)}</td>
  <td>${RUN_STATUS_TEXT[r.status]}</td>
  <td class="num">${r.works}</td>
  <td class="num">${r.charged}</td>
  <td class="num">${r.cost}</td>
  <td><a href="/dashboard/queries?queryId=${encodeURIComponent(r.queryId)}"><small>${r.queryId}</small></a></td>
  <td><small>${r.trigger}</small></td>
</tr>`,
  );
  return layout(
    viewer,
    "alerts",
    `Alert: ${alert.query}`,
    html`<p><a href="/dashboard/alerts">All alerts</a></p>
${alert.pausedReason ? pausedNotice(alert, alert.pausedReason) : ""}
<dl class="cards">
  <div><dt>Id</dt><dd><code>${alert.id}</code></dd></div>
  <div><dt>Status</dt><dd>${alert.status}</dd></div>
  <div><dt>Collections</dt><dd>${alert.collections.join(", ")}</dd></div>
  <div><dt>Schedule</dt><dd>${SCHEDULE_TEXT[alert.schedule]}</dd></div>
  <div><dt>Minimum relevance</dt><dd>${alert.min_relevance}</dd></div>
  <div><dt>Most one run charges</dt><dd>${alert.max_cost_per_run ?? "no cap"}</dd></div>
  <div><dt>Webhook endpoint</dt><dd>${alert.webhook ?? "none"}</dd></div>
  <div><dt>Works seen</dt><dd>${alert.seenWorks}</dd></div>
  <div><dt>Created</dt><dd>${when(alert.createdAt)}</dd></div>
</dl>
<p class="actions">${alertActions(viewer, alert)}</p>
<section aria-labelledby="runs-title">
<h2 id="runs-title">Runs</h2>
<div class="scroll" tabindex="0"><table>
${tableHead(["Started", "Status", "Works delivered", "Charged", "Cost", "Query id", "Trigger"])}
<tbody>${runs.length ? runs : html`<tr><td colspan="7">No runs yet.</td></tr>`}</tbody>
</table></div>
<p class="hint">A run's query id re-fetches its works with your key
(<code>GET /api/v1/search/results/{queryId}</code>) for 7 days; its charge is in the ledger under that id.</p>
</section>`,
  );
}
