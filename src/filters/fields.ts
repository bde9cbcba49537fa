// The filterable field catalogue: which group each result metadata field is in and what values it takes.
import { METRIC_FIELDS } from "../journals/metricFields.js";

/**
 * - indexed: indexed on every collection
 * - editorial: indexed on editorial collections only
 * - metric: journal metrics, resolved to ISSNs (range operators only)
 * - scan: result metadata without an index, matched by scanning where the collection allows it
 */
type FieldGroup = "indexed" | "editorial" | "metric" | "scan";

/**
 * How values of a field are validated and normalized.
 * `publication_date` takes partial dates (YYYY, YYYY-MM); `full_date` does not.
 */
type FieldValueKind =
  | "text"
  | "issn"
  | "doi"
  | "article_type"
  | "boolean"
  | "publication_date"
  | "full_date"
  | "number"
  | "metric"
  | "pmid"
  | "pmcid"
  | "nct_id"
  | "trial_phase"
  | "author_id";

export interface FieldSpec {
  name: string;
  group: FieldGroup;
  kind: FieldValueKind;
  /**
   * a number field indexed as a 32-bit integer: a value outside INT32_RANGE cannot be compared with it on any engine
   */
  int32?: true;
}

/** What a 32-bit integer field holds. */
export const INT32_RANGE = { min: -(2 ** 31), max: 2 ** 31 - 1 } as const;

const FIELD_SPECS: FieldSpec[] = [
  { name: "journal", group: "indexed", kind: "text" },
  { name: "publisher", group: "indexed", kind: "text" },
  { name: "keywords", group: "indexed", kind: "text" },
  { name: "publication_date", group: "indexed", kind: "publication_date" },
  { name: "doi", group: "indexed", kind: "doi" },
  { name: "issn", group: "indexed", kind: "issn" },
  { name: "article_type", group: "indexed", kind: "article_type" },
  { name: "section", group: "indexed", kind: "text" },
  { name: "isbn", group: "indexed", kind: "text" },
  { name: "open_access", group: "indexed", kind: "boolean" },
  { name: "chapter_number", group: "indexed", kind: "number", int32: true },
  { name: "chapter_title", group: "indexed", kind: "text" },
  { name: "chapter_authors", group: "indexed", kind: "text" },
  // a person by OpenAlex author id or ORCID (src/domain/authors.ts), matched against each work's authorships' ids
  { name: "author_id", group: "indexed", kind: "author_id" },

  { name: "topic", group: "editorial", kind: "text" },
  { name: "url", group: "editorial", kind: "text" },
  { name: "medical_board_approved", group: "editorial", kind: "boolean" },
  { name: "last_updated_date", group: "editorial", kind: "full_date" },
  { name: "nct_id", group: "editorial", kind: "nct_id" },
  { name: "overall_status", group: "editorial", kind: "text" },
  { name: "phases", group: "editorial", kind: "trial_phase" },
  { name: "has_results", group: "editorial", kind: "boolean" },

  ...METRIC_FIELDS.map((name): FieldSpec => ({ name, group: "metric", kind: "metric" })),

  // Result metadata fields named by the spec that no collection indexes.
  { name: "title", group: "scan", kind: "text" },
  { name: "authors", group: "scan", kind: "text" },
  { name: "pmid", group: "scan", kind: "pmid" },
  { name: "pmcid", group: "scan", kind: "pmcid" },
  { name: "chunk_index", group: "scan", kind: "number", int32: true },
];

/**
 * Named but never filterable: `doc_id` and `license` by the spec; `figures` because it holds
 * objects (id, label, caption, image) that no scalar condition can match.
 */
const NEVER_FILTERABLE = new Map<string, string>([
  ["doc_id", "doc_id is an internal document identifier and is not filterable"],
  ["license", "license is returned in result metadata but is not filterable"],
  ["figures", "figures holds figure objects and is not filterable"],
]);

const FIELDS_BY_NAME = new Map<string, FieldSpec>(FIELD_SPECS.map((spec) => [spec.name, spec]));

export function fieldSpec(name: string): FieldSpec | undefined {
  return FIELDS_BY_NAME.get(name);
}

export function neverFilterableReason(name: string): string | undefined {
  return NEVER_FILTERABLE.get(name);
}

export function fieldsInGroup(group: FieldGroup): string[] {
  return FIELD_SPECS.filter((spec) => spec.group === group).map((spec) => spec.name);
}

/** The fields a filter can use, by where they are indexed: `details.indexedFields` of every INVALID_FILTER error. */
export const INDEXED_FIELDS = {
  everyCollection: fieldsInGroup("indexed"),
  editorialCollections: fieldsInGroup("editorial"),
  journalMetrics: fieldsInGroup("metric"),
} as const;

/** Every name a filter condition may use: what a misspelled field is matched against. */
export const FILTERABLE_FIELDS: readonly string[] = FIELD_SPECS.map((spec) => spec.name);

/** Names clients try for a field under another name (matched without case or separators). */
export const FIELD_ALIASES: Readonly<Record<string, string>> = {
  year: "publication_date",
  date: "publication_date",
  published: "publication_date",
  publication_year: "publication_date",
  pub_date: "publication_date",
  author: "authors",
  authorid: "author_id",
  orcid: "author_id",
  openalex_author: "author_id",
  type: "article_type",
  publication_type: "article_type",
  journal_name: "journal",
  venue: "journal",
  source: "journal",
  keyword: "keywords",
  oa: "open_access",
  is_oa: "open_access",
  h_index: "journal_metric.h_index",
  impact_factor: "journal_metric.impact_factor",
  i10_index: "journal_metric.i10_index",
};

/**
 * The sentence every filter error ends with, so a client sees what it can filter on: the fields every collection
 * indexes; the editorial-only fields and the journal metrics are in details.indexedFields, which keeps messages short.
 */
export function indexedFieldsSentence(): string {
  return (
    `Indexed fields: ${INDEXED_FIELDS.everyCollection.join(", ")}. Editorial fields and journal metrics: ` +
    "details.indexedFields."
  );
}
