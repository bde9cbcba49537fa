// The facet values of one work, as both engines index them and as works/facets counts them (facetCounts.ts): one pure
// derivation from a document's metadata, so an OpenSearch aggregation, the embedded engine's per-work table and the
// count in Node read the same values. Also which filters an engine may answer over each document's first chunk.
import type { FilterNode } from "../filters/ast.js";
import type { EngineFacet, EngineFacetBucket, EngineFacetCounts } from "./port.js";
/** a document's metadata as its chunks carry it (the port's ChunkMetadata, which imports this file's types) */
type Metadata = Readonly<Record<string, unknown>>;

/** The facets an engine counts itself (the author and integrity facets are counted in Node: facetCounts.ts). */
export const ENGINE_FACETS = [
  "publication_year",
  "journal",
  "subject",
  "article_type",
  "open_access",
] as const satisfies readonly EngineFacet[];
export type { EngineFacet, EngineFacetBucket, EngineFacetCounts };

/** One work's values for each engine facet, each once, and its ISSNs (a journal bucket's id is the smallest). */
export type WorkFacetValues = Record<EngineFacet | "issn", string[]>;

const text = (v: unknown): string | null => (typeof v === "string" && v.trim() !== "" ? v.trim() : null);
/** trimmed non-empty strings of an array, each once, in their first order */
export const texts = (v: unknown): string[] =>
  Array.isArray(v) ? [...new Set(v.map(text).filter((x): x is string => x !== null))] : [];
const one = (v: string | null | undefined): string[] => (v ? [v] : []);

export function workFacetValues(m: Metadata): WorkFacetValues {
  return {
    publication_year: one(/^(\d{4})/.exec(text(m.publication_date) ?? "")?.[1]),
    journal: one(text(m.journal)),
    subject: texts(m.keywords),
    article_type: one(text(m.article_type)),
    open_access: typeof m.open_access === "boolean" ? [String(m.open_access)] : [],
    issn: texts(m.issn),
  };
}

/**
 * Filter fields whose values every chunk of a document shares: a document has a chunk passing a filter on these alone
 * exactly when its first chunk passes, so an engine may count works over first chunks. Any other field (section,
 * chunk_index, a book's chapter fields) leaves the count to the documents listed (listDocuments).
 */
const DOCUMENT_LEVEL_FIELDS: ReadonlySet<string> = new Set([
  "doc_id",
  "journal",
  "publisher",
  "keywords",
  "publication_date",
  "doi",
  "issn",
  "article_type",
  "open_access",
  "author_id",
  "authors",
  "title",
  "pmid",
  "pmcid",
  "isbn",
  "topic",
  "url",
  "medical_board_approved",
  "last_updated_date",
  "nct_id",
  "overall_status",
  "phases",
  "has_results",
]);

export function isDocumentLevelFilter(filter: FilterNode | undefined): boolean {
  if (!filter) return true;
  switch (filter.kind) {
    case "and":
    case "or":
      return filter.children.every(isDocumentLevelFilter);
    case "not":
      return isDocumentLevelFilter(filter.child);
    case "all":
    case "none":
      return true;
    default:
      return DOCUMENT_LEVEL_FIELDS.has(filter.field);
  }
}

const codeUnitOrder = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);

/** Count desc, then value asc in code-unit order (the order works/facets documents). */
export function byCountThenValue(a: EngineFacetBucket, b: EngineFacetBucket): number {
  return b.count - a.count || codeUnitOrder(a.value, b.value) || codeUnitOrder(a.id ?? "", b.id ?? "");
}
