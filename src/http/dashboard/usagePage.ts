// The usage page: a date range's spend, searches and tokens per day, by collection and by key, as charts across the
// page, tables and CSV.
import { csvCell, csvText } from "../../domain/csv.js";
import { html, type Html, type HtmlValue } from "./html.js";
import { stackedBarChart } from "./charts.js";
import { formatCredits } from "../../domain/money.js";
import type { UsageDay } from "../../usecases/dashboard/consoleData.js";
import {
  USAGE_QUICK_DAYS,
  dailyUsage,
  usageTotals,
  type UsageLine,
  type UsageRangeInput,
  type UsageReport,
} from "../../usecases/dashboard/usageReport.js";
import { type Viewer, credits, keyLabel, layout, notice, tableHead } from "./layout.js";

const usageRow = (r: UsageDay) => html`<tr><td>${r.day}</td><td>${r.collection}</td><td class="num">${r.searches}</td>
<td class="num">${r.unlockedResults}</td><td class="num">${r.tokens.toString()}</td>
<td class="num">${credits(r.spendMicros)}</td></tr>`;

export function usageTable(days: string[], rows: UsageDay[]): Html {
  const shown = rows
    .filter((r) => days.includes(r.day))
    .slice()
    .reverse();
  return html`<div class="scroll" tabindex="0"><table id="usage-table">
<caption>Per day and collection (newest first; a search that charged nothing counts only toward the quota)</caption>
${tableHead(["Day", "Collection", "Paid searches", "Unlocked results", "Tokens", "Spend"])}
<tbody>${shown.length ? shown.map(usageRow) : html`<tr><td colspan="6">No usage in these days.</td></tr>`}</tbody>
</table></div>`;
}

/** What the usage page draws: a range's report, or the refused form's input and why. */
export type UsageView =
  { report: UsageReport; input: UsageRangeInput; quickDays: number | null } | { error: string; input: UsageRangeInput };

/** What a key is called in the charts' legends and the CSV: its name, or its prefix. */
const keyName = (report: UsageReport, keyId: string): string => {
  const k = report.keys.get(keyId);
  return k ? (k.name ? `${k.name} (${k.prefix}…)` : `${k.prefix}…`) : keyId;
};

/** The range form (keeping what was typed) and the quick choices. */
function rangeForm(input: UsageRangeInput, current: number | null): Html {
  const quick = USAGE_QUICK_DAYS.map(
    (n) =>
      html`<li><a href="/dashboard/usage?days=${n}"${current === n ? html` aria-current="true"` : ""}>Last ${n}
 days</a></li>`,
  );
  return html`<form method="get" action="/dashboard/usage" class="range" aria-label="Date range">
<label for="usage-from">From <small>(UTC day)</small><input type="date" id="usage-from" name="from"
 value="${input.from ?? ""}"></label>
<label for="usage-to">To <small>(empty: today)</small><input type="date" id="usage-to" name="to"
 value="${input.to ?? ""}"></label>
<button type="submit">Show</button>
</form>
<ul class="quick-ranges" aria-label="Quick ranges">${quick}</ul>`;
}

type Totals = ReturnType<typeof usageTotals>[number];

const totalsRow = (t: Totals, label: HtmlValue, cls = "") => html`<tr${cls ? html` class="${cls}"` : ""}>
<td>${label}</td><td class="num">${t.searches}</td><td class="num">${t.unlockedResults}</td>
<td class="num">${t.tokens.toString()}</td><td class="num">${credits(t.spendMicros)}</td></tr>`;

/** A breakdown table: one row per group, largest spend first, and the range's total under them. */
function breakdownTable(id: string, caption: string, first: string, groups: Totals[], label: (t: Totals) => HtmlValue) {
  const sum = usageTotals(
    groups.map((g) => ({ ...g, day: "", keyId: "", collection: "" })),
    () => "Total",
  )[0] ?? { name: "Total", searches: 0, unlockedResults: 0, tokens: 0n, spendMicros: 0n };
  return html`<div class="scroll" tabindex="0"><table id="${id}"><caption>${caption}</caption>
${tableHead([first, "Paid searches", "Unlocked results", "Tokens", "Spend"])}
<tbody>${
    groups.length
      ? groups.map((g) => totalsRow(g, label(g)))
      : html`<tr><td colspan="5">No usage in these days.</td></tr>`
  }
${totalsRow(sum, "Total", "total")}</tbody></table></div>`;
}

function usageFigures(report: UsageReport): Html {
  const { days, lines, range } = report;
  const period = `from ${range.from} to ${range.to}`;
  const byCollection = usageTotals(lines, (l) => l.collection);
  const byKey = usageTotals(lines, (l) => l.keyId);
  const keyOf = (l: UsageLine) => l.keyId;
  const byColl = (l: UsageLine) => l.collection;
  // one series per group (a collection, a key), its values per day
  const series = (groups: Totals[], of: (l: UsageLine) => string, pick: (l: UsageLine) => number) =>
    groups
      .map((g) => {
        const values = new Map<string, number>();
        for (const l of lines) if (of(l) === g.name) values.set(l.day, (values.get(l.day) ?? 0) + pick(l));
        return { name: of === keyOf ? keyName(report, g.name) : g.name, values };
      })
      .filter((s) => [...s.values.values()].some((v) => v > 0));
  const integer = (v: number) => (Number.isInteger(v) ? String(v) : v.toFixed(1));
  const spend = (v: number) => credits(BigInt(Math.round(v * 1e6)));
  const spendOf = (l: UsageLine) => Number(l.spendMicros) / 1e6;
  const chart = (id: string, title: string, s: ReturnType<typeof series>, format: (v: number) => string) =>
    stackedBarChart({ id, title, days, series: s, format, period, width: 1100 });
  const total = byKey.reduce((s, g) => s + g.spendMicros, 0n);
  const searches = byCollection.reduce((s, g) => s + g.searches, 0);
  return html`<p id="usage-summary">${period} (UTC): <strong>${credits(total)} credits</strong> spent,
${searches} ${searches === 1 ? "search" : "searches"} (a search of several collections counts once on each).
<a href="/dashboard/usage.csv?from=${range.from}&amp;to=${range.to}" download>Download CSV</a></p>
<section aria-labelledby="by-collection-title">
<h2 id="by-collection-title">By collection</h2>
${chart("chart-spend", "Spend (credits) by collection", series(byCollection, byColl, spendOf), spend)}
${chart(
  "chart-searches",
  "Searches by collection",
  series(byCollection, byColl, (l) => l.searches),
  integer,
)}
${chart(
  "chart-tokens",
  "Tokens billed by collection",
  series(byCollection, byColl, (l) => Number(l.tokens)),
  integer,
)}
${breakdownTable("usage-by-collection", "Totals by collection", "Collection", byCollection, (g) => g.name)}
</section>
<section aria-labelledby="by-key-title">
<h2 id="by-key-title">By key</h2>
${chart("chart-key-spend", "Spend (credits) by key", series(byKey, keyOf, spendOf), spend)}
${breakdownTable("usage-by-key", "Totals by key", "Key", byKey, (g) => {
  const k = report.keys.get(g.name);
  return k ? keyLabel(k) : html`<code>${g.name}</code>`;
})}
</section>
<section aria-labelledby="per-day-title">
<h2 id="per-day-title">Per day</h2>
${usageTable(days, dailyUsage(report))}
</section>`;
}

export function usagePage(viewer: Viewer, view: UsageView): Html {
  const body =
    "error" in view
      ? html`${notice("error", view.error)}${rangeForm(view.input, null)}`
      : html`${rangeForm(view.input, view.quickDays)}${usageFigures(view.report)}`;
  return layout(viewer, "usage", "Usage", body);
}

/** The usage lines as CSV: per day, key and collection (spend in credits, six decimals). */
export function usageCsv(report: UsageReport): string {
  return (
    [
      "day,key_id,key,collection,searches,unlocked_results,tokens,spend",
      ...report.lines.map((l) =>
        [
          l.day,
          l.keyId,
          csvText(keyName(report, l.keyId)),
          csvCell(l.collection),
          l.searches,
          l.unlockedResults,
          l.tokens.toString(),
          formatCredits(l.spendMicros, 6),
        ].join(","),
      ),
    ].join("\n") + "\n"
  );
}
