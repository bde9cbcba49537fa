// The operator's pages: every organization with its balance and reconciliation, the catalogue, and one
// organization's page with the operator's actions.
import { randomUUID } from "node:crypto";
import { html, type Html } from "./html.js";
import type { ConsoleData } from "../../usecases/dashboard/consoleData.js";
import type { CollectionsAdminList, CollectionVectors } from "../../usecases/collections/manageCollections.js";
import type { IngestionStatus } from "../../ingest/ingestions.js";
import { ingestionProgressText } from "../../ingest/progressReport.js";
import { keysSections } from "./keysPage.js";
import { type Viewer, SUSPENDED_NOTICE, credits, csrfField, layout, notice, tableHead, when } from "./layout.js";
import { ledgerTable } from "./ledgerPage.js";
import { invitesTable } from "./membersPage.js";
import { usageTable } from "./usagePage.js";

const reconciliationCell = (r: { ok: boolean; discrepancies: unknown[] } | null) =>
  r === null ? "no events" : r.ok ? "ok" : html`<strong>${r.discrepancies.length} discrepancies</strong>`;

type OperatorOverview = Awaited<ReturnType<ConsoleData["operatorOverview"]>>;

const orgLink = (o: { id: string; name: string }) => html`<a href="/dashboard/operator/orgs/${o.id}">${o.name}</a>`;

const orgRow = (o: OperatorOverview["organizations"][number]) => html`<tr data-org-id="${o.id}"><td>${orgLink(o)}</td>
<td><code>${o.id}</code></td><td class="num">${credits(o.balanceMicros)}</td>
<td>${o.billingEnabled ? o.billingMode : `${o.billingMode} (off)`}</td>
<td>${o.suspended ? "yes" : "no"}</td><td class="num">${o.members}</td><td class="num">${o.activeKeys}</td>
<td>${reconciliationCell(o.reconciliation)}</td></tr>`;

const journalRow = (j: OperatorOverview["journals"]["journals"][number]) => html`<tr><td>${j.title ?? ""}</td>
<td>${j.issn ?? ""}</td><td class="num">${j.requests}</td><td class="num">${j.organizations}</td>
<td>${when(j.lastRequestedAt)}</td></tr>`;

/** The previous and next links of a paged list; a link that leads nowhere is shown disabled. */
const pageLink = (href: string | undefined, rel: "prev" | "next", label: string) =>
  href ? html`<a href="${href}" rel="${rel}">${label}</a>` : html`<span aria-disabled="true">${label}</span>`;

export function operatorPage(viewer: Viewer, data: OperatorOverview): Html {
  const pageHref = (n: number) =>
    `/dashboard/operator?${new URLSearchParams({ ...(data.q ? { q: data.q } : {}), page: String(n) }).toString()}`;
  const verify = data.verify.ok
    ? html`intact (${data.verify.checked} events)`
    : html`<strong>broken at position ${data.verify.firstBadPosition}</strong>: ${data.verify.reason}`;
  const reconciliation = data.reconciliationOk
    ? "every organization reconciles"
    : html`<strong>${data.discrepancies} discrepancies</strong>`;
  return layout(
    viewer,
    "operator",
    "The whole house",
    html`<dl class="cards">
  <div><dt>Hash chain</dt><dd id="verify">${verify}</dd></div>
  <div><dt>Reconciliation</dt><dd id="reconciliation">${reconciliation}</dd></div>
  <div><dt>Organizations</dt><dd id="org-count">${data.q ? html`${data.total} matching` : data.total}</dd></div>
</dl>
<form method="get" action="/dashboard/operator" class="inline" role="search">
  <label for="org-search">Find an organization</label>
  <input id="org-search" name="q" type="search" value="${data.q}" maxlength="200" placeholder="name or id">
  <button type="submit">Search</button>${data.q ? html` <a href="/dashboard/operator">Show all</a>` : ""}
</form>
<div class="scroll" tabindex="0"><table id="orgs-table">
<caption>Organizations${data.q ? html` matching “${data.q}”` : ""}, by name:
page ${data.page} of ${data.pages}</caption>
${tableHead(["Name", "Id", "Balance", "Billing", "Suspended", "Members", "Active keys", "Reconciliation"])}
<tbody>${
      data.organizations.length
        ? data.organizations.map(orgRow)
        : html`<tr><td colspan="8">${data.q ? "No organization matches." : "No organizations yet."}</td></tr>`
    }</tbody>
</table></div>
${
  data.pages > 1
    ? html`<nav aria-label="Pages of organizations" class="pager"><ul>
  <li>${pageLink(data.page > 1 ? pageHref(data.page - 1) : undefined, "prev", "Previous")}</li>
  <li aria-current="page">Page ${data.page} of ${data.pages}</li>
  <li>${pageLink(data.page < data.pages ? pageHref(data.page + 1) : undefined, "next", "Next")}</li>
</ul></nav>`
    : ""
}
<div class="scroll" tabindex="0"><table id="journal-requests">
<caption>Journal requests</caption>
${tableHead(["Journal", "ISSN", "Requests", "Organizations", "Last asked"])}
<tbody>${
      data.journals.journals.length
        ? data.journals.journals.map(journalRow)
        : html`<tr><td colspan="5">No journal requests.</td></tr>`
    }</tbody>
</table></div>
${data.collections ? collectionsTable(data.collections) : ""}
<p class="hint">Invite members with <code>npm run cli -- member invite ORG_ID EMAIL --role owner</code>
or <code>POST /admin/v1/organizations/{id}/invites</code>.</p>`,
  );
}

/** A collection's vectors as the console's table says them: the share, and whether the backfill still runs. */
export function vectorsText(retrieval: string, vectors: CollectionVectors | null): string {
  if (vectors === null) return retrieval === "sparse" ? "none (keywords only)" : "not indexed yet";
  const percent = `${Math.floor(vectors.share * 1000) / 10}%`;
  return vectors.backfilling ? `${percent}, backfill running` : `${percent}`;
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
      : html`${INGESTION_STATE[i.state]} (${i.mode}, ${i.documentsAdded} added, ${i.documentsUpdated} updated, ${
          i.documentsDeleted
        } deleted, ${i.documentsUnchanged} unchanged, ${i.documentsExcluded} excluded) ${when(
          i.finishedAt ?? i.startedAt,
        )}${
          i.error ? html`: ${i.error}` : ""
        }${i.progress ? html`<br><small data-progress>${ingestionProgressText("now", i.progress)}</small>` : ""}`;
  const row = (c: CollectionsAdminList["collections"][number]) => html`<tr data-collection="${c.name}"><td>${
    c.displayName
  } <code>${c.name}</code></td><td>${c.retrieval}</td><td>${c.state}</td><td class="num">${c.documentCount}</td>
<td class="num">${c.pricePer1000}</td><td data-vectors>${vectorsText(c.retrieval, c.vectors)}</td><td>${last(
    c.lastIngestion,
  )}</td></tr>`;
  const metas = list.metaCollections.map(
    (m, i) => html`${i ? ", " : ""}<code>${m.name}</code> (${m.members.join(", ")})`,
  );
  return html`<div class="scroll" tabindex="0"><table id="collections-table">
<caption>Collections (catalogue version ${list.catalogueVersion})</caption>
${tableHead(["Name", "Retrieval", "State", "Documents", "Price per 1000 tokens", "Vectors", "Last ingestion"])}
<tbody>${list.collections.map(row)}</tbody>
</table></div>
${metas.length ? html`<p id="meta-collections">Meta-collections: ${metas}.</p>` : ""}
${list.retired.length ? html`<p id="retired-collections">Retired: ${list.retired.join(", ")}.</p>` : ""}
<p class="hint">Add, ingest and retire collections with <code>npm run cli -- collection add|ingest|retire</code>
or <code>/admin/v1/collections</code> (docs/operations.md).</p>`;
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
    html`<label for="limit-${name}">${label}</label><input id="limit-${name}" name="${name}" inputmode="numeric"
 pattern="\\d{1,9}" required value="${org.limits[name]}">`;
  const hidden = org.hideBalance ? html`<br><small>hidden from its members</small>` : "";
  const keysOptions = { actions: `${base}/keys`, canSetCaps: true, created: opts.created, error: opts.error };
  return layout(
    viewer,
    "operator",
    org.name,
    html`<p><a href="/dashboard/operator">All organizations</a> · id <code>${org.id}</code></p>
${opts.done ? notice("ok", OPERATOR_DONE[opts.done]) : ""}
${org.suspended ? notice("error", SUSPENDED_NOTICE) : ""}
<dl class="cards">
  <div><dt>Balance</dt><dd id="balance">${credits(org.balanceMicros)} credits${hidden}</dd></div>
  <div><dt>Billing mode</dt>
    <dd id="billing-mode">${org.billingEnabled ? org.billingMode : `${org.billingMode} (billing off)`}</dd></div>
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
  <input type="hidden" name="idempotency_key" value="${randomUUID()}">
  <label for="credit-amount">Amount in credits</label><input id="credit-amount" name="amount" inputmode="decimal"
    required pattern="\\d{1,12}(\\.\\d{1,6})?" placeholder="25.000000">
  <label for="credit-reference">Reference</label><input id="credit-reference" name="reference" maxlength="200"
    placeholder="invoice 2031-114">
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
    : html`<form method="post" action="${base}/suspend" class="grid" aria-labelledby="hold-title"
 data-confirm="Suspend billing for ${org.name}? Its paid searches will be refused.">
  <h3 id="hold-title">Billing hold</h3>
  ${csrfField(viewer.csrfToken)}
  <label for="suspend-reason">Reason</label>
  <input id="suspend-reason" name="reason" maxlength="500" placeholder="invoice overdue">
  <button type="submit" class="danger">Suspend billing</button>
</form>`
}
</div>
</section>
<section aria-labelledby="org-keys-title">
<h2 id="org-keys-title">API keys</h2>
${keysSections(viewer, data.keys, keysOptions)}
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
<div class="scroll" tabindex="0"><table id="org-members">
${tableHead(["Email", "Role", "Joined"])}
<tbody>${
      data.roster.members.length
        ? data.roster.members.map(
            (m) => html`<tr><td>${m.email}</td><td>${m.role}</td><td>${when(m.joinedAt)}</td></tr>`,
          )
        : html`<tr><td colspan="3">No members yet.</td></tr>`
    }</tbody>
</table></div>
${invitesTable(data.roster.invites)}
<p class="hint">Invite with <code>npm run cli -- member invite ${org.id} EMAIL --role owner</code>.</p>
</section>`,
  );
}
