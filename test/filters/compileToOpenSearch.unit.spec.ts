// compileToOpenSearch: the DSL shapes that carry the predicate's semantics (matching is checked against a real node in
// engineParity.int.spec.ts).
import { describe, expect, it } from "vitest";
import { compileToOpenSearch } from "../../src/filters/compileToOpenSearch.js";

describe("compileToOpenSearch", () => {
  it("compiles equality and sets to term and terms on metadata fields", () => {
    expect(compileToOpenSearch({ kind: "eq", field: "issn", value: "0140-6736" })).toEqual({
      term: { "metadata.issn": "0140-6736" },
    });
    expect(compileToOpenSearch({ kind: "in", field: "journal", values: ["Nature", "Cell"] })).toEqual({
      terms: { "metadata.journal": ["Nature", "Cell"] },
    });
    expect(compileToOpenSearch({ kind: "in", field: "journal", values: [] })).toEqual({ match_none: {} });
  });

  it("compiles date values to epoch-millisecond ranges covering their period", () => {
    expect(compileToOpenSearch({ kind: "eq", field: "publication_date", value: "2020" })).toEqual({
      range: {
        "metadata.publication_date": {
          gte: Date.UTC(2020, 0, 1),
          lte: Date.UTC(2021, 0, 1) - 1,
          format: "epoch_millis",
        },
      },
    });
    expect(
      compileToOpenSearch({ kind: "range", field: "publication_date", bounds: { gt: "2020-05", lt: "2021" } }),
    ).toEqual({
      range: {
        "metadata.publication_date": { gt: Date.UTC(2020, 5, 1) - 1, lt: Date.UTC(2021, 0, 1), format: "epoch_millis" },
      },
    });
    expect(compileToOpenSearch({ kind: "range", field: "chapter_number", bounds: { gte: 2 } })).toEqual({
      range: { "metadata.chapter_number": { gte: 2 } },
    });
  });

  it("compiles logic so that empty or matches nothing and not keeps documents without the field", () => {
    expect(compileToOpenSearch({ kind: "or", children: [] })).toEqual({ match_none: {} });
    expect(compileToOpenSearch({ kind: "and", children: [] })).toEqual({ match_all: {} });
    expect(compileToOpenSearch({ kind: "not", child: { kind: "exists", field: "doi" } })).toEqual({
      bool: { must_not: [{ exists: { field: "metadata.doi" } }] },
    });
    expect(compileToOpenSearch({ kind: "or", children: [{ kind: "all" }, { kind: "none" }] })).toEqual({
      bool: { should: [{ match_all: {} }, { match_none: {} }], minimum_should_match: 1 },
    });
  });
});
