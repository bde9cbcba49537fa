// The playground page: the preview form (kept as typed after a refusal), the rows as a customer sees them with a
// checkbox each, the cost of the ticked rows before the member confirms, and what an unlock did.
import { html, type Html } from "./html.js";
import { credits, csrfField, keyLabel, layout, notice, tableHead, type Viewer } from "./layout.js";
import type { KeyRow } from "../../usecases/dashboard/consoleData.js";
import type { PlaygroundResult } from "../../usecases/playground/playground.js";
import {
  PLAYGROUND_MAX_ROWS,
  playgroundRowOf,
  rowField,
  type PlaygroundForm,
  type UnlockQuote,
} from "../../usecases/playground/playgroundRules.js";
import { SORT_ORDERS } from "../../usecases/search/sortOrder.js";

export interface PlaygroundView {
  keys: KeyRow[];
  /** the collections each key reaches (null: every collection) */
  collections: string[];
  form?: Partial<PlaygroundForm>;
  error?: string;
  result?: PlaygroundResult;
  /** the rows ticked, awaiting confirmation with their cost */
  quote?: { selected: string[]; quote: UnlockQuote };
  unlocked?: { count: number; chargedMicros: bigint; balanceMicros: bigint };
}

const SORT_TEXT: Record<(typeof SORT_ORDERS)[number], string> = {
  relevance: "relevance",
  publication_date: "newest first",
  publication_date_asc: "oldest first",
  cited_by_count: "most cited",
};

const keyOption = (k: KeyRow, chosen: string | undefined) =>
  html`<option value="${k.id}"${k.id === chosen ? html` selected` : ""}>${k.name ?? "unnamed"} (${k.prefix}…, ${
    k.mode
  }${k.collections ? `: ${k.collections.join(", ")}` : ""})</option>`;

function previewForm(viewer: Viewer, view: PlaygroundView): Html {
  const f = view.form ?? {};
  return html`<form method="post" action="/dashboard/playground" class="grid" id="playground-form">
  ${csrfField(viewer.csrfToken)}
  <label for="pg-key">Run as the key</label>
  <select id="pg-key" name="key" required>${view.keys.map((k) => keyOption(k, f.key))}</select>
  <label for="pg-query">Query</label>
  <input id="pg-query" name="query" required maxlength="1000" autocomplete="off" value="${f.query ?? ""}">
  <label for="pg-collections">Collections <small>(comma-separated)</small></label>
  <input id="pg-collections" name="collections" required maxlength="2000" value="${
    f.collections ?? view.collections[0] ?? ""
  }" aria-describedby="pg-collections-hint">
  <label for="pg-filters">Filters <small>(JSON, optional)</small></label>
  <textarea id="pg-filters" name="filters" rows="2" maxlength="20000"
   placeholder='{"year": {"gte": 2020}}'>${f.filters ?? ""}</textarea>
  <label for="pg-relevance">Minimum relevance <small>(0 to 1)</small></label>
  <input id="pg-relevance" name="min_relevance" inputmode="decimal" maxlength="20" value="${f.min_relevance ?? ""}">
  <label for="pg-sort">Sort</label>
  <select id="pg-sort" name="sort"><option value="">relevance (default)</option>${SORT_ORDERS.map(
    (s) => html`<option value="${s}"${f.sort === s ? html` selected` : ""}>${SORT_TEXT[s]}</option>`,
  )}</select>
  <label for="pg-limit">Rows <small>(1 to ${PLAYGROUND_MAX_ROWS})</small></label>
  <input id="pg-limit" name="limit" type="number" min="1" max="${PLAYGROUND_MAX_ROWS}" value="${f.limit ?? "10"}">
  <button type="submit">Run preview</button>
</form>
<p class="hint" id="pg-collections-hint">Your keys reach: ${view.collections.join(", ") || "no collection"}.
A preview is free; unlocking a row charges its cost to the key's organization, as the API's
<code>POST /api/v1/search/unlock</code> does.</p>`;
}

const EXPORTS: [string, string][] = [
  ["bibtex", "BibTeX"],
  ["ris", "RIS"],
  ["csljson", "CSL-JSON"],
];

function rowsTable(result: PlaygroundResult, ticked: ReadonlySet<string>): Html {
  const rows = result.rows.slice(0, PLAYGROUND_MAX_ROWS).map((r, i) => {
    const row = playgroundRowOf(r, result.unlocked.has(r.id));
    const box = html`<input type="checkbox" name="${rowField(i + 1)}" value="${row.id}" id="pick-${i + 1}"${
      ticked.has(row.id) ? html` checked` : ""
    }>`;
    return html`<tr data-result-id="${row.id}" class="${row.locked ? "locked" : "unlocked"}">
<td>${box}<label for="pick-${i + 1}" class="sr-only">Select ${row.title}</label></td>
<td class="num" data-label="Relevance">${row.relevance === null ? "—" : row.relevance.toFixed(3)}</td>
<td class="wrap"><strong>${row.title}</strong><br><small>${row.text}</small></td>
<td data-label="Journal">${row.journal ?? "—"}</td><td data-label="Year">${row.year ?? "—"}</td>
<td data-label="Integrity">${row.integrity === "none" ? "no notice" : row.integrity.replace(/_/g, " ")}</td>
<td class="num" data-label="Cost to unlock">${credits(row.costMicros)}</td>
<td data-label="State">${row.locked ? "locked" : "unlocked"}</td></tr>`;
  });
  return html`<div class="scroll"><table id="playground-rows" class="stack-narrow">
${tableHead(["Select", "Relevance", "Title", "Journal", "Year", "Integrity", "Cost to unlock", "State"])}
<tbody>${rows.length ? rows : html`<tr><td colspan="8">No rows matched.</td></tr>`}</tbody>
</table></div>`;
}

/** The ticked rows' fields again, for the confirmation form. */
const tickedFields = (result: PlaygroundResult, selected: readonly string[]) =>
  result.rows
    .slice(0, PLAYGROUND_MAX_ROWS)
    .map((r, i) =>
      selected.includes(r.id) ? html`<input type="hidden" name="${rowField(i + 1)}" value="${r.id}">` : "",
    );

function confirmPanel(viewer: Viewer, view: PlaygroundView, result: PlaygroundResult): Html {
  const q = view.quote!;
  const key = view.keys.find((k) => k.id === result.keyId);
  const cost = credits(q.quote.costMicros);
  const already = q.quote.alreadyUnlocked.length;
  return html`<section class="confirm" aria-labelledby="confirm-title">
<h2 id="confirm-title">Confirm the unlock</h2>
<p id="unlock-quote">Unlock ${q.quote.toBuy.length} ${q.quote.toBuy.length === 1 ? "row" : "rows"} for
<strong>${cost} credits</strong>, paid by ${key ? keyLabel(key) : result.keyId}${
    already ? html` (${already} already unlocked: free)` : ""
  }.</p>
<form method="post" action="/dashboard/playground/unlock" class="inline">${csrfField(viewer.csrfToken)}
<input type="hidden" name="key" value="${result.keyId}"><input type="hidden" name="queryId" value="${result.queryId}">
<input type="hidden" name="confirm" value="${cost}">${tickedFields(result, q.selected)}
<button type="submit">Confirm and pay ${cost} credits</button></form>
<a href="/dashboard/playground">Cancel</a>
</section>`;
}

function resultSection(viewer: Viewer, view: PlaygroundView, result: PlaygroundResult): Html {
  const exportHref = (format: string) =>
    `/dashboard/queries/${encodeURIComponent(result.queryId)}/export?format=${format}`;
  const ticked = new Set(view.quote?.selected ?? []);
  return html`<section aria-labelledby="results-title">
<h2 id="results-title">Results</h2>
<p class="hint">Preview <code class="id">${result.queryId}</code>. Export:
${EXPORTS.map(([f, label], i) => html`${i ? " · " : ""}<a href="${exportHref(f)}" download>${label}</a>`)}</p>
${view.quote ? confirmPanel(viewer, view, result) : ""}
<form method="post" action="/dashboard/playground/unlock" id="unlock-form">${csrfField(viewer.csrfToken)}
<input type="hidden" name="key" value="${result.keyId}"><input type="hidden" name="queryId" value="${result.queryId}">
${rowsTable(result, ticked)}
<button type="submit">Unlock selected…</button>
</form>
</section>`;
}

export function playgroundPage(viewer: Viewer, view: PlaygroundView): Html {
  const done = view.unlocked;
  return layout(
    viewer,
    "playground",
    "Playground",
    html`${view.error ? notice("error", view.error) : ""}
${
  done
    ? notice(
        "ok",
        `Unlocked ${done.count} ${done.count === 1 ? "row" : "rows"}; charged ${credits(done.chargedMicros)} ` +
          `credits. Balance: ${credits(done.balanceMicros)} credits.`,
      )
    : ""
}
${
  view.keys.length === 0
    ? notice("warn", html`A preview runs as one of your keys: <a href="/dashboard/keys">create a key</a> first.`)
    : previewForm(viewer, view)
}
${view.result ? resultSection(viewer, view, view.result) : ""}`,
  );
}
