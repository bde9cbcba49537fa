// compileToPredicate: equality on scalar and multi-valued fields, case folding, date periods, ranges, exists, and
// boolean logic.
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import type { FilterNode } from "../../src/filters/ast.js";
import {
  compileToPredicate,
  MAX_FILTERABLE_TEXT_LENGTH,
  parseDatePeriod,
} from "../../src/filters/compileToPredicate.js";

type Metadata = Record<string, unknown>;

const article: Metadata = {
  chunk_index: 2,
  doc_id: "doc-1",
  journal: "The Lancet",
  issn: ["0140-6736", "1474-547X"],
  keywords: ["Cancer", "Immunotherapy"],
  publication_date: "2020-03-04",
  open_access: true,
  chapter_number: 7,
  article_type: "research-article",
  doi: "10.1016/s0140-6736(20)30183-5",
  section: null,
};

function matches(node: FilterNode, metadata: Metadata = article): boolean {
  return compileToPredicate(node)(metadata);
}

describe("compileToPredicate", () => {
  it("ignores stored text longer than OpenSearch indexes (keyword ignore_above), as absent", () => {
    const long = "x".repeat(MAX_FILTERABLE_TEXT_LENGTH + 1);
    const atLimit = "y".repeat(MAX_FILTERABLE_TEXT_LENGTH);
    const metadata = { title: long, authors: [long, "Ada Lovelace"], keywords: [atLimit] };
    expect(matches({ kind: "eq", field: "title", value: long }, metadata)).toBe(false);
    expect(matches({ kind: "exists", field: "title" }, metadata)).toBe(false);
    expect(matches({ kind: "not", child: { kind: "exists", field: "title" } }, metadata)).toBe(true);
    expect(matches({ kind: "eq", field: "authors", value: long }, metadata)).toBe(false);
    expect(matches({ kind: "eq", field: "authors", value: "ada lovelace" }, metadata)).toBe(true);
    expect(matches({ kind: "eq", field: "keywords", value: atLimit }, metadata)).toBe(true);
  });

  it("matches equality on scalars, case-insensitively for strings", () => {
    expect(matches({ kind: "eq", field: "journal", value: "the lancet" })).toBe(true);
    expect(matches({ kind: "eq", field: "journal", value: "Lancet" })).toBe(false);
    expect(matches({ kind: "eq", field: "open_access", value: true })).toBe(true);
    expect(matches({ kind: "eq", field: "open_access", value: false })).toBe(false);
    expect(matches({ kind: "eq", field: "chapter_number", value: 7 })).toBe(true);
    expect(matches({ kind: "eq", field: "chapter_number", value: 8 })).toBe(false);
    expect(matches({ kind: "eq", field: "doi", value: "10.1016/s0140-6736(20)30183-5" })).toBe(true);
  });

  it("matches a multi-valued field when any element matches", () => {
    expect(matches({ kind: "eq", field: "issn", value: "1474-547X" })).toBe(true);
    expect(matches({ kind: "in", field: "issn", values: ["0000-0000", "0140-6736"] })).toBe(true);
    expect(matches({ kind: "in", field: "keywords", values: ["cancer"] })).toBe(true);
    expect(matches({ kind: "in", field: "issn", values: ["0000-0000"] })).toBe(false);
    expect(matches({ kind: "in", field: "issn", values: [] })).toBe(false);
  });

  it("keeps chunks without the field under a negation (an issn exclusion keeps chunks without ISSN)", () => {
    const exclude: FilterNode = { kind: "not", child: { kind: "eq", field: "issn", value: "0140-6736" } };
    expect(matches(exclude)).toBe(false);
    expect(matches(exclude, { chunk_index: 0, doc_id: "x" })).toBe(true);
    expect(matches(exclude, { chunk_index: 0, doc_id: "x", issn: null })).toBe(true);
    expect(matches(exclude, { chunk_index: 0, doc_id: "x", issn: [] })).toBe(true);
  });

  it("reads dates as periods: a year or month value covers all of it", () => {
    expect(matches({ kind: "eq", field: "publication_date", value: "2020" })).toBe(true);
    expect(matches({ kind: "eq", field: "publication_date", value: "2020-03" })).toBe(true);
    expect(matches({ kind: "eq", field: "publication_date", value: "2020-04" })).toBe(false);
    expect(matches({ kind: "range", field: "publication_date", bounds: { lte: "2020" } })).toBe(true);
    expect(matches({ kind: "range", field: "publication_date", bounds: { lt: "2020" } })).toBe(false);
    expect(matches({ kind: "range", field: "publication_date", bounds: { gt: "2020-02" } })).toBe(true);
    expect(matches({ kind: "range", field: "publication_date", bounds: { gt: "2020-03" } })).toBe(false);
    expect(
      matches({ kind: "range", field: "publication_date", bounds: { gte: "2020-03-04T00:00:00", lte: "2020-03-04" } }),
    ).toBe(true);
    expect(matches({ kind: "in", field: "publication_date", values: ["2019", "2020-03-04"] })).toBe(true);
  });

  it("reads a stored partial date as its first instant, as OpenSearch does", () => {
    const yearOnly = { chunk_index: 0, doc_id: "y", publication_date: "2018" };
    expect(
      matches({ kind: "range", field: "publication_date", bounds: { gte: "2018-01-01", lte: "2018-01-01" } }, yearOnly),
    ).toBe(true);
    expect(matches({ kind: "range", field: "publication_date", bounds: { gt: "2018-01-01" } }, yearOnly)).toBe(false);
    expect(
      matches(
        { kind: "exists", field: "publication_date" },
        { chunk_index: 0, doc_id: "y", publication_date: "2018-02-30" },
      ),
    ).toBe(false);
  });

  it("compares numbers numerically in ranges", () => {
    expect(matches({ kind: "range", field: "chapter_number", bounds: { gte: 7, lt: 10 } })).toBe(true);
    expect(matches({ kind: "range", field: "chapter_number", bounds: { gt: 7 } })).toBe(false);
    expect(matches({ kind: "range", field: "chapter_number", bounds: { lte: 10 } })).toBe(true);
  });

  it("treats null and empty arrays as absent for exists", () => {
    expect(matches({ kind: "exists", field: "journal" })).toBe(true);
    expect(matches({ kind: "exists", field: "section" })).toBe(false);
    expect(matches({ kind: "exists", field: "keywords" }, { chunk_index: 0, doc_id: "x", keywords: [] })).toBe(false);
    expect(matches({ kind: "exists", field: "missing" })).toBe(false);
  });

  it("combines with and/or/not, with empty and = everything and empty or = nothing", () => {
    expect(matches({ kind: "and", children: [] })).toBe(true);
    expect(matches({ kind: "or", children: [] })).toBe(false);
    expect(matches({ kind: "all" })).toBe(true);
    expect(matches({ kind: "none" })).toBe(false);
    expect(
      matches({
        kind: "and",
        children: [
          { kind: "eq", field: "open_access", value: true },
          {
            kind: "or",
            children: [
              { kind: "eq", field: "journal", value: "Nature" },
              { kind: "eq", field: "issn", value: "0140-6736" },
            ],
          },
        ],
      }),
    ).toBe(true);
  });

  it("rejects a date-field value that is not a calendar date (the parser should have)", () => {
    expect(() => compileToPredicate({ kind: "eq", field: "publication_date", value: "2020-13" })).toThrow(/not a date/);
    expect(parseDatePeriod("2021-02-29")).toBeUndefined();
    expect(parseDatePeriod("2020-02-29")).toEqual({ start: Date.UTC(2020, 1, 29), end: Date.UTC(2020, 2, 1) - 1 });
  });

  it("obeys boolean algebra on arbitrary filters and metadata (not, De Morgan)", () => {
    const leaf: fc.Arbitrary<FilterNode> = fc.oneof(
      fc.record({
        kind: fc.constant("eq" as const),
        field: fc.constantFrom("journal", "issn"),
        value: fc.constantFrom("nature", "cell", "0000-0001"),
      }),
      fc.record({
        kind: fc.constant("exists" as const),
        field: fc.constantFrom("journal", "issn", "publication_date"),
      }),
      fc.record({
        kind: fc.constant("range" as const),
        field: fc.constant("publication_date"),
        bounds: fc.record({ gte: fc.constantFrom("2001", "2005-06", "2010-01-01") }),
      }),
    );
    const filter = fc.letrec<{ node: FilterNode }>((tie) => ({
      node: fc.oneof(
        { depthSize: "small", withCrossShrink: true },
        leaf,
        fc.record({ kind: fc.constant("and" as const), children: fc.array(tie("node"), { maxLength: 3 }) }),
        fc.record({ kind: fc.constant("or" as const), children: fc.array(tie("node"), { maxLength: 3 }) }),
        fc.record({ kind: fc.constant("not" as const), child: tie("node") }),
      ),
    })).node;
    const metadata = fc.record(
      {
        chunk_index: fc.constant(0),
        doc_id: fc.constant("d"),
        journal: fc.constantFrom("Nature", "CELL", null),
        issn: fc.oneof(fc.constant(null), fc.array(fc.constantFrom("0000-0001", "0000-0002"), { maxLength: 2 })),
        publication_date: fc.constantFrom("1999", "2003-04", "2010-01-01", "2010-01-01T12:00:00Z", "bad"),
      },
      { requiredKeys: ["chunk_index", "doc_id"] },
    );
    fc.assert(
      fc.property(filter, filter, metadata, (a, b, meta) => {
        const holds = (node: FilterNode) => compileToPredicate(node)(meta);
        expect(holds({ kind: "not", child: a })).toBe(!holds(a));
        expect(holds({ kind: "not", child: { kind: "and", children: [a, b] } })).toBe(
          holds({
            kind: "or",
            children: [
              { kind: "not", child: a },
              { kind: "not", child: b },
            ],
          }),
        );
        expect(holds({ kind: "or", children: [a, b] })).toBe(holds(a) || holds(b));
      }),
      { numRuns: 300 },
    );
  });

  it("decides `in` over many values as one equality per value does (values folded into sets, dates into spans)", () => {
    const scalar = fc.oneof(
      fc.constantFrom("Cancer", "CANCER", "true", "false", "7", "7.0", "x", "2020", "2020-03", "2021-01-01"),
      fc.boolean(),
      fc.integer({ min: 0, max: 9 }),
    );
    const stored = fc.oneof(scalar, fc.array(scalar, { maxLength: 3 }), fc.constant(null));
    fc.assert(
      fc.property(
        fc.constantFrom("keywords", "chapter_number", "open_access", "publication_date"),
        fc.array(scalar, { minLength: 2, maxLength: 12 }),
        stored,
        (field, values, value) => {
          const datesOk =
            field !== "publication_date" ||
            values.every((v) => typeof v === "string" && /^\d{4}(-\d{2}){0,2}$/.test(v));
          fc.pre(datesOk);
          const metadata = { [field]: value };
          const one = values.some((v) => matches({ kind: "eq", field, value: v }, metadata));
          expect(matches({ kind: "in", field, values }, metadata)).toBe(one);
        },
      ),
      { numRuns: 3000 },
    );
  });

  it("tests a chunk against a 70,000-value `in` list by lookup (the spec allows that many values in a request)", () => {
    const values = Array.from({ length: 70_000 }, (_, i) => `kw${i}`);
    const predicate = compileToPredicate({ kind: "in", field: "keywords", values });
    const dates = compileToPredicate({
      kind: "in",
      field: "publication_date",
      values: Array.from({ length: 70_000 }, (_, i) =>
        new Date(Date.UTC(1900, 0, 1) + i * 86_400_000 * 2).toISOString().slice(0, 10),
      ),
    });
    // 20,000 chunks: one comparison per value each would be 1.4 billion string comparisons (minutes)
    let hits = 0;
    for (let i = 0; i < 20_000; i++) {
      if (predicate({ keywords: [`KW${i * 7}`, "other"] })) hits++;
      if (dates({ publication_date: new Date(Date.UTC(1900, 0, 1) + i * 86_400_000).toISOString().slice(0, 10) }))
        hits++;
    }
    expect(hits).toBe(10_000 + 10_000);
  });
});
