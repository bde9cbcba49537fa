// fast-check generators of valid filters whose values come from real chunk metadata, in both formats and every accepted
// spelling.
import fc from "fast-check";
import type { ChunkRecord } from "../../src/retrieval/port.js";
import { DEFAULT_METRIC_BOUNDS } from "../../src/journals/bounds.js";

/** Distinct values of each filterable field in a set of chunks. */
export type FilterValuePools = Record<string, Array<string | number | boolean>>;

const POOLED_FIELDS = [
  "issn",
  "doi",
  "publication_date",
  "journal",
  "publisher",
  "keywords",
  "article_type",
  "section",
  "title",
  "authors",
  "pmid",
  "pmcid",
  "chunk_index",
  "topic",
  "url",
  "last_updated_date",
  "nct_id",
  "overall_status",
  "phases",
] as const;

export function valuePools(records: readonly ChunkRecord[]): FilterValuePools {
  const pools: FilterValuePools = {};
  for (const field of POOLED_FIELDS) {
    const seen = new Set<string | number | boolean>();
    for (const record of records) {
      const raw = record.metadata[field];
      for (const value of Array.isArray(raw) ? raw : [raw]) {
        if (typeof value === "string" ? value.trim() !== "" : typeof value === "number" || typeof value === "boolean")
          seen.add(value);
      }
    }
    pools[field] = [...seen].sort();
  }
  return pools;
}

/** What the collection a filter is generated for can take. */
export interface FilterCapabilities {
  /** indexes the editorial-only fields */
  editorial: boolean;
  /** matches unindexed fields (title, authors, pmid, ...) by scanning */
  scan: boolean;
}

type RangeKey = "gt" | "gte" | "lt" | "lte";

/** A condition before it is written in one format or the other. */
type Condition =
  | { field: string; op: "eq" | "ne"; value: unknown }
  | { field: string; op: "in" | "not_in"; values: unknown[] }
  | { field: string; op: "range"; bounds: Partial<Record<RangeKey, unknown>> }
  | { field: string; op: "between"; low: unknown; high: unknown };

function structured(condition: Condition): Record<string, unknown> {
  switch (condition.op) {
    case "eq":
    case "ne":
      return { field: condition.field, [condition.op]: condition.value };
    case "in":
    case "not_in":
      return { field: condition.field, [condition.op]: condition.values };
    case "range":
      return { field: condition.field, ...condition.bounds };
    case "between":
      return { field: condition.field, between: [condition.low, condition.high] };
  }
}

/** The simple-format value of a condition (between becomes gte + lte; exclusions become `not`). */
function simpleValue(condition: Condition): unknown {
  switch (condition.op) {
    case "eq":
      return condition.value;
    case "ne":
      return { not: condition.value };
    case "in":
      return condition.values;
    case "not_in":
      return { not: condition.values };
    case "range":
      return condition.bounds;
    case "between":
      return { gte: condition.low, lte: condition.high };
  }
}

const pick = <T>(pool: readonly T[]): fc.Arbitrary<T> => fc.constantFrom(...pool);

/** eq, ne, in, not_in over spellings of pooled values. */
function equalityConditions(field: string, value: fc.Arbitrary<unknown>): fc.Arbitrary<Condition> {
  return fc.oneof(
    fc
      .tuple(fc.constantFrom("eq" as const, "ne" as const), value)
      .map(([op, v]): Condition => ({ field, op, value: v })),
    fc
      .tuple(fc.constantFrom("in" as const, "not_in" as const), fc.array(value, { minLength: 1, maxLength: 4 }))
      .map(([op, values]): Condition => ({ field, op, values })),
  );
}

function rangeConditions(field: string, value: fc.Arbitrary<unknown>): fc.Arbitrary<Condition> {
  const oneBound = fc
    .tuple(fc.constantFrom<RangeKey>("gt", "gte", "lt", "lte"), value)
    .map(([key, v]): Condition => ({ field, op: "range", bounds: { [key]: v } }));
  const twoBounds = fc
    .tuple(fc.constantFrom<RangeKey>("gt", "gte"), fc.constantFrom<RangeKey>("lt", "lte"), value, value)
    .map(([low, high, a, b]): Condition => ({ field, op: "range", bounds: { [low]: a, [high]: b } }));
  const between = fc.tuple(value, value).map(([low, high]): Condition => ({ field, op: "between", low, high }));
  return fc.oneof(oneBound, twoBounds, between);
}

const caseVariant = (text: string): fc.Arbitrary<string> =>
  fc.constantFrom(text, text.toUpperCase(), text.toLowerCase());

function issnSpelling(issn: string): fc.Arbitrary<string> {
  return fc.constantFrom(issn, issn.replace("-", ""), issn.toLowerCase(), issn.replace("-", "").toLowerCase());
}

function doiSpelling(doi: string): fc.Arbitrary<string> {
  return fc.constantFrom(doi, doi.toUpperCase(), `https://doi.org/${doi}`, `doi:${doi}`, `DOI:${doi.toUpperCase()}`);
}

/** A stored YYYY-MM-DD date as the year, the month, the day or an instant of it. */
function dateSpelling(date: string, partial: boolean): fc.Arbitrary<string> {
  const forms = [date, `${date}T00:00:00`, `${date}T12:30:00`];
  if (partial) forms.push(date.slice(0, 4), date.slice(0, 7));
  return fc.constantFrom(...forms);
}

const ARTICLE_TYPE_SYNONYMS: Record<string, string[]> = {
  "research-article": ["journal-article", "Original Article", "research_article"],
  review: ["review-article", "Systematic Review", "REVIEW"],
  "case-report": ["case-reports", "Case Report"],
  "book-chapter": ["chapter", "book-part"],
  letter: ["correspondence"],
};

function articleTypeSpelling(type: string): fc.Arbitrary<string> {
  return fc.constantFrom(type, ...(ARTICLE_TYPE_SYNONYMS[type] ?? []));
}

function metricConditions(): fc.Arbitrary<Condition> {
  const bounds = DEFAULT_METRIC_BOUNDS.bounds;
  const h = bounds["journal_metric.h_index"];
  const i10 = bounds["journal_metric.i10_index"];
  const cited = bounds["journal_metric.2yr_mean_citedness"];
  const impact = bounds["journal_metric.impact_factor"];
  const tenths = (low: number, high: number) =>
    fc.integer({ min: Math.round(low * 10), max: Math.round(high * 10) }).map((n) => n / 10);
  const twoEnded = (field: string, value: fc.Arbitrary<number>) =>
    fc.oneof(
      fc
        .tuple(value, value)
        .map(([a, b]): Condition => ({ field, op: "between", low: Math.min(a, b), high: Math.max(a, b) })),
      fc
        .tuple(value, value)
        .map(([a, b]): Condition => ({ field, op: "range", bounds: { gte: Math.min(a, b), lt: Math.max(a, b) } })),
    );
  const lowerAlone = (field: string, value: fc.Arbitrary<number>, key: RangeKey) =>
    value.map((v): Condition => ({ field, op: "range", bounds: { [key]: v } }));
  return fc.oneof(
    lowerAlone("journal_metric.h_index", fc.integer({ min: h.minGte, max: 150 }), "gte"),
    lowerAlone("journal_metric.h_index", fc.integer({ min: h.minGte - 1, max: 150 }), "gt"),
    lowerAlone("journal_metric.h_index", fc.integer({ min: 0, max: h.maxLte ?? 0 }), "lte"),
    twoEnded("journal_metric.h_index", fc.integer({ min: 0, max: 120 })),
    lowerAlone("journal_metric.i10_index", fc.integer({ min: i10.minGte, max: 900 }), "gte"),
    twoEnded("journal_metric.i10_index", fc.integer({ min: 0, max: 400 })),
    lowerAlone("journal_metric.2yr_mean_citedness", tenths(cited.minGte, 6), "gte"),
    lowerAlone("journal_metric.2yr_mean_citedness", tenths(cited.minGte, 6), "gt"),
    twoEnded("journal_metric.2yr_mean_citedness", tenths(0, 6)),
    lowerAlone("journal_metric.impact_factor", tenths(impact.minGte, 8), "gte"),
    lowerAlone("journal_metric.impact_factor", tenths(0, impact.maxLte ?? 0), "lte"),
    twoEnded("journal_metric.impact_factor", tenths(0, 8)),
  );
}

/**
 * Every condition the capabilities allow, with values drawn from the pools (fields with an empty pool are left out).
 */
export function validConditions(pools: FilterValuePools, capabilities: FilterCapabilities): fc.Arbitrary<Condition> {
  const options: Array<fc.Arbitrary<Condition>> = [];
  const pooled = (field: string) => (pools[field] ?? []).length > 0;
  const text = (field: string) => {
    if (pooled(field)) options.push(equalityConditions(field, pick(pools[field] as string[]).chain(caseVariant)));
  };
  if (pooled("issn")) options.push(equalityConditions("issn", pick(pools.issn as string[]).chain(issnSpelling)));
  if (pooled("doi")) options.push(equalityConditions("doi", pick(pools.doi as string[]).chain(doiSpelling)));
  if (pooled("publication_date")) {
    const date = pick(pools.publication_date as string[]).chain((d) => dateSpelling(d, true));
    options.push(equalityConditions("publication_date", date), rangeConditions("publication_date", date));
  }
  if (pooled("article_type"))
    options.push(equalityConditions("article_type", pick(pools.article_type as string[]).chain(articleTypeSpelling)));
  for (const field of ["journal", "publisher", "keywords", "section"]) text(field);
  options.push(equalityConditions("open_access", fc.boolean()));
  options.push(
    equalityConditions("chapter_number", fc.integer({ min: 1, max: 3 })),
    rangeConditions(
      "chapter_number",
      fc.oneof(fc.integer({ min: 0, max: 5 }), fc.double({ min: -1, max: 6, noNaN: true })),
    ),
  );
  options.push(metricConditions());
  if (capabilities.scan) {
    for (const field of ["title", "authors"]) text(field);
    if (pooled("pmid"))
      options.push(
        equalityConditions(
          "pmid",
          pick(pools.pmid as string[]).chain((pmid) => fc.constantFrom<unknown>(pmid, Number(pmid))),
        ),
      );
    if (pooled("pmcid"))
      options.push(
        equalityConditions(
          "pmcid",
          pick(pools.pmcid as string[]).chain((id) => fc.constantFrom(id, id.toLowerCase(), id.replace(/^PMC/, ""))),
        ),
      );
    const chunkIndex = fc.integer({ min: 0, max: 6 });
    // fractional bounds on an integer field: OpenSearch rounds them, the predicate compares them as numbers
    const chunkIndexBound = fc.oneof(
      chunkIndex,
      fc.integer({ min: -1, max: 6 }).map((n) => n + 0.5),
    );
    options.push(equalityConditions("chunk_index", chunkIndex), rangeConditions("chunk_index", chunkIndexBound));
  }
  if (capabilities.editorial) {
    for (const field of ["topic", "url", "overall_status", "phases"]) text(field);
    if (pooled("nct_id"))
      options.push(
        equalityConditions(
          "nct_id",
          pick(pools.nct_id as string[]).chain((id) => fc.constantFrom(id, id.toLowerCase())),
        ),
      );
    if (pooled("last_updated_date")) {
      const date = pick(pools.last_updated_date as string[]).chain((d) => dateSpelling(d, false));
      options.push(equalityConditions("last_updated_date", date), rangeConditions("last_updated_date", date));
    }
    for (const field of ["medical_board_approved", "has_results"])
      options.push(equalityConditions(field, fc.boolean()));
  }
  return fc.oneof(...options);
}

const MAX_METRIC_CONDITIONS = 8;

function metricCount(filter: unknown): number {
  return (JSON.stringify(filter).match(/journal_metric\./g) ?? []).length;
}

/** A valid filter in the structured format (nested and/or/not, or one bare condition) or the simple format. */
export function validFilter(pools: FilterValuePools, capabilities: FilterCapabilities): fc.Arbitrary<unknown> {
  const condition = validConditions(pools, capabilities);
  const tree = fc.letrec<{ node: unknown }>((tie) => ({
    node: fc.oneof(
      { depthSize: "small", maxDepth: 3 },
      { arbitrary: condition.map(structured), weight: 3 },
      {
        arbitrary: fc
          .tuple(fc.constantFrom("and", "or", "not"), fc.array(tie("node"), { minLength: 1, maxLength: 3 }))
          .map(([combinator, children]) => ({ [combinator]: children })),
        weight: 2,
      },
    ),
  })).node;
  const simple = fc
    .uniqueArray(condition, { minLength: 1, maxLength: 3, selector: (c) => c.field })
    .map((conditions) => Object.fromEntries(conditions.map((c) => [c.field, simpleValue(c)])));
  return fc.oneof(tree, simple).filter((filter) => metricCount(filter) <= MAX_METRIC_CONDITIONS);
}
