// The organization's overview page.
import { html, type Html } from "./html.js";
import type { OverviewData } from "../../usecases/dashboard/consoleData.js";
import { type Viewer, credits, layout, notice } from "./layout.js";

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
