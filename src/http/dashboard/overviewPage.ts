// The organization's overview page: balance (and money, with an operator's credit price) and the days it lasts at the
// current rate, spend and searches over 30 days, the getting-started panel until a first search, and the health of
// the alerts and webhook endpoints.
import { html, type Html } from "./html.js";
import type { OverviewData, UsageDay } from "../../usecases/dashboard/consoleData.js";
import type { AlertView } from "../../usecases/alerts/alerts.js";
import type { EndpointView } from "../../usecases/webhooks/webhooks.js";
import {
  firstSearchSnippets,
  gettingStarted,
  inCurrency,
  projectedDaysLeft,
  type CreditPrice,
} from "../../usecases/dashboard/overviewRules.js";
import { stackedBarChart } from "./charts.js";
import { type Viewer, SUSPENDED_NOTICE, credits, layout, notice, when } from "./layout.js";

/** What the overview shows beside the organization's figures. */
export interface OverviewExtras {
  usage: { days: string[]; rows: UsageDay[] };
  keys: number;
  alerts: AlertView[];
  endpoints: EndpointView[];
  creditPrice: CreditPrice | null;
  baseUrl: string;
  /** a collection the first search may name */
  collection: string;
}

const money = (micros: bigint, price: CreditPrice | null) =>
  price
    ? html`${credits(micros)} credits <small class="money">(${inCurrency(micros, price)})</small>`
    : html`${credits(micros)} credits`;

function health(extras: OverviewExtras): Html {
  const paused = extras.alerts.filter((a) => a.status === "paused");
  const failing = extras.endpoints.filter((e) => e.status === "enabled" && e.failingSince);
  const items = [
    ...failing.map(
      (e) => html`<li class="warn">Webhook endpoint
<a href="/dashboard/webhooks/${e.id}"><code class="id">${e.url}</code></a>
is failing since ${when(e.failingSince)}.</li>`,
    ),
    ...paused.map(
      (a) =>
        html`<li class="warn">Alert <a href="/dashboard/alerts/${a.id}">${a.query}</a> is paused${
          a.pausedReason ? " (a collection it searches was retired)" : ""
        }.</li>`,
    ),
  ];
  const summary = `${extras.alerts.length - paused.length} of ${extras.alerts.length} alerts active; ${
    extras.endpoints.filter((e) => e.status === "enabled" && !e.failingSince).length
  } of ${extras.endpoints.length} webhook endpoints delivering.`;
  return html`<section aria-labelledby="health-title" id="health">
<h2 id="health-title">Alerts and webhooks</h2>
<p>${summary}</p>${items.length ? html`<ul>${items}</ul>` : ""}
</section>`;
}

function gettingStartedPanel(extras: OverviewExtras): Html {
  const steps = gettingStarted({ keys: extras.keys, searches: extras.usage.rows.reduce((s, r) => s + r.searches, 0) });
  if (steps.every((s) => s.done)) return html``;
  const snippets = firstSearchSnippets(extras.baseUrl, extras.collection).map(
    (s, i) => html`<details${i === 0 ? html` open` : ""}><summary>${s.label}</summary>
<pre id="snippet-${i}"><code>${s.text}</code></pre>
<button type="button" data-copy="snippet-${i}" aria-describedby="copy-status">Copy</button></details>`,
  );
  return html`<section aria-labelledby="start-title" id="getting-started" class="start">
<h2 id="start-title">Getting started</h2>
<ol>${steps.map(
    (s) =>
      html`<li data-step="${s.id}" class="${s.done ? "done" : "todo"}">${s.label}${
        s.done
          ? html` <span class="ok">✓ done</span>`
          : s.id === "key"
            ? html` · <a href="/dashboard/keys">API Keys</a>`
            : ""
      }</li>`,
  )}</ol>
<p class="hint">Put your key in the <code>LITSEARCH_API_KEY</code> environment variable (the API Keys page shows a new
key once), then run one of these; or try a search here in the <a href="/dashboard/playground">Playground</a>.</p>
${snippets}<span id="copy-status" role="status"></span>
</section>`;
}

function charts(extras: OverviewExtras): Html {
  const total = (pick: (r: UsageDay) => number, name: string) => [
    {
      name,
      values: extras.usage.rows.reduce(
        (m, r) => m.set(r.day, (m.get(r.day) ?? 0) + pick(r)),
        new Map<string, number>(),
      ),
    },
  ];
  const integer = (v: number) => (Number.isInteger(v) ? String(v) : v.toFixed(1));
  return html`<div class="chart-row">${stackedBarChart({
    id: "overview-spend",
    title: "Spend (credits)",
    days: extras.usage.days,
    series: total((r) => Number(r.spendMicros) / 1e6, "spend"),
    format: (v) => credits(BigInt(Math.round(v * 1e6))),
  })}${stackedBarChart({
    id: "overview-searches",
    title: "Searches",
    days: extras.usage.days,
    series: total((r) => r.searches, "searches"),
    format: integer,
  })}</div>`;
}

export function overviewPage(viewer: Viewer, data: OverviewData, extras: OverviewExtras): Html {
  const { org } = data;
  const price = extras.creditPrice;
  const balance = org.hideBalance ? "hidden by your plan" : money(org.balanceMicros, price);
  const mode = org.billingEnabled ? org.billingMode : `${org.billingMode} (billing off)`;
  const trialLeft = Math.max(0, org.trialQueries - org.trialUsed);
  const trial = org.billingMode === "trial" ? html` · ${trialLeft} trial queries left` : "";
  const lowBalance = html`Your balance is low (${credits(org.balanceMicros)} credits): live searches stop at zero.
Ask the operator to add credits.`;
  const daySpend = extras.usage.days.map((d) =>
    extras.usage.rows.filter((r) => r.day === d).reduce((s, r) => s + r.spendMicros, 0n),
  );
  const daysLeft = projectedDaysLeft(org.balanceMicros, daySpend);
  const disabled = (w: OverviewData["disabledWebhooks"][number]) =>
    notice(
      "warn",
      html`Webhook endpoint <code class="id">${w.id}</code> (${w.url}) was disabled on ${w.disabledAt}: ${w.reason}.
Nothing more is sent to it; register a new endpoint once the receiver works (docs/webhooks.md).`,
    );
  return layout(
    viewer,
    "overview",
    org.name,
    html`${data.lowBalance ? notice("warn", lowBalance) : ""}
${org.suspended ? notice("error", SUSPENDED_NOTICE) : ""}
${data.disabledWebhooks.map(disabled)}
${gettingStartedPanel(extras)}
<dl class="cards">
  <div><dt>Balance</dt><dd id="balance">${balance}</dd></div>
  <div><dt>Lasts at the current rate</dt><dd id="days-left">${
    org.hideBalance ? "—" : daysLeft === null ? "no spend in 30 days" : `about ${daysLeft} days`
  }</dd></div>
  <div><dt>Billing mode</dt><dd id="billing-mode">${mode}${trial}</dd></div>
  <div><dt>Queries today</dt><dd id="quota-today">${data.today.queries} of ${data.today.limit}</dd></div>
  <div><dt>Queries this month</dt><dd id="quota-month">${data.month.queries} of ${data.month.limit}</dd></div>
  <div><dt>Spend this month</dt><dd id="spend-month">${money(data.month.spendMicros, price)}</dd></div>
  <div><dt>Tokens this month</dt><dd>${data.month.tokens.toString()}</dd></div>
</dl>
${charts(extras)}
${health(extras)}
<p>Organization id <code class="id">${org.id}</code>. Keys are created under <a href="/dashboard/keys">API Keys</a>;
usage per day and collection is under <a href="/dashboard/usage">Usage</a>.</p>`,
  );
}
