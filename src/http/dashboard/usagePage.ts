// The usage page: spend and requests per day, as a chart, a table and CSV.
import { html, type Html } from "./html.js";
import { stackedBarChart } from "./charts.js";
import { formatCredits } from "../../domain/money.js";
import type { UsageDay } from "../../usecases/dashboard/consoleData.js";
import type { ConsoleData } from "../../usecases/dashboard/consoleData.js";
import { type Viewer, credits, layout, tableHead } from "./layout.js";

const usageRow = (r: UsageDay) => html`<tr><td>${r.day}</td><td>${r.collection}</td><td class="num">${r.searches}</td>
<td class="num">${r.unlockedResults}</td><td class="num">${r.tokens.toString()}</td>
<td class="num">${credits(r.spendMicros)}</td></tr>`;

export function usageTable(days: string[], rows: UsageDay[]): Html {
  const shown = rows
    .filter((r) => days.includes(r.day))
    .slice()
    .reverse();
  return html`<div class="scroll"><table id="usage-table">
<caption>Per day and collection (newest first)</caption>
${tableHead(["Day", "Collection", "Searches", "Unlocked results", "Tokens", "Spend"])}
<tbody>${shown.length ? shown.map(usageRow) : html`<tr><td colspan="6">No usage in these days.</td></tr>`}</tbody>
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
  const chart = (id: string, title: string, pick: (r: UsageDay) => number, format: (v: number) => string) =>
    stackedBarChart({ id, title, days: usage.days, series: series(pick), format });
  const spend = (v: number) => credits(BigInt(Math.round(v * 1e6)));
  return layout(
    viewer,
    "usage",
    "Usage",
    html`<p>The last ${usage.days.length} days (UTC), from the usage projections.
A search of several collections counts once on each. <a href="/dashboard/usage.csv" download>Download CSV</a></p>
${chart("chart-searches", "Searches", (r) => r.searches, integer)}
${chart("chart-tokens", "Tokens billed", (r) => Number(r.tokens), integer)}
${chart("chart-spend", "Spend (credits)", (r) => Number(r.spendMicros) / 1e6, spend)}
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
