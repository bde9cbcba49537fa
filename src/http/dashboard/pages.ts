// The dashboard's pages, rendered on the server: one layout (skip link, labelled navigation, sign-out form), then one
// function per page. Forms post to the same origin and carry the session's CSRF token; nothing here reads a request.
import { html, type Html, type HtmlValue } from "./html.js";
import { stackedBarChart } from "./charts.js";
import { formatCredits } from "../../domain/money.js";
import type { KeyRow, LedgerKeys, OverviewData, RecentQuery, UsageDay } from "../../usecases/dashboard/consoleData.js";
import type { ConsoleData } from "../../usecases/dashboard/consoleData.js";
import type { LedgerEntryView } from "../../usecases/operator/ledgerCsv.js";
import type { MemberRole } from "../../domain/events.js";
import type { Principal } from "../../domain/member.js";
import { PASSWORD_MIN_LENGTH } from "../../domain/member.js";
import type { CollectionsAdminList } from "../../usecases/collections/manageCollections.js";
import type { IngestionStatus } from "../../ingest/ingestions.js";

/** Who the page is for: drives the navigation and the forms' CSRF field. */
export interface Viewer {
  principal: Principal;
  email: string | null;
  orgName: string | null;
  csrfToken: string;
}

type Section =
  "overview" | "keys" | "usage" | "ledger" | "queries" | "alerts" | "webhooks" | "members" | "account" | "operator";

const NAV: { section: Section; href: string; label: string; operator?: boolean }[] = [
  { section: "overview", href: "/dashboard", label: "Overview" },
  { section: "keys", href: "/dashboard/keys", label: "API Keys" },
  { section: "usage", href: "/dashboard/usage", label: "Usage" },
  { section: "ledger", href: "/dashboard/ledger", label: "Ledger" },
  { section: "queries", href: "/dashboard/queries", label: "Recent queries" },
  { section: "alerts", href: "/dashboard/alerts", label: "Alerts" },
  { section: "webhooks", href: "/dashboard/webhooks", label: "Webhooks" },
  { section: "members", href: "/dashboard/members", label: "Members" },
  { section: "account", href: "/dashboard/account", label: "Sessions" },
  { section: "operator", href: "/dashboard/operator", label: "Operator", operator: true },
];

/** Credits as every page and CSV shows them: six decimals, as X-Query-Cost and the ledger keep them. */
export const credits = (micros: bigint): string => formatCredits(micros, 6);

/** What a key is called on a page: its name and prefix, or the prefix alone. */
const keyLabel = (k: { name: string | null; prefix: string | null }): Html =>
  k.name ? html`${k.name} <small><code>${k.prefix ?? ""}…</code></small>` : html`<code>${k.prefix ?? "sk_"}…</code>`;

/** A time as people read it in a console: UTC, to the second. */
export const when = (isoTime: string | null): string =>
  isoTime ? `${isoTime.slice(0, 10)} ${isoTime.slice(11, 19)} UTC` : "—";

export const csrfField = (token: string) => html`<input type="hidden" name="_csrf" value="${token}">`;

function document(title: string, body: HtmlValue): Html {
  return html`<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${title} · litsearch</title>
<link rel="icon" href="/dashboard/assets/favicon.ico">
<link rel="stylesheet" href="/dashboard/assets/dashboard.css">
<script src="/dashboard/assets/dashboard.js" defer></script>
</head>
<body>
<a class="skip" href="#main">Skip to content</a>
${body}
</body>
</html>
`;
}

export function layout(viewer: Viewer, section: Section, title: string, content: HtmlValue): Html {
  const operator = viewer.principal.kind === "operator";
  const items = NAV.filter((n) => (operator ? n.operator : !n.operator));
  return document(
    title,
    html`<header class="top">
  <span class="brand">litsearch</span>
  <nav aria-label="Dashboard"><ul>${items.map((n) => html`<li><a href="${n.href}"${n.section === section ? html` aria-current="page"` : ""}>${n.label}</a></li>`)}</ul></nav>
  <div class="who"><span>${operator ? "Operator" : html`${viewer.email} · ${viewer.orgName}`}</span>
    <form method="post" action="/dashboard/logout">${csrfField(viewer.csrfToken)}<button type="submit" class="link">Sign out</button></form>
  </div>
</header>
<main id="main" tabindex="-1">
<h1>${title}</h1>
${content}
</main>`,
  );
}

export const notice = (kind: "error" | "ok" | "warn", text: HtmlValue) =>
  html`<p class="notice ${kind}" role="${kind === "error" ? "alert" : "status"}">${text}</p>`;

// ---------------------------------------------------------------------------------------------------------------
// Signed out

export function loginPage(formToken: string, error?: string): Html {
  return document(
    "Sign in",
    html`<main id="main" class="narrow" tabindex="-1">
<h1>Sign in to litsearch</h1>
${error ? notice("error", error) : ""}
<form method="post" action="/dashboard/login" class="stack">
  ${csrfField(formToken)}
  <label for="email">Email</label>
  <input id="email" name="email" type="email" autocomplete="username" required maxlength="254" autofocus>
  <label for="password">Password</label>
  <input id="password" name="password" type="password" autocomplete="current-password" required maxlength="1024">
  <button type="submit">Sign in</button>
</form>
<details class="operator-login">
  <summary>Operator sign-in</summary>
  <form method="post" action="/dashboard/operator/login" class="stack">
    ${csrfField(formToken)}
    <label for="token">Operator token</label>
    <input id="token" name="token" type="password" autocomplete="off" required maxlength="1024">
    <button type="submit">Sign in as operator</button>
  </form>
</details>
<p class="hint">No account? Members join through an invite link from an owner of their organization or the operator.</p>
</main>`,
  );
}

export function invitePage(
  formToken: string,
  action: string,
  invite: { email: string; role: MemberRole; orgName: string; expiresAt: string },
  error?: string,
): Html {
  return document(
    "Set your password",
    html`<main id="main" class="narrow" tabindex="-1">
<h1>Join ${invite.orgName}</h1>
<p>You were invited as <strong>${invite.role}</strong> with <strong>${invite.email}</strong>. This link works once, until ${when(invite.expiresAt)}.</p>
${error ? notice("error", error) : ""}
<form method="post" action="${action}" class="stack">
  ${csrfField(formToken)}
  <input type="email" autocomplete="username" value="${invite.email}" hidden readonly aria-hidden="true">
  <label for="password">Choose a password</label>
  <input id="password" name="password" type="password" autocomplete="new-password" required minlength="${PASSWORD_MIN_LENGTH}" maxlength="200" aria-describedby="password-hint" autofocus>
  <p id="password-hint" class="hint">At least ${PASSWORD_MIN_LENGTH} characters; a few unrelated words make a good one.</p>
  <button type="submit">Set password and sign in</button>
</form>
</main>`,
  );
}

/** The heading of an error page; the API error's own message is under it. */
const ERROR_TITLES: Record<number, string> = {
  401: "Sign in first",
  403: "Not allowed",
  404: "Not found",
  409: "That changed meanwhile",
  422: "That was not accepted",
  429: "Too many requests",
};

export function errorPage(status: number, message: string, signedIn: boolean): Html {
  return document(
    `Error ${status}`,
    html`<main id="main" class="narrow" tabindex="-1">
<h1>${ERROR_TITLES[status] ?? (status < 500 ? "That was not accepted" : "Something went wrong")}</h1>
${notice("error", message)}
<p><a href="${signedIn ? "/dashboard" : "/dashboard/login"}">${signedIn ? "Back to the dashboard" : "Sign in"}</a></p>
</main>`,
  );
}

// ---------------------------------------------------------------------------------------------------------------
// Organization pages

export function overviewPage(viewer: Viewer, data: OverviewData): Html {
  const { org } = data;
  const balance = org.hideBalance ? "hidden by your plan" : `${credits(org.balanceMicros)} credits`;
  const mode = org.billingEnabled ? org.billingMode : `${org.billingMode} (billing off)`;
  return layout(
    viewer,
    "overview",
    org.name,
    html`${data.lowBalance ? notice("warn", html`Your balance is low (${credits(org.balanceMicros)} credits): live searches stop at zero. Ask the operator to add credits.`) : ""}
${org.suspended ? notice("error", "Billing for this organization is on hold: paid searches answer 402 BILLING_SUSPENDED.") : ""}
${data.disabledWebhooks.map((w) => notice("warn", html`Webhook endpoint <code>${w.id}</code> (${w.url}) was disabled on ${w.disabledAt}: ${w.reason}. Nothing more is sent to it; register a new endpoint once the receiver works (docs/webhooks.md).`))}
<dl class="cards">
  <div><dt>Balance</dt><dd id="balance">${balance}</dd></div>
  <div><dt>Billing mode</dt><dd id="billing-mode">${mode}${org.billingMode === "trial" ? html` · ${Math.max(0, org.trialQueries - org.trialUsed)} trial queries left` : ""}</dd></div>
  <div><dt>Queries today</dt><dd id="quota-today">${data.today.queries} of ${data.today.limit}</dd></div>
  <div><dt>Queries this month</dt><dd id="quota-month">${data.month.queries} of ${data.month.limit}</dd></div>
  <div><dt>Spend this month</dt><dd id="spend-month">${credits(data.month.spendMicros)} credits</dd></div>
  <div><dt>Tokens this month</dt><dd>${data.month.tokens.toString()}</dd></div>
</dl>
<p>Organization id <code>${org.id}</code>. Keys are created under <a href="/dashboard/keys">API Keys</a>; usage per day and collection is under <a href="/dashboard/usage">Usage</a>.</p>`,
  );
}

const scopeOf = (k: KeyRow) => (k.collections === null ? "whole organization" : k.collections.join(", "));

interface KeysOptions {
  created?: { id: string; key: string };
  canSetCaps: boolean;
  error?: string;
}

export function keysPage(viewer: Viewer, keys: KeyRow[], opts: KeysOptions): Html {
  return layout(viewer, "keys", "API Keys", keysSections(viewer, keys, { ...opts, actions: "/dashboard/keys" }));
}

/**
 * The new key (shown once), the form that creates one and the table of keys with their cap and revoke forms, which
 * post under `actions` (the member's /dashboard/keys, or an organization's keys on the operator's page).
 */
function keysSections(viewer: Viewer, keys: KeyRow[], opts: KeysOptions & { actions: string }): Html {
  const me = viewer.principal.kind === "member" ? viewer.principal : undefined;
  const operator = viewer.principal.kind === "operator";
  const mayRevoke = (k: KeyRow) =>
    !k.revoked && (opts.canSetCaps || (me !== undefined && k.createdByMemberId === me.memberId));
  const rows = keys.map(
    (k) => html`<tr data-key-id="${k.id}"${k.revoked ? html` class="revoked"` : ""}>
  <td>${keyLabel(k)}<br><small>${k.id}</small></td>
  <td>${k.mode === "test" ? "sandbox (sk_test_)" : "live"}</td>
  <td>${scopeOf(k)}</td>
  <td class="num">${credits(k.spentMicros)}</td>
  <td class="num">${k.spendingCapMicros === null ? "none" : credits(k.spendingCapMicros)}</td>
  <td>${when(k.createdAt)}${k.createdBy ? html`<br><small>by ${k.createdBy}</small>` : ""}</td>
  <td>${when(k.lastUsedAt)}</td>
  <td>${k.revoked ? "revoked" : "active"}</td>
  <td class="actions">${
    k.revoked
      ? ""
      : html`${
          opts.canSetCaps
            ? html`<form method="post" action="${opts.actions}/${k.id}/cap" class="inline">${csrfField(viewer.csrfToken)}<label for="cap-${k.id}" class="sr-only">Spending cap for ${k.prefix}</label><input id="cap-${k.id}" name="spendingCap" inputmode="decimal" placeholder="no cap" size="8" value="${k.spendingCapMicros === null ? "" : credits(k.spendingCapMicros)}" pattern="\\d{1,12}(\\.\\d{1,6})?"><button type="submit">Set cap</button></form>`
            : ""
        }${mayRevoke(k) ? html`<form method="post" action="${opts.actions}/${k.id}/revoke" class="inline" data-confirm="Revoke ${k.prefix}…? Requests with it will be refused at once.">${csrfField(viewer.csrfToken)}<button type="submit" class="danger">Revoke</button></form>` : ""}`
  }</td>
</tr>`,
  );
  return html`${opts.error ? notice("error", opts.error) : ""}
${
  opts.created
    ? html`<section class="created" aria-labelledby="created-title">
  <h2 id="created-title">New key</h2>
  <p>Copy it now: it is shown only this once (only its hash is stored).</p>
  <p class="secret"><code id="new-key">${opts.created.key}</code> <button type="button" data-copy="new-key" aria-describedby="copy-status">Copy</button> <span id="copy-status" role="status"></span></p>
</section>`
    : ""
}
<section aria-labelledby="create-title">
<h2 id="create-title">Create a key</h2>
<form method="post" action="${opts.actions}" class="grid">
  ${csrfField(viewer.csrfToken)}
  <fieldset><legend>Mode</legend>
    <label><input type="radio" name="mode" value="live" checked> live (real content, spends credits)</label>
    <label><input type="radio" name="mode" value="test"> sandbox (synthetic results, free)</label>
  </fieldset>
  <label for="key-name">Name <small>(what you will call it: "CI smoke tests", "Rosalind's notebook")</small></label>
  <input id="key-name" name="name" maxlength="100" autocomplete="off">
  <label for="collections">Collections <small>(comma-separated; empty: the whole organization)</small></label>
  <input id="collections" name="collections" maxlength="2000" placeholder="scifact, biomedical">
  ${opts.canSetCaps ? html`<label for="spendingCap">Spending cap in credits <small>(empty: none)</small></label><input id="spendingCap" name="spendingCap" inputmode="decimal" pattern="\\d{1,12}(\\.\\d{1,6})?">` : ""}
  <button type="submit">Create key</button>
</form>
</section>
<section aria-labelledby="keys-title">
<h2 id="keys-title">Keys</h2>
<div class="scroll"><table>
<thead><tr><th scope="col">Key</th><th scope="col">Mode</th><th scope="col">Scope</th><th scope="col">Spent</th><th scope="col">Cap</th><th scope="col">Created</th><th scope="col">Last used</th><th scope="col">Status</th><th scope="col">Actions</th></tr></thead>
<tbody>${rows.length ? rows : html`<tr><td colspan="9">No keys yet.</td></tr>`}</tbody>
</table></div>
<p class="hint">"Last used" is the last search, unlock, tool call or catalogue answer recorded for the key. ${opts.canSetCaps ? "A key past its cap is refused with 429 API_KEY_BUDGET_EXCEEDED." : "Owners set spending caps and revoke keys other members created."}${operator ? " Keys you create or change here are recorded with the operator as actor." : ""}</p>
</section>`;
}

function usageTable(days: string[], rows: UsageDay[]): Html {
  const shown = rows
    .filter((r) => days.includes(r.day))
    .slice()
    .reverse();
  return html`<div class="scroll"><table id="usage-table">
<caption>Per day and collection (newest first)</caption>
<thead><tr><th scope="col">Day</th><th scope="col">Collection</th><th scope="col">Searches</th><th scope="col">Unlocked results</th><th scope="col">Tokens</th><th scope="col">Spend</th></tr></thead>
<tbody>${shown.length ? shown.map((r) => html`<tr><td>${r.day}</td><td>${r.collection}</td><td class="num">${r.searches}</td><td class="num">${r.unlockedResults}</td><td class="num">${r.tokens.toString()}</td><td class="num">${credits(r.spendMicros)}</td></tr>`) : html`<tr><td colspan="6">No usage in these days.</td></tr>`}</tbody>
</table></div>`;
}

export function usagePage(viewer: Viewer, usage: Awaited<ReturnType<ConsoleData["usage"]>>): Html {
  const names = [...new Set(usage.rows.map((r) => r.collection))];
  const series = (pick: (r: UsageDay) => number) =>
    names
      .map((name) => ({
        name,
        values: new Map(usage.rows.filter((r) => r.collection === name).map((r) => [r.day, pick(r)] as const)),
      }))
      .filter((s) => [...s.values.values()].some((v) => v > 0));
  const integer = (v: number) => (Number.isInteger(v) ? String(v) : v.toFixed(1));
  return layout(
    viewer,
    "usage",
    "Usage",
    html`<p>The last ${usage.days.length} days (UTC), from the usage projections. A search of several collections counts once on each. <a href="/dashboard/usage.csv" download>Download CSV</a></p>
${stackedBarChart({ id: "chart-searches", title: "Searches", days: usage.days, series: series((r) => r.searches), format: integer })}
${stackedBarChart({ id: "chart-tokens", title: "Tokens billed", days: usage.days, series: series((r) => Number(r.tokens)), format: integer })}
${stackedBarChart({ id: "chart-spend", title: "Spend (credits)", days: usage.days, series: series((r) => Number(r.spendMicros) / 1e6), format: (v) => credits(BigInt(Math.round(v * 1e6))) })}
${usageTable(usage.days, usage.rows)}`,
  );
}

/** The usage rows as CSV (spend in credits, six decimals). */
export function usageCsv(rows: UsageDay[]): string {
  return (
    [
      "day,collection,searches,unlocked_results,tokens,spend",
      ...rows.map((r) =>
        [
          r.day,
          /[",\n\r]/.test(r.collection) ? `"${r.collection.replace(/"/g, '""')}"` : r.collection,
          r.searches,
          r.unlockedResults,
          r.tokens.toString(),
          formatCredits(r.spendMicros, 6),
        ].join(","),
      ),
    ].join("\n") + "\n"
  );
}

/** The ledger's entries, newest first; with `queriesHref` a search's entries link to it there. */
function ledgerTable(ledger: { entries: LedgerEntryView[]; keys: LedgerKeys }, queriesHref?: string): Html {
  const newest = ledger.entries.slice().reverse();
  const key = (keyId: string | null) => {
    if (keyId === null) return "";
    const k = ledger.keys.get(keyId);
    return k ? keyLabel(k) : html`<small>${keyId}</small>`;
  };
  // a charge, an unlock and a refund of a search link to that search on the recent queries
  const query = (queryId: string | null) =>
    queryId === null
      ? ""
      : queriesHref
        ? html`<a href="${queriesHref}?queryId=${encodeURIComponent(queryId)}"><small>${queryId}</small></a>`
        : html`<small>${queryId}</small>`;
  return html`<div class="scroll"><table id="ledger-table">
<caption>Entries, newest first</caption>
<thead><tr><th scope="col">Time</th><th scope="col">Type</th><th scope="col">Amount</th><th scope="col">Balance after</th><th scope="col">Key</th><th scope="col">Query</th><th scope="col">Reference</th></tr></thead>
<tbody>${newest.length ? newest.map((e) => html`<tr data-query-id="${e.queryId ?? ""}"><td>${when(e.time)}</td><td>${e.type}</td><td class="num">${e.amount}</td><td class="num">${e.balanceAfter}</td><td>${key(e.keyId)}</td><td>${query(e.queryId)}</td><td>${e.reference ?? ""}</td></tr>`) : html`<tr><td colspan="7">No entries yet.</td></tr>`}</tbody>
</table></div>`;
}

export function ledgerPage(viewer: Viewer, ledger: { entries: LedgerEntryView[]; keys: LedgerKeys }): Html {
  return layout(
    viewer,
    "ledger",
    "Ledger",
    html`<p>Every credit, charge, unlock and refund with the balance after it, in credits; a search's entries link to the search. <a href="/dashboard/ledger.csv" download>Download CSV</a></p>
${ledgerTable(ledger, "/dashboard/queries")}`,
  );
}

/** The queries' first QUERY_TEXT_SHOWN characters are shown; the full text is the cell's title. */
export const QUERY_TEXT_SHOWN = 120;
const queryTextCell = (text: string | null) => {
  if (text === null) return html`<td class="query-text"><small>not kept</small></td>`;
  const shown = [...text].length > QUERY_TEXT_SHOWN ? `${[...text].slice(0, QUERY_TEXT_SHOWN).join("")}…` : text;
  return html`<td class="query-text" title="${text}">${shown}</td>`;
};

/** The export formats the recent queries link to, with their labels. */
const EXPORT_LINKS: [string, string][] = [
  ["bibtex", "BibTeX"],
  ["ris", "RIS"],
  ["csljson", "CSL-JSON"],
];

export function queriesTable(queries: RecentQuery[], opts: { baseUrl: string; now: Date }): Html {
  return html`<div class="scroll"><table id="queries-table">
<thead><tr><th scope="col">Query</th><th scope="col">Results</th><th scope="col">Key</th><th scope="col">Cost</th><th scope="col">Collections</th><th scope="col">Time</th><th scope="col">Re-fetch</th></tr></thead>
<tbody>${
    queries.length
      ? queries.map((q) => {
          const fresh = Date.parse(q.cachedUntil) > opts.now.getTime();
          return html`<tr data-query-id="${q.queryId}">${queryTextCell(q.queryText)}<td class="num">${q.resultCount ?? "—"}</td><td>${keyLabel({ name: q.keyName, prefix: q.keyPrefix })}</td><td class="num">${credits(q.costMicros)}</td><td>${q.collections.join(", ")}<br><small>${q.endpoint}</small></td><td>${when(q.time)}<br><small><code>${q.queryId}</code></small></td>
<td>${fresh ? html`<code class="command">curl -H "Authorization: Bearer ${q.keyPrefix ?? "sk_"}…" ${opts.baseUrl}/api/v1/search/results/${q.queryId}</code><br><small class="exports">Export: ${EXPORT_LINKS.map(([format, label], i) => html`${i > 0 ? " · " : ""}<a href="/dashboard/queries/${encodeURIComponent(q.queryId)}/export?format=${format}" download>${label}</a>`)}</small>` : html`<small>expired ${when(q.cachedUntil)}</small>`}</td></tr>`;
        })
      : html`<tr><td colspan="7">No searches yet.</td></tr>`
  }</tbody>
</table></div>`;
}

export function queriesPage(
  viewer: Viewer,
  queries: RecentQuery[],
  baseUrl: string,
  now: Date,
  oneQuery?: string,
): Html {
  return layout(
    viewer,
    "queries",
    "Recent queries",
    html`${
      oneQuery
        ? html`<p>The search <code>${oneQuery}</code>${queries.length ? "" : " (not a search of this organization)"}. <a href="/dashboard/queries">All recent queries</a></p>`
        : html`<p>The organization's last ${queries.length} searches: what was asked (the first ${QUERY_TEXT_SHOWN} characters), the rows delivered, the key and the cost in credits. A result set can be re-fetched free for 7 days, with the key that ran it.</p>`
    }
${queriesTable(queries, { baseUrl, now })}`,
  );
}

export function membersPage(
  viewer: Viewer,
  roster: {
    members: { memberId: string; email: string; role: MemberRole; joinedAt: string }[];
    invites: { inviteId: string; email: string; role: MemberRole; invitedAt: string; expiresAt: string }[];
  },
  opts: { canInvite: boolean; canRemove: boolean; self: string; inviteUrl?: string; error?: string },
): Html {
  const action = (path: string, label: string) =>
    html`<form method="post" action="${path}" class="inline">${csrfField(viewer.csrfToken)}<button type="submit" class="danger">${label}</button></form>`;
  return layout(
    viewer,
    "members",
    "Members",
    html`${opts.error ? notice("error", opts.error) : ""}
${opts.inviteUrl ? html`<section class="created"><h2>Invite link</h2><p>Send this link to the person you invited; it works once, for 7 days, and is shown only now.</p><p class="secret"><code id="invite-url">${opts.inviteUrl}</code> <button type="button" data-copy="invite-url">Copy</button></p></section>` : ""}
<div class="scroll"><table>
<caption>Members</caption>
<thead><tr><th scope="col">Email</th><th scope="col">Role</th><th scope="col">Joined</th>${opts.canRemove ? html`<th scope="col">Action</th>` : ""}</tr></thead>
<tbody>${roster.members.map((m) => html`<tr><td>${m.email}</td><td>${m.role}</td><td>${when(m.joinedAt)}</td>${opts.canRemove ? html`<td>${m.memberId === opts.self ? "you" : action(`/dashboard/members/${m.memberId}/remove`, "Remove")}</td>` : ""}</tr>`)}</tbody>
</table></div>
${roster.invites.length ? html`<div class="scroll"><table><caption>Open invites</caption><thead><tr><th scope="col">Email</th><th scope="col">Role</th><th scope="col">Invited</th><th scope="col">Expires</th>${opts.canInvite ? html`<th scope="col">Action</th>` : ""}</tr></thead><tbody>${roster.invites.map((i) => html`<tr><td>${i.email}</td><td>${i.role}</td><td>${when(i.invitedAt)}</td><td>${when(i.expiresAt)}</td>${opts.canInvite ? html`<td>${action(`/dashboard/invites/${i.inviteId}/cancel`, "Withdraw")}</td>` : ""}</tr>`)}</tbody></table></div>` : ""}
${
  opts.canInvite
    ? html`<section aria-labelledby="invite-title"><h2 id="invite-title">Invite someone</h2>
<form method="post" action="/dashboard/members/invites" class="grid">
  ${csrfField(viewer.csrfToken)}
  <label for="invite-email">Email</label><input id="invite-email" name="email" type="email" required maxlength="254">
  <label for="invite-role">Role</label><select id="invite-role" name="role"><option value="member">member</option><option value="owner">owner</option></select>
  <button type="submit">Create invite link</button>
</form></section>`
    : html`<p class="hint">Owners invite members.</p>`
}`,
  );
}

export function accountPage(
  viewer: Viewer,
  sessions: { sessionId: string; startedAt: string; expiresAt: string }[],
  currentSessionId: string,
): Html {
  return layout(
    viewer,
    "account",
    "Sessions",
    html`<p>Where you are signed in. Sessions end on sign-out and by themselves at the time shown; end any you do not recognise.</p>
<div class="scroll"><table>
<thead><tr><th scope="col">Signed in</th><th scope="col">Ends</th><th scope="col">Action</th></tr></thead>
<tbody>${sessions.map(
      (s) =>
        html`<tr><td>${when(s.startedAt)}</td><td>${when(s.expiresAt)}</td><td>${
          s.sessionId === currentSessionId
            ? "this session"
            : html`<form method="post" action="/dashboard/sessions/${s.sessionId}/revoke" class="inline">${csrfField(viewer.csrfToken)}<button type="submit" class="danger">End session</button></form>`
        }</td></tr>`,
    )}</tbody>
</table></div>`,
  );
}

// ---------------------------------------------------------------------------------------------------------------
// Operator

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

/** The catalogue on the operator's page: each collection's state and last ingestion, the meta-collections, the retired names. */
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
