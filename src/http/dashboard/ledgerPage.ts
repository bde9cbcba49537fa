// The ledger page: the organization's credits and charges, newest first.
import { html, type Html } from "./html.js";
import type { LedgerKeys } from "../../usecases/dashboard/consoleData.js";
import type { LedgerEntryView } from "../../usecases/operator/ledgerCsv.js";
import { type Viewer, keyLabel, layout, when } from "./layout.js";

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
  return html`<div class="scroll"><table id="ledger-table">
<caption>Entries, newest first</caption>
<thead><tr><th scope="col">Time</th><th scope="col">Type</th><th scope="col">Amount</th><th scope="col">Balance after</th><th scope="col">Key</th><th scope="col">Query</th><th scope="col">Reference</th></tr></thead>
<tbody>${newest.length ? newest.map((e) => html`<tr data-query-id="${e.queryId ?? ""}"><td>${when(e.time)}</td><td>${e.type}</td><td class="num">${e.amount}</td><td class="num">${e.balanceAfter}</td><td>${key(e.keyId)}</td><td>${query(e.queryId)}</td><td>${e.reference ?? ""}</td></tr>`) : html`<tr><td colspan="7">No entries yet.</td></tr>`}</tbody>
</table></div>`;
}

export function ledgerPage(viewer: Viewer, ledger: { entries: LedgerEntryView[]; keys: LedgerKeys }): Html {
  return layout(
    viewer,
    "ledger",
    "Ledger",
    html`<p>Every credit, charge, unlock and refund with the balance after it, in credits; a search's entries link to the search. <a href="/dashboard/ledger.csv" download>Download CSV</a></p>
${ledgerTable(ledger, "/dashboard/queries")}`,
  );
}
