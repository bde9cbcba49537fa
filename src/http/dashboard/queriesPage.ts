// The recent queries page, with the links to their exports.
import { html, type Html } from "./html.js";
import type { RecentQuery } from "../../usecases/dashboard/consoleData.js";
import { type Viewer, credits, keyLabel, layout, tableHead, when } from "./layout.js";

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

/** How to re-fetch a query's results while they are kept: the curl command and the export links. */
function refetchCell(q: RecentQuery, baseUrl: string): Html {
  const exportHref = (format: string) => `/dashboard/queries/${encodeURIComponent(q.queryId)}/export?format=${format}`;
  const exports = EXPORT_LINKS.map(
    ([format, label], i) => html`${i > 0 ? " · " : ""}<a href="${exportHref(format)}" download>${label}</a>`,
  );
  const url = `${baseUrl}/api/v1/search/results/${q.queryId}`;
  const command = html`curl -H "Authorization: Bearer ${q.keyPrefix ?? "sk_"}…" ${url}`;
  return html`<code class="command">${command}</code><br><small class="exports">Export: ${exports}</small>`;
}

export function queriesTable(queries: RecentQuery[], opts: { baseUrl: string; now: Date }): Html {
  const row = (q: RecentQuery) => {
    const fresh = Date.parse(q.cachedUntil) > opts.now.getTime();
    const key = keyLabel({ name: q.keyName, prefix: q.keyPrefix });
    return html`<tr data-query-id="${q.queryId}">${queryTextCell(q.queryText)}
<td class="num">${q.resultCount ?? "—"}</td><td>${key}</td><td class="num">${credits(q.costMicros)}</td>
<td>${q.collections.join(", ")}<br><small>${q.endpoint}</small></td>
<td>${when(q.time)}<br><small><code>${q.queryId}</code></small></td>
<td>${fresh ? refetchCell(q, opts.baseUrl) : html`<small>expired ${when(q.cachedUntil)}</small>`}</td></tr>`;
  };
  return html`<div class="scroll"><table id="queries-table">
${tableHead(["Query", "Results", "Key", "Cost", "Collections", "Time", "Re-fetch"])}
<tbody>${queries.length ? queries.map(row) : html`<tr><td colspan="7">No searches yet.</td></tr>`}</tbody>
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
        ? html`<p>The search <code>${oneQuery}</code>${queries.length ? "" : " (not a search of this organization)"}.
<a href="/dashboard/queries">All recent queries</a></p>`
        : html`<p>The organization's last ${queries.length} searches: what was asked (the first ${QUERY_TEXT_SHOWN}
characters), the rows delivered, the key and the cost in credits. A result set can be re-fetched free for 7 days,
with the key that ran it.</p>`
    }
${queriesTable(queries, { baseUrl, now })}`,
  );
}
