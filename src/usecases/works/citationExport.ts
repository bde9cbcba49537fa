// Exports works to the formats reference managers and screening tools read: BibTeX, RIS and CSL-JSON. One entry per
// work in the order given; metadata only. Pure.
import { createHash } from "node:crypto";

export type ExportFormat = "bibtex" | "ris" | "csljson";

/** What an entry is made of: a work's bibliographic fields and identifiers. */
export interface ExportWork {
  title: string | null;
  authors: readonly string[];
  journal: string | null;
  issn: readonly string[];
  publisher: string | null;
  publication_date: string | null;
  article_type: string | null;
  doi: string | null;
  pmid: string | null;
  pmcid: string | null;
  url: string | null;
  /** a stable identity for the entry's key when it has no DOI (a doc_id) */
  docId: string;
}

export const EXPORT_CONTENT_TYPES: Record<ExportFormat, string> = {
  bibtex: "application/x-bibtex; charset=utf-8",
  ris: "application/x-research-info-systems; charset=utf-8",
  csljson: "application/vnd.citationstyles.csl+json; charset=utf-8",
};

export const EXPORT_EXTENSIONS: Record<ExportFormat, string> = { bibtex: "bib", ris: "ris", csljson: "json" };

export function exportWorks(format: ExportFormat, works: readonly ExportWork[]): string {
  switch (format) {
    case "bibtex":
      return bibtex(works);
    case "ris":
      return ris(works);
    case "csljson":
      return `${JSON.stringify(works.map(cslItem), null, 2)}\n`;
  }
}

/** A name as family and given parts: "Last, First" or "First Middle Last"; one word (or a group) stays whole. */
export function nameParts(name: string): { family: string; given?: string } {
  const n = name.trim().replace(/\s+/g, " ");
  const comma = n.indexOf(",");
  if (comma > 0) return { family: n.slice(0, comma).trim(), given: n.slice(comma + 1).trim() || undefined };
  const words = n.split(" ");
  if (
    words.length < 2 ||
    /\b(group|consortium|committee|collaboration|investigators|network|society|association|team)\b/i.test(n)
  )
    return { family: n };
  return { family: words[words.length - 1]!, given: words.slice(0, -1).join(" ") };
}

const dateParts = (date: string | null): number[] | null => {
  const m = /^(\d{4})(?:-(\d{2}))?(?:-(\d{2}))?/.exec(date ?? "");
  return m ? [m[1], m[2], m[3]].filter((p): p is string => p !== undefined).map(Number) : null;
};

const isJournalArticle = (w: ExportWork) => w.journal !== null;

/** Entry keys: first author's family name and year, made unique in the file by a short hash of the work's identity. */
function entryKey(w: ExportWork, used: Set<string>): string {
  const family =
    (w.authors[0] ? nameParts(w.authors[0]).family : "anon")
      .normalize("NFKD")
      .replace(/[^A-Za-z0-9]/g, "")
      .toLowerCase() || "anon";
  const base = `${family}${dateParts(w.publication_date)?.[0] ?? "nd"}`;
  let key = `${base}_${createHash("sha1")
    .update(w.doi ?? w.docId)
    .digest("hex")
    .slice(0, 6)}`;
  for (let n = 2; used.has(key); n++) key = `${base}_${n}`;
  used.add(key);
  return key;
}

/** A BibTeX field value in braces: LaTeX's special characters escaped, braces balanced by escaping them. */
function bibValue(text: string): string {
  return `{${text
    .replace(/\\/g, "\\textbackslash{}")
    .replace(/([{}&%$#_])/g, "\\$1")
    .replace(/~/g, "\\textasciitilde{}")
    .replace(/\^/g, "\\textasciicircum{}")
    .replace(/\s+/g, " ")}}`;
}

function bibtex(works: readonly ExportWork[]): string {
  const used = new Set<string>();
  return works
    .map((w) => {
      const date = dateParts(w.publication_date);
      const fields: [string, string | null][] = [
        ["title", w.title],
        [
          "author",
          w.authors.length > 0
            ? w.authors
                .map((a) => nameParts(a))
                .map((p) => (p.given ? `${p.family}, ${p.given}` : `{${p.family}}`))
                .join(" and ")
            : null,
        ],
        ["journal", w.journal],
        ["year", date ? String(date[0]) : null],
        ["month", date && date.length > 1 ? String(date[1]) : null],
        ["publisher", w.publisher],
        ["issn", w.issn[0] ?? null],
        ["doi", w.doi],
        ["pmid", w.pmid],
        ["pmcid", w.pmcid],
        ["url", w.url ?? (w.doi ? `https://doi.org/${w.doi}` : null)],
      ];
      // author names are already BibTeX (a group's name braced); everything else is text to escape
      const lines = fields
        .filter(([, v]) => v)
        .map(([k, v]) => `  ${k} = ${k === "author" ? `{${v!.replace(/[&%$#_]/g, "\\$&")}}` : bibValue(v!)}`);
      return `@${isJournalArticle(w) ? "article" : "misc"}{${entryKey(w, used)},\n${lines.join(",\n")}\n}\n`;
    })
    .join("\n");
}

/** RIS: one line per tag, "TAG  - value", CRLF, each record closed by ER. */
function ris(works: readonly ExportWork[]): string {
  const oneLine = (v: string) => v.replace(/[\r\n]+/g, " ").trim();
  return works
    .map((w) => {
      const date = dateParts(w.publication_date);
      const lines: string[] = [`TY  - ${isJournalArticle(w) ? "JOUR" : "GEN"}`];
      const add = (tag: string, v: string | null) => {
        if (v) lines.push(`${tag}  - ${oneLine(v)}`);
      };
      add("TI", w.title);
      for (const a of w.authors) {
        const p = nameParts(a);
        add("AU", p.given ? `${p.family}, ${p.given}` : p.family);
      }
      add("T2", w.journal);
      add("PY", date ? String(date[0]) : null);
      add(
        "DA",
        date
          ? `${date.map((d, i) => (i === 0 ? String(d) : String(d).padStart(2, "0"))).join("/")}` +
              `${date.length < 3 ? "/" : ""}`
          : null,
      );
      add("PB", w.publisher);
      for (const issn of w.issn) add("SN", issn);
      add("DO", w.doi);
      add("AN", w.pmid ? `PMID:${w.pmid}` : null);
      add("UR", w.url ?? (w.doi ? `https://doi.org/${w.doi}` : null));
      lines.push("ER  - ");
      return `${lines.join("\r\n")}\r\n`;
    })
    .join("\r\n");
}

function cslItem(w: ExportWork): Record<string, unknown> {
  const date = dateParts(w.publication_date);
  const item: Record<string, unknown> = {
    id: w.doi ?? w.docId,
    type: isJournalArticle(w) ? "article-journal" : "article",
    title: w.title ?? undefined,
    author:
      w.authors.length > 0
        ? w.authors.map((a) => {
            const p = nameParts(a);
            return p.given ? { family: p.family, given: p.given } : { literal: p.family };
          })
        : undefined,
    "container-title": w.journal ?? undefined,
    issued: date ? { "date-parts": [date] } : undefined,
    publisher: w.publisher ?? undefined,
    ISSN: w.issn[0] ?? undefined,
    DOI: w.doi ?? undefined,
    PMID: w.pmid ?? undefined,
    PMCID: w.pmcid ?? undefined,
    URL: w.url ?? (w.doi ? `https://doi.org/${w.doi}` : undefined),
  };
  return Object.fromEntries(Object.entries(item).filter(([, v]) => v !== undefined));
}

const str = (v: unknown): string | null => (typeof v === "string" && v.length > 0 ? v : null);
const strs = (v: unknown): string[] => (Array.isArray(v) ? v.filter((x): x is string => typeof x === "string") : []);

/** A work (GET /works/{id}, the batch) as an export entry. */
export function exportWorkOf(
  work: { ids: { doi: string | null; pmid: string | null; pmcid: string | null; docId: string } } & Pick<
    ExportWork,
    "title" | "authors" | "journal" | "issn" | "publisher" | "publication_date" | "article_type" | "url"
  >,
): ExportWork {
  return {
    title: work.title,
    authors: work.authors,
    journal: work.journal,
    issn: work.issn,
    publisher: work.publisher,
    publication_date: work.publication_date,
    article_type: work.article_type,
    url: work.url,
    doi: work.ids.doi,
    pmid: work.ids.pmid,
    pmcid: work.ids.pmcid,
    docId: work.ids.docId,
  };
}

/**
 * A kept search's rows as export entries: one per work (collection and doc_id), in result order, from the first row of
 * each; metadata only, so a locked preview row exports the same as an unlocked one.
 */
export function exportWorksOfRows(
  rows: readonly { collection: string; metadata: Record<string, unknown> }[],
): ExportWork[] {
  const seen = new Set<string>();
  const works: ExportWork[] = [];
  for (const row of rows) {
    const m = row.metadata;
    const docId = str(m.doc_id) ?? "";
    const key = `${row.collection}\u0000${docId}`;
    if (seen.has(key)) continue;
    seen.add(key);
    works.push({
      title: str(m.title),
      authors: strs(m.authors),
      journal: str(m.journal),
      issn: strs(m.issn),
      publisher: str(m.publisher),
      publication_date: str(m.publication_date),
      article_type: str(m.article_type),
      doi: str(m.doi),
      pmid: str(m.pmid),
      pmcid: str(m.pmcid),
      url: str(m.url),
      docId,
    });
  }
  return works;
}
