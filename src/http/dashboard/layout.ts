// The dashboard's layout, shared by every page: the document, the labelled navigation, the sign-out form, notices,
// and how credits, keys and times are shown.
import { html, type Html, type HtmlValue } from "./html.js";
import { formatCredits } from "../../domain/money.js";
import type { Principal } from "../../domain/member.js";

/** Who the page is for: drives the navigation and the forms' CSRF field. */
export interface Viewer {
  principal: Principal;
  email: string | null;
  orgName: string | null;
  csrfToken: string;
}

type Section =
  | "overview"
  | "playground"
  | "keys"
  | "usage"
  | "ledger"
  | "queries"
  | "alerts"
  | "webhooks"
  | "members"
  | "account"
  | "operator";

const NAV: { section: Section; href: string; label: string; operator?: boolean }[] = [
  { section: "overview", href: "/dashboard", label: "Overview" },
  { section: "playground", href: "/dashboard/playground", label: "Playground" },
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
export const keyLabel = (k: { name: string | null; prefix: string | null }): Html =>
  k.name ? html`${k.name} <small><code>${k.prefix ?? ""}…</code></small>` : html`<code>${k.prefix ?? "sk_"}…</code>`;

/** A time as people read it in a console: UTC, to the second. */
export const when = (isoTime: string | null): string =>
  isoTime ? `${isoTime.slice(0, 10)} ${isoTime.slice(11, 19)} UTC` : "—";

/** What an organization's page says while its billing is suspended. */
export const SUSPENDED_NOTICE = "Billing for this organization is on hold: paid searches answer 402 BILLING_SUSPENDED.";

/** What a refused form sent, shown again in its fields: by field name, as the request's body held it. */
export type FormInput = Readonly<Record<string, unknown>>;

/** The value a field shows: what was typed when the form was refused, else `fallback` (never a password). */
export const typed = (input: FormInput | undefined, name: string, fallback = ""): string => {
  const v = input?.[name];
  return typeof v === "string" ? v : Array.isArray(v) && typeof v[0] === "string" ? v[0] : fallback;
};

/** The attribute that marks the option or radio button a refused form had chosen. */
export const chosen = (on: boolean, attribute: "selected" | "checked") => (on ? html` ${attribute}` : "");

export const csrfField = (token: string) => html`<input type="hidden" name="_csrf" value="${token}">`;

/** A table's header row, one column heading per name (a false name is a column the viewer does not get). */
export const tableHead = (headings: (string | false)[]): Html =>
  html`<thead><tr>${headings.filter((h) => h !== false).map((h) => html`<th scope="col">${h}</th>`)}</tr></thead>`;

/** A one-button form that posts to `action` with the viewer's CSRF token: removing, withdrawing, ending. */
export function dangerButton(viewer: Viewer, action: string, label: string): Html {
  const button = html`<button type="submit" class="danger">${label}</button>`;
  return html`<form method="post" action="${action}" class="inline">${csrfField(viewer.csrfToken)}${button}</form>`;
}

export function document(title: string, body: HtmlValue): Html {
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

const navItem = (n: { href: string; label: string }, current: boolean): Html =>
  html`<li><a href="${n.href}"${current ? html` aria-current="page"` : ""}>${n.label}</a></li>`;

export function layout(viewer: Viewer, section: Section, title: string, content: HtmlValue): Html {
  const operator = viewer.principal.kind === "operator";
  const items = NAV.filter((n) => (operator ? n.operator : !n.operator));
  return document(
    title,
    html`<header class="top">
  <span class="brand">litsearch</span>
  <nav aria-label="Dashboard"><ul>${items.map((n) => navItem(n, n.section === section))}</ul></nav>
  <div class="who"><span>${operator ? "Operator" : html`${viewer.email} · ${viewer.orgName}`}</span>
    <form method="post" action="/dashboard/logout">${csrfField(viewer.csrfToken)}
    <button type="submit" class="link">Sign out</button></form>
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
