// fast-check generators of malformed filters (one defect anywhere, in either format) and of near-miss junk, for the
// parser fuzz and the HTTP fuzz.
import fc from "fast-check";
import { ARTICLE_TYPES, canonicalArticleType } from "../../src/filters/articleTypes.js";
import { parseFilterDate } from "../../src/filters/dates.js";
import { fieldSpec, neverFilterableReason } from "../../src/filters/fields.js";
import { canonicalDoi, canonicalIssn } from "../../src/domain/identifiers.js";

export const OPERATORS = ["eq", "ne", "in", "not_in", "gt", "gte", "lt", "lte", "between"];
const RESERVED = new Set([...OPERATORS, "and", "or", "not", "field"]);
const nonBlank = fc.string({ minLength: 1, maxLength: 12 }).filter((text) => text.trim().length > 0);
export const validIssn = fc
  .tuple(
    fc.integer({ min: 0, max: 9999 }),
    fc.integer({ min: 0, max: 999 }),
    fc.constantFrom("0", "5", "X", "x"),
    fc.boolean(),
  )
  .map(
    ([head, tail, check, hyphen]) =>
      `${String(head).padStart(4, "0")}${hyphen ? "-" : ""}${String(tail).padStart(3, "0")}${check}`,
  );
export const validDoi = fc
  .tuple(
    fc.integer({ min: 1000, max: 99999 }),
    fc.stringMatching(/^[a-z0-9.]{1,10}$/),
    fc.constantFrom("", "doi:", "https://doi.org/"),
  )
  .map(([registrant, suffix, prefix]) => `${prefix}10.${registrant}/${suffix}`);
export const validDate = fc
  .tuple(
    fc.integer({ min: 1900, max: 2030 }),
    fc.integer({ min: 1, max: 12 }),
    fc.integer({ min: 1, max: 28 }),
    fc.constantFrom("year", "month", "day", "second"),
  )
  .map(([year, month, day, precision]) => {
    const ym = `${year}-${String(month).padStart(2, "0")}`;
    if (precision === "year") return String(year);
    if (precision === "month") return ym;
    const ymd = `${ym}-${String(day).padStart(2, "0")}`;
    return precision === "day" ? ymd : `${ymd}T12:30:00`;
  });
const metricField = fc.constantFrom(
  "journal_metric.h_index",
  "journal_metric.i10_index",
  "journal_metric.2yr_mean_citedness",
  "journal_metric.impact_factor",
);

/** Conditions the spec accepts on the profiles above. */
export const validCondition: fc.Arbitrary<Record<string, unknown>> = fc.oneof(
  nonBlank.map((name) => ({ field: "journal", eq: name })),
  fc.array(nonBlank, { minLength: 1, maxLength: 4 }).map((names) => ({ field: "publisher", not_in: names })),
  fc.array(validIssn, { minLength: 1, maxLength: 4 }).map((issns) => ({ field: "issn", in: issns })),
  validIssn.map((issn) => ({ field: "issn", ne: issn })),
  validDoi.map((doi) => ({ field: "doi", eq: doi })),
  fc
    .constantFrom(...ARTICLE_TYPES, "review-article", "journal-article")
    .map((type) => ({ field: "article_type", eq: type })),
  fc
    .tuple(validDate, fc.constantFrom("gt", "gte", "lt", "lte"))
    .map(([date, operator]) => ({ field: "publication_date", [operator]: date })),
  fc.tuple(validDate, validDate).map(([low, high]) => ({ field: "publication_date", between: [low, high] })),
  fc.boolean().map((value) => ({ field: "open_access", eq: value })),
  fc.integer({ min: 0, max: 50 }).map((number) => ({ field: "chapter_number", gte: number, lt: number + 5 })),
  fc.stringMatching(/^[1-9][0-9]{0,7}$/).map((pmid) => ({ field: "pmid", eq: pmid })),
  fc.tuple(metricField, fc.integer({ min: 0, max: 50 })).map(([field, low]) => ({ field, between: [low, low + 3] })),
  metricField.map((field) => ({ field, gte: 200 })),
);

export const validTree: fc.Arbitrary<Record<string, unknown>> = fc.letrec<{ node: Record<string, unknown> }>((tie) => ({
  node: fc.oneof(
    { depthSize: "small", maxDepth: 4 },
    validCondition,
    fc
      .tuple(fc.constantFrom("and", "or", "not"), fc.array(tie("node"), { minLength: 1, maxLength: 3 }))
      .map(([combinator, children]) => ({ [combinator]: children })),
  ),
})).node;

export const metricConditionCount = (filter: unknown): number =>
  (JSON.stringify(filter).match(/journal_metric\./g) ?? []).length;

const notAFieldOrOperator = fc
  .string({ maxLength: 15 })
  .filter((name) => !RESERVED.has(name) && !fieldSpec(name) && !neverFilterableReason(name));

/** A condition or combinator that is wrong wherever it stands inside a structured filter. */
export const defect: fc.Arbitrary<unknown> = fc.oneof(
  notAFieldOrOperator.map((name) => ({ field: name, eq: "x" })),
  fc.constantFrom("doc_id", "license", "figures", "journal_metric.sjr").map((name) => ({ field: name, eq: "x" })),
  notAFieldOrOperator.map((operator) => ({ field: "journal", [operator]: "x" })),
  fc
    .tuple(
      fc.constantFrom("eq", "ne", "in", "not_in", "between"),
      fc.constantFrom("eq", "ne", "in", "not_in", "gt", "gte", "lt", "lte"),
    )
    .filter(([a, b]) => a !== b)
    .map(([a, b]) => ({ field: "chapter_number", [a]: 1, [b]: 2 })),
  fc
    .constantFrom("gt", "gte", "lt", "lte")
    .map((operator) => ({ field: "chapter_number", between: [1, 2], [operator]: 1 })),
  fc
    .tuple(fc.constantFrom("and", "or", "not"), validCondition)
    .map(([combinator, condition]) => ({ [combinator]: condition })),
  fc.constantFrom("and", "or", "not").map((combinator) => ({ [combinator]: [] })),
  fc
    .string({ maxLength: 20 })
    .filter((text) => parseFilterDate(text, true) === null)
    .map((text) => ({ field: "publication_date", eq: text })),
  fc
    .constantFrom(
      "2021-02-30",
      "2019-02-29",
      "2021-04-31",
      "2021-13",
      "2021-00",
      "2021-01-01T24:00:00",
      "2021-01-01T10:60:00",
    )
    .map((date) => ({ field: "publication_date", gte: date })),
  fc.constantFrom("2021", "2021-05").map((date) => ({ field: "last_updated_date", eq: date })),
  fc
    .string({ maxLength: 20 })
    .filter((text) => canonicalArticleType(text) === null)
    .map((text) => ({ field: "article_type", eq: text })),
  fc
    .string({ maxLength: 20 })
    .filter((text) => canonicalIssn(text) === null)
    .map((text) => ({ field: "issn", in: [text] })),
  fc
    .string({ maxLength: 20 })
    .filter((text) => canonicalDoi(text) === null)
    .map((text) => ({ field: "doi", eq: text })),
  fc
    .tuple(metricField, fc.constantFrom("eq", "ne", "in", "not_in"))
    .map(([field, operator]) => ({ field, [operator]: operator.endsWith("in") ? [1] : 1 })),
  fc.integer({ min: 0, max: 34 }).map((value) => ({ field: "journal_metric.h_index", gte: value })),
  fc.integer({ min: 0, max: 1000 }).map((value) => ({ field: "journal_metric.i10_index", lte: value })),
  fc.constantFrom(0.0, 0.5, 0.8, 0.85).map((value) => ({ field: "journal_metric.impact_factor", gt: value })),
  fc.record({ journal: nonBlank }),
  fc.constantFrom(null, 3, "journal", true, [], {}).map((value) => value),
  fc.constantFrom({}, [], null, { a: 1 }, Number.NaN).map((value) => ({ field: "journal", eq: value })),
  fc.constantFrom("yes", 1, null).map((value) => ({ field: "open_access", eq: value })),
  fc
    .constantFrom("gt", "between")
    .map((operator) => ({ field: "journal", [operator]: operator === "between" ? ["a", "b"] : "a" })),
  fc.constant({ field: "journal" }),
  fc.constant({ eq: "x" }),
  fc
    .tuple(fc.constantFrom("and", "or"), validCondition)
    .map(([combinator, condition]) => ({ [combinator]: [condition], ...condition })),
  fc.constant({ and: Array.from({ length: 9 }, () => ({ field: "journal_metric.h_index", between: [1, 2] })) }),
);

/** A valid structured filter with the defect placed at a random depth among valid siblings. */
export const structuredWithDefect = fc
  .tuple(
    defect,
    fc.array(validCondition, { maxLength: 3 }),
    fc.nat(),
    fc.array(fc.constantFrom("and", "or", "not"), { minLength: 1, maxLength: 4 }),
  )
  .map(([bad, siblings, position, combinators]) => {
    const children: unknown[] = [...siblings];
    children.splice(position % (siblings.length + 1), 0, bad);
    let node: unknown = { [combinators[0]]: children };
    for (const combinator of combinators.slice(1)) node = { [combinator]: [node] };
    return node;
  });

/** Simple-format filters with one thing wrong. */
export const simpleWithDefect: fc.Arbitrary<unknown> = fc.oneof(
  fc
    .tuple(nonBlank, fc.constantFrom("and", "or", "not"), validCondition)
    .map(([name, combinator, condition]) => ({ journal: name, [combinator]: [condition] })),
  fc
    .tuple(fc.constantFrom("eq", "ne", "in", "not_in", "between"), nonBlank)
    .map(([operator, value]) => ({ journal: { [operator]: value } })),
  fc.constantFrom("eq", "ne", "in", "gte").map((operator) => ({ [operator]: "x" })),
  notAFieldOrOperator.map((name) => ({ journal: "x", [name]: "y" })),
  fc.constant({ journal: [] }),
  fc.constant({ journal: {} }),
  fc.constant({ chapter_number: { not: 1, gte: 2 } }),
  fc.constant({ "journal_metric.h_index": 40 }),
  fc.integer({ min: 0, max: 34 }).map((value) => ({ "journal_metric.h_index": { gte: value } })),
  fc
    .string({ maxLength: 12 })
    .filter((text) => parseFilterDate(text, true) === null)
    .map((text) => ({ publication_date: { lte: text } })),
  fc.constant({ field: "journal", eq: "x", publisher: "y" }),
  fc.oneof(fc.string(), fc.integer(), fc.boolean(), fc.constant(null), fc.array(fc.anything(), { maxLength: 3 })),
);

export const keyPool = fc.constantFrom(
  "field",
  "and",
  "or",
  "not",
  ...OPERATORS,
  "journal",
  "issn",
  "doi",
  "publication_date",
  "journal_metric.h_index",
  "open_access",
  "pmid",
  "topic",
  "__proto__",
  "constructor",
);
export const valuePool = fc.oneof(
  fc.string({ maxLength: 12 }),
  fc.integer(),
  fc.double(),
  fc.boolean(),
  fc.constant(null),
  validIssn,
  validDate,
  validDoi,
);
export const nearMiss: fc.Arbitrary<unknown> = fc.letrec<{ node: unknown }>((tie) => ({
  node: fc.oneof(
    { depthSize: "small", maxDepth: 5 },
    valuePool,
    fc.array(tie("node"), { maxLength: 4 }),
    fc.dictionary(keyPool, tie("node"), { maxKeys: 3 }),
  ),
})).node;
