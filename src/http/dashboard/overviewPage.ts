// The organization's overview page.
import { html, type Html } from "./html.js";
import type { OverviewData } from "../../usecases/dashboard/consoleData.js";
import { type Viewer, SUSPENDED_NOTICE, credits, layout, notice } from "./layout.js";

export function overviewPage(viewer: Viewer, data: OverviewData): Html {
  const { org } = data;
  const balance = org.hideBalance ? "hidden by your plan" : `${credits(org.balanceMicros)} credits`;
  const mode = org.billingEnabled ? org.billingMode : `${org.billingMode} (billing off)`;
  const trialLeft = Math.max(0, org.trialQueries - org.trialUsed);
  const trial = org.billingMode === "trial" ? html` · ${trialLeft} trial queries left` : "";
  const lowBalance = html`Your balance is low (${credits(org.balanceMicros)} credits): live searches stop at zero.
Ask the operator to add credits.`;
  const disabled = (w: OverviewData["disabledWebhooks"][number]) =>
    notice(
      "warn",
      html`Webhook endpoint <code>${w.id}</code> (${w.url}) was disabled on ${w.disabledAt}: ${w.reason}.
Nothing more is sent to it; register a new endpoint once the receiver works (docs/webhooks.md).`,
    );
  return layout(
    viewer,
    "overview",
    org.name,
    html`${data.lowBalance ? notice("warn", lowBalance) : ""}
${org.suspended ? notice("error", SUSPENDED_NOTICE) : ""}
${data.disabledWebhooks.map(disabled)}
<dl class="cards">
  <div><dt>Balance</dt><dd id="balance">${balance}</dd></div>
  <div><dt>Billing mode</dt><dd id="billing-mode">${mode}${trial}</dd></div>
  <div><dt>Queries today</dt><dd id="quota-today">${data.today.queries} of ${data.today.limit}</dd></div>
  <div><dt>Queries this month</dt><dd id="quota-month">${data.month.queries} of ${data.month.limit}</dd></div>
  <div><dt>Spend this month</dt><dd id="spend-month">${credits(data.month.spendMicros)} credits</dd></div>
  <div><dt>Tokens this month</dt><dd>${data.month.tokens.toString()}</dd></div>
</dl>
<p>Organization id <code>${org.id}</code>. Keys are created under <a href="/dashboard/keys">API Keys</a>;
usage per day and collection is under <a href="/dashboard/usage">Usage</a>.</p>`,
  );
}
