// A work's page: what GET /api/v1/works/{id} answers the member's key (title, authors, journal, year, integrity,
// identifiers), its references and the works citing it (each held one linking to its own page), and its export links.
// Not its abstract: that is the text search and unlock sell.
import { integrityWords } from "../../domain/integrity.js";
import { html, type Html } from "./html.js";
import { layout, type Viewer } from "./layout.js";
import type { GraphEntry, Work } from "../../usecases/works/works.js";
import type { WorkView } from "../../usecases/playground/playground.js";
import { workHref } from "./playgroundPage.js";
import { EXPORT_LABELS } from "../../usecases/works/citationExport.js";

/** The id a work's page and export open with: its DOI, else PMID, else OpenAlex id, else the document's id. */
export const workIdOf = (w: Pick<Work, "ids">): string =>
  w.ids.doi ?? (w.ids.pmid ? `pmid:${w.ids.pmid}` : (w.ids.openalex ?? w.ids.docId));

const yearOf = (date: string | null) => (date && /^\d{4}/.test(date) ? date.slice(0, 4) : "—");

function entry(e: GraphEntry, keyId: string): Html {
  if (e.held)
    return html`<li><a href="${workHref(workIdOf(e), keyId)}">${e.title ?? "(untitled)"}</a>
<small>${e.journal ?? ""} ${yearOf(e.publication_date)}</small></li>`;
  const id = e.ids.doi ?? (e.ids.pmid ? `PMID ${e.ids.pmid}` : (e.ids.openalex ?? "no identifier"));
  return html`<li>${e.url ? html`<a href="${e.url}" rel="noopener noreferrer">${id}</a>` : id}
<small>(not in the collections your key reaches)</small></li>`;
}

function list(id: string, title: string, page: WorkView["references"], keyId: string): Html {
  return html`<section aria-labelledby="${id}-title" id="${id}">
<h2 id="${id}-title">${title}</h2>
<p class="hint">${page.coverage.note}</p>
${page.items.length ? html`<ul class="work-list">${page.items.map((e) => entry(e, keyId))}</ul>` : html`<p>None.</p>`}
</section>`;
}

export function workPage(viewer: Viewer, view: WorkView): Html {
  const w = view.work;
  const id = workIdOf(w);
  const exportHref = (format: string) =>
    `/dashboard/works/export?${new URLSearchParams({ key: view.keyId, id, format }).toString()}`;
  const integrity = integrityWords(w.integrity);
  const ids = [
    w.ids.doi && html`DOI <code class="id">${w.ids.doi}</code>`,
    w.ids.pmid && html`PMID <code class="id">${w.ids.pmid}</code>`,
    w.ids.pmcid && html`PMCID <code class="id">${w.ids.pmcid}</code>`,
    w.ids.openalex && html`OpenAlex <code class="id">${w.ids.openalex}</code>`,
  ].filter(Boolean);
  return layout(
    viewer,
    "playground",
    w.title ?? "(untitled)",
    html`<dl class="work-facts" id="work-facts">
<dt>Authors</dt><dd id="work-authors">${w.authors.length ? w.authors.join(", ") : "—"}</dd>
<dt>Journal</dt><dd id="work-journal">${w.journal ?? "—"}</dd>
<dt>Year</dt><dd>${yearOf(w.publication_date)}</dd>
<dt>Integrity</dt><dd id="work-integrity">${integrity}</dd>
<dt>Identifiers</dt><dd class="wrap">${ids.map((x, i) => html`${i ? " · " : ""}${x}`)}</dd>
<dt>Collections</dt><dd>${w.collections.join(", ")}</dd>
<dt>In search</dt><dd id="work-searchable">${
      w.searchable ? "yes" : "no: held as a record only (retracted, or its source gives no text to search)"
    }</dd>
</dl>
<p class="hint">Export: ${EXPORT_LABELS.map(
      ([f, label], i) => html`${i ? " · " : ""}<a href="${exportHref(f)}" download>${label}</a>`,
    )}</p>
<p class="hint">Its text (the abstract, for most works) is what searches sell: a search's rows, or a preview's rows
once unlocked, carry it, and so do their exports.</p>
${list("work-references", "References", view.references, view.keyId)}
${list("work-cited-by", "Cited by", view.citedBy, view.keyId)}`,
  );
}
