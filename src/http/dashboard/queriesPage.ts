// The recent queries page, with the links to their exports.
import { html, type Html } from "./html.js";
import type { RecentQuery } from "../../usecases/dashboard/consoleData.js";
import { type Viewer, credits, keyLabel, layout, when } from "./layout.js";

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
