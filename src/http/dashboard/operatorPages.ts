// The operator's pages: every organization with its balance and reconciliation, the catalogue, and one
// organization's page with the operator's actions.
import { html, type Html } from "./html.js";
import type { ConsoleData } from "../../usecases/dashboard/consoleData.js";
import type { CollectionsAdminList } from "../../usecases/collections/manageCollections.js";
import type { IngestionStatus } from "../../ingest/ingestions.js";
import { keysSections } from "./keysPage.js";
import { type Viewer, credits, csrfField, layout, notice, when } from "./layout.js";
import { ledgerTable } from "./ledgerPage.js";
import { usageTable } from "./usagePage.js";

const reconciliationCell = (r: { ok: boolean; discrepancies: unknown[] } | null) =>
  r === null ? "no events" : r.ok ? "ok" : html`<strong>${r.discrepancies.length} discrepancies</strong>`;

export function operatorPage(viewer: Viewer, data: Awaited<ReturnType<ConsoleData["operatorOverview"]>>): Html {
  const pageHref = (n: number) =>
    `/dashboard/operator?${new URLSearchParams({ ...(data.q ? { q: data.q } : {}), page: String(n) }).toString()}`;
  return layout(
    viewer,
    "operator",
    "The whole house",
    html`<dl class="cards">
  <div><dt>Hash chain</dt><dd id="verify">${data.verify.ok ? html`intact (${data.verify.checked} events)` : html`<strong>broken at position ${data.verify.firstBadPosition}</strong>: ${data.verify.reason}`}</dd></div>
  <div><dt>Reconciliation</dt><dd id="reconciliation">${data.reconciliationOk ? "every organization reconciles" : html`<strong>${data.discrepancies} discrepancies</strong>`}</dd></div>
  <div><dt>Organizations</dt><dd id="org-count">${data.q ? html`${data.total} matching` : data.total}</dd></div>
</dl>
<form method="get" action="/dashboard/operator" class="inline" role="search">
  <label for="org-search">Find an organization</label>
  <input id="org-search" name="q" type="search" value="${data.q}" maxlength="200" placeholder="name or id">
  <button type="submit">Search</button>${data.q ? html` <a href="/dashboard/operator">Show all</a>` : ""}
</form>
<div class="scroll"><table id="orgs-table">
<caption>Organizations${data.q ? html` matching “${data.q}”` : ""}, by name: page ${data.page} of ${data.pages}</caption>
<thead><tr><th scope="col">Name</th><th scope="col">Id</th><th scope="col">Balance</th><th scope="col">Billing</th><th scope="col">Suspended</th><th scope="col">Members</th><th scope="col">Active keys</th><th scope="col">Reconciliation</th></tr></thead>
<tbody>${
      data.organizations.length
        ? data.organizations.map(
            (
              o,
            ) => html`<tr data-org-id="${o.id}"><td><a href="/dashboard/operator/orgs/${o.id}">${o.name}</a></td><td><code>${o.id}</code></td><td class="num">${credits(o.balanceMicros)}</td><td>${o.billingEnabled ? o.billingMode : `${o.billingMode} (off)`}</td><td>${o.suspended ? "yes" : "no"}</td><td class="num">${o.members}</td><td class="num">${o.activeKeys}</td>
<td>${reconciliationCell(o.reconciliation)}</td></tr>`,
          )
        : html`<tr><td colspan="8">${data.q ? "No organization matches." : "No organizations yet."}</td></tr>`
    }</tbody>
</table></div>
${
  data.pages > 1
    ? html`<nav aria-label="Pages of organizations" class="pager"><ul>
  <li>${data.page > 1 ? html`<a href="${pageHref(data.page - 1)}" rel="prev">Previous</a>` : html`<span aria-disabled="true">Previous</span>`}</li>
  <li aria-current="page">Page ${data.page} of ${data.pages}</li>
  <li>${data.page < data.pages ? html`<a href="${pageHref(data.page + 1)}" rel="next">Next</a>` : html`<span aria-disabled="true">Next</span>`}</li>
</ul></nav>`
    : ""
}
<div class="scroll"><table id="journal-requests">
<caption>Journal requests</caption>
<thead><tr><th scope="col">Journal</th><th scope="col">ISSN</th><th scope="col">Requests</th><th scope="col">Organizations</th><th scope="col">Last asked</th></tr></thead>
<tbody>${data.journals.journals.length ? data.journals.journals.map((j) => html`<tr><td>${j.title ?? ""}</td><td>${j.issn ?? ""}</td><td class="num">${j.requests}</td><td class="num">${j.organizations}</td><td>${when(j.lastRequestedAt)}</td></tr>`) : html`<tr><td colspan="5">No journal requests.</td></tr>`}</tbody>
</table></div>
${data.collections ? collectionsTable(data.collections) : ""}
<p class="hint">Invite members with <code>npm run cli -- member invite ORG_ID EMAIL --role owner</code> or <code>POST /admin/v1/organizations/{id}/invites</code>.</p>`,
  );
}

const INGESTION_STATE = { running: "running", completed: "completed", failed: "failed" } as const;

/**
 * The catalogue on the operator's page: each collection's state and last ingestion, the meta-collections, the retired
 * names.
 */
function collectionsTable(list: CollectionsAdminList): Html {
  const last = (i: IngestionStatus | null) =>
    i === null
      ? "none recorded"
      : html`${INGESTION_STATE[i.state]} (${i.mode}, ${i.documentsAdded} added, ${i.documentsUpdated} updated, ${i.documentsDeleted} deleted, ${i.documentsUnchanged} unchanged) ${when(i.finishedAt ?? i.startedAt)}${i.error ? html`: ${i.error}` : ""}`;
  return html`<div class="scroll"><table id="collections-table">
<caption>Collections (catalogue version ${list.catalogueVersion})</caption>
<thead><tr><th scope="col">Name</th><th scope="col">Retrieval</th><th scope="col">State</th><th scope="col">Documents</th><th scope="col">Price per 1000 tokens</th><th scope="col">Last ingestion</th></tr></thead>
<tbody>${list.collections.map((c) => html`<tr data-collection="${c.name}"><td>${c.displayName} <code>${c.name}</code></td><td>${c.retrieval}</td><td>${c.state}</td><td class="num">${c.documentCount}</td><td class="num">${c.pricePer1000}</td><td>${last(c.lastIngestion)}</td></tr>`)}</tbody>
</table></div>
${list.metaCollections.length ? html`<p id="meta-collections">Meta-collections: ${list.metaCollections.map((m, i) => html`${i ? ", " : ""}<code>${m.name}</code> (${m.members.join(", ")})`)}.</p>` : ""}
${list.retired.length ? html`<p id="retired-collections">Retired: ${list.retired.join(", ")}.</p>` : ""}
<p class="hint">Add, ingest and retire collections with <code>npm run cli -- collection add|ingest|retire</code> or <code>/admin/v1/collections</code> (docs/operations.md).</p>`;
}

/** What an operator's action on an organization's page did, shown after its redirect (the query names one of these). */
export const OPERATOR_DONE = {
  credits: "Credits added.",
  limits: "Limits changed.",
  suspended: "Billing suspended: paid searches answer 402 BILLING_SUSPENDED until you resume it.",
  resumed: "Billing resumed.",
  revoked: "Key revoked: requests with it are refused from now on.",
  cap: "Spending cap changed.",
} as const;
export type OperatorDone = keyof typeof OPERATOR_DONE;

export function operatorOrgPage(
  viewer: Viewer,
  data: NonNullable<Awaited<ReturnType<ConsoleData["operatorOrganization"]>>>,
  opts: { done?: OperatorDone; error?: string; created?: { id: string; key: string } } = {},
): Html {
  const { org } = data.overview;
  const base = `/dashboard/operator/orgs/${org.id}`;
  const limit = (name: keyof typeof org.limits, label: string) =>
    html`<label for="limit-${name}">${label}</label><input id="limit-${name}" name="${name}" inputmode="numeric" pattern="\\d{1,9}" required value="${org.limits[name]}">`;
  return layout(
    viewer,
    "operator",
    org.name,
    html`<p><a href="/dashboard/operator">All organizations</a> · id <code>${org.id}</code></p>
${opts.done ? notice("ok", OPERATOR_DONE[opts.done]) : ""}
${org.suspended ? notice("error", "Billing for this organization is on hold: paid searches answer 402 BILLING_SUSPENDED.") : ""}
<dl class="cards">
  <div><dt>Balance</dt><dd id="balance">${credits(org.balanceMicros)} credits${org.hideBalance ? html`<br><small>hidden from its members</small>` : ""}</dd></div>
  <div><dt>Billing mode</dt><dd id="billing-mode">${org.billingEnabled ? org.billingMode : `${org.billingMode} (billing off)`}</dd></div>
  <div><dt>Billing</dt><dd id="suspended">${org.suspended ? "suspended" : "active"}</dd></div>
  <div><dt>Queries today</dt><dd>${data.overview.today.queries} of ${data.overview.today.limit}</dd></div>
  <div><dt>Queries this month</dt><dd>${data.overview.month.queries} of ${data.overview.month.limit}</dd></div>
  <div><dt>Spend this month</dt><dd>${credits(data.overview.month.spendMicros)} credits</dd></div>
</dl>
<section aria-labelledby="actions-title">
<h2 id="actions-title">Actions</h2>
<div class="actions-grid">
<form method="post" action="${base}/credits" class="grid" aria-labelledby="credits-title">
  <h3 id="credits-title">Add credits</h3>
  ${csrfField(viewer.csrfToken)}
  <label for="credit-amount">Amount in credits</label><input id="credit-amount" name="amount" inputmode="decimal" required pattern="\\d{1,12}(\\.\\d{1,6})?" placeholder="25.000000">
  <label for="credit-reference">Reference</label><input id="credit-reference" name="reference" maxlength="200" placeholder="invoice 2031-114">
  <button type="submit">Add credits</button>
</form>
<form method="post" action="${base}/limits" class="grid" aria-labelledby="limits-title">
  <h3 id="limits-title">Limits</h3>
  ${csrfField(viewer.csrfToken)}
  ${limit("perMinute", "Requests per minute")}
  ${limit("daily", "Queries per day")}
  ${limit("monthly", "Queries per month")}
  ${limit("previewPerHour", "Previews per hour")}
  <button type="submit">Change limits</button>
</form>
${
  org.suspended
    ? html`<form method="post" action="${base}/resume" class="grid" aria-labelledby="hold-title">
  <h3 id="hold-title">Billing hold</h3>
  ${csrfField(viewer.csrfToken)}
  <p>Paid searches are refused while billing is suspended.</p>
  <button type="submit">Resume billing</button>
</form>`
    : html`<form method="post" action="${base}/suspend" class="grid" aria-labelledby="hold-title" data-confirm="Suspend billing for ${org.name}? Its paid searches will be refused.">
  <h3 id="hold-title">Billing hold</h3>
  ${csrfField(viewer.csrfToken)}
  <label for="suspend-reason">Reason</label><input id="suspend-reason" name="reason" maxlength="500" placeholder="invoice overdue">
  <button type="submit" class="danger">Suspend billing</button>
</form>`
}
</div>
</section>
<section aria-labelledby="org-keys-title">
<h2 id="org-keys-title">API keys</h2>
${keysSections(viewer, data.keys, { actions: `${base}/keys`, canSetCaps: true, created: opts.created, error: opts.error })}
</section>
<section aria-labelledby="org-usage-title">
<h2 id="org-usage-title">Usage, last ${data.usage.days.length} days</h2>
${usageTable(data.usage.days, data.usage.rows)}
</section>
<section aria-labelledby="org-ledger-title">
<h2 id="org-ledger-title">Ledger</h2>
${ledgerTable(data.ledger)}
</section>
<section aria-labelledby="org-members-title">
<h2 id="org-members-title">Members</h2>
<div class="scroll"><table id="org-members">
<thead><tr><th scope="col">Email</th><th scope="col">Role</th><th scope="col">Joined</th></tr></thead>
<tbody>${data.roster.members.length ? data.roster.members.map((m) => html`<tr><td>${m.email}</td><td>${m.role}</td><td>${when(m.joinedAt)}</td></tr>`) : html`<tr><td colspan="3">No members yet.</td></tr>`}</tbody>
</table></div>
${data.roster.invites.length ? html`<div class="scroll"><table><caption>Open invites</caption><thead><tr><th scope="col">Email</th><th scope="col">Role</th><th scope="col">Invited</th><th scope="col">Expires</th></tr></thead><tbody>${data.roster.invites.map((i) => html`<tr><td>${i.email}</td><td>${i.role}</td><td>${when(i.invitedAt)}</td><td>${when(i.expiresAt)}</td></tr>`)}</tbody></table></div>` : ""}
<p class="hint">Invite with <code>npm run cli -- member invite ${org.id} EMAIL --role owner</code>.</p>
</section>`,
  );
}
