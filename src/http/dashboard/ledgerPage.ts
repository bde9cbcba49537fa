// The ledger page: the organization's credits and charges, newest first.
import { html, type Html } from "./html.js";
import type { LedgerKeys } from "../../usecases/dashboard/consoleData.js";
import type { LedgerEntryView } from "../../usecases/operator/ledgerCsv.js";
import { type Viewer, keyLabel, layout, tableHead, when } from "./layout.js";

/** The ledger's entries, newest first; with `queriesHref` a search's entries link to it there. */
export function ledgerTable(ledger: { entries: LedgerEntryView[]; keys: LedgerKeys }, queriesHref?: string): Html {
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
  const row = (
    e: LedgerEntryView,
  ) => html`<tr data-query-id="${e.queryId ?? ""}"><td data-label="Time">${when(e.time)}</td>
<td data-label="Type">${e.type}</td><td class="num" data-label="Amount">${e.amount}</td>
<td class="num" data-label="Balance after">${e.balanceAfter}</td><td data-label="Key">${key(e.keyId)}</td>
<td data-label="Query">${query(e.queryId)}</td><td data-label="Reference">${e.reference ?? ""}</td>
<td data-label="Request"><small>${e.requestId ?? ""}</small></td></tr>`;
  return html`<div class="scroll" tabindex="0"><table id="ledger-table" class="stack-narrow">
<caption>Entries, newest first</caption>
${tableHead(["Time", "Type", "Amount", "Balance after", "Key", "Query", "Reference", "Request"])}
<tbody>${newest.length ? newest.map(row) : html`<tr><td colspan="8">No entries yet.</td></tr>`}</tbody>
</table></div>`;
}

export function ledgerPage(viewer: Viewer, ledger: { entries: LedgerEntryView[]; keys: LedgerKeys }): Html {
  return layout(
    viewer,
    "ledger",
    "Ledger",
    html`<p>Every credit, charge, unlock and refund with the balance after it, in credits; a search's entries link to
the search, and each names the request that made it (the X-Request-Id its answer carried).
<a href="/dashboard/ledger.csv" download>Download CSV</a></p>
${ledgerTable(ledger, "/dashboard/queries")}`,
  );
}
