// Journal metric filters: the spec's eight rules, on hand-made tables and on a generated full-size one (80,000
// journals).
import { beforeAll, describe, expect, it } from "vitest";
import { compileToPredicate } from "../../src/filters/compileToPredicate.js";
import { compileFilterForCollections, FilterError, type CollectionFilterProfile } from "../../src/filters/parse.js";
import { computeBounds, DEFAULT_METRIC_BOUNDS } from "../../src/journals/bounds.js";
import { JournalMetricIndex } from "../../src/journals/metricIndex.js";
import { fullSizeJournals, HIGH_GROUP, journal, syntheticIssn } from "../journals/syntheticJournals.js";

const collection: CollectionFilterProfile = {
  name: "pubmed",
  editorial: false,
  openAccessOnly: false,
  scanFilterable: true,
  isMetaMember: false,
};

/** A small table: journals scored 0, a journal without impact_factor, one without any metric. */
const small = new JournalMetricIndex([
  journal({
    issns: ["0001-0001", "0001-000X"],
    h_index: 120,
    i10_index: 900,
    two_yr_mean_citedness: 5.2,
    impact_factor: 6.1,
  }),
  journal({ issns: ["0002-0002"], h_index: 40, i10_index: 170, two_yr_mean_citedness: 1.1, impact_factor: 0.9 }),
  journal({ issns: ["0003-0003"], h_index: 3, i10_index: 0, two_yr_mean_citedness: 0, impact_factor: 0.2 }),
  journal({ issns: ["0004-0004"], h_index: 0, i10_index: 0, two_yr_mean_citedness: 0, impact_factor: null }),
  journal({ issns: ["0005-0005"], h_index: null, i10_index: null, two_yr_mean_citedness: null, impact_factor: null }),
]);

function compile(filter: unknown, journals: JournalMetricIndex = small) {
  return compileFilterForCollections(filter, [collection], { journals });
}

function issnsSelected(filter: unknown, journals: JournalMetricIndex = small): string[] {
  const plan = compile(filter, journals).collections[0];
  if (plan.outcome !== "search") throw new Error("skipped");
  const ast = plan.ast;
  if (ast.kind === "none") return [];
  if (ast.kind !== "in" || ast.field !== "issn") throw new Error(`unexpected AST ${JSON.stringify(ast)}`);
  return [...(ast.values as string[])].sort();
}

function rejectionOf(filter: unknown, journals: JournalMetricIndex = small): FilterError {
  try {
    compile(filter, journals);
  } catch (error) {
    expect(error).toBeInstanceOf(FilterError);
    return error as FilterError;
  }
  throw new Error(`filter was accepted: ${JSON.stringify(filter)}`);
}

describe("rule 2: one-ended thresholds within the bounds table (the spec's, kept as data)", () => {
  it("the default table is the spec's", () => {
    expect(DEFAULT_METRIC_BOUNDS.bounds).toEqual({
      "journal_metric.2yr_mean_citedness": { minGte: 1.1, maxLte: 0 },
      "journal_metric.h_index": { minGte: 35, maxLte: 3 },
      "journal_metric.i10_index": { minGte: 160, maxLte: null },
      "journal_metric.impact_factor": { minGte: 0.9, maxLte: 0.2 },
    });
  });

  const accepted: Array<[string, number | null, number | null]> = [
    ["journal_metric.2yr_mean_citedness", 1.1, 0],
    ["journal_metric.h_index", 35, 3],
    ["journal_metric.i10_index", 160, null],
    ["journal_metric.impact_factor", 0.9, 0.2],
  ];
  it.each(accepted)("%s: gte at the bound and lte at the bound are accepted", (field, minGte, maxLte) => {
    expect(() => compile({ [field]: { gte: minGte } })).not.toThrow();
    expect(() => compile({ [field]: { gte: (minGte as number) * 10 } })).not.toThrow();
    if (maxLte !== null) expect(() => compile({ [field]: { lte: maxLte } })).not.toThrow();
  });

  const rejected: Array<[string, string, number, number, number | null]> = [
    ["journal_metric.2yr_mean_citedness", "gte", 1.0, 1.1, 0],
    ["journal_metric.2yr_mean_citedness", "lte", 0.1, 1.1, 0],
    ["journal_metric.h_index", "gte", 34, 35, 3],
    ["journal_metric.h_index", "lte", 4, 35, 3],
    ["journal_metric.i10_index", "gte", 159, 160, null],
    ["journal_metric.i10_index", "lte", 0, 160, null],
    ["journal_metric.impact_factor", "gte", 0.8, 0.9, 0.2],
    ["journal_metric.impact_factor", "lte", 0.3, 0.9, 0.2],
  ];
  it.each(rejected)(
    "%s %s %s is rejected naming field, value and bound, with min_gte and max_lte",
    (field, operator, value, minGte, maxLte) => {
      const error = rejectionOf({ field, [operator]: value });
      expect(error.details).toMatchObject({
        field,
        min_gte: minGte,
        max_lte: maxLte,
        filter: { field, [operator]: value },
      });
      expect(error.message).toContain(field);
      expect(error.message).toContain(`${operator} ${value}`);
      expect(error.message).toContain(String(minGte));
    },
  );

  it("a bounds table given in the context replaces the default", () => {
    const bounds = {
      ...DEFAULT_METRIC_BOUNDS,
      bounds: { ...DEFAULT_METRIC_BOUNDS.bounds, "journal_metric.h_index": { minGte: 50, maxLte: 1 } },
    };
    const run = (filter: unknown) => compileFilterForCollections(filter, [collection], { journals: small, bounds });
    expect(() => run({ "journal_metric.h_index": { gte: 40 } })).toThrow(FilterError);
    expect(() => run({ "journal_metric.h_index": { gte: 50 } })).not.toThrow();
    expect(() => run({ "journal_metric.h_index": { lte: 3 } })).toThrow(FilterError);
  });
});

describe("rule 3: gt/lt are held to the same bounds by what they select", () => {
  it.each([
    ["journal_metric.h_index", { gt: 34 }, true],
    ["journal_metric.h_index", { gt: 33 }, false],
    ["journal_metric.h_index", { gt: 34.5 }, true],
    ["journal_metric.h_index", { gte: 34.5 }, true],
    ["journal_metric.h_index", { gte: 34.4 }, true],
    ["journal_metric.h_index", { lt: 4 }, true],
    ["journal_metric.h_index", { lt: 5 }, false],
    ["journal_metric.h_index", { lte: 3.9 }, true],
    ["journal_metric.i10_index", { gt: 159 }, true],
    ["journal_metric.i10_index", { gt: 158 }, false],
    ["journal_metric.i10_index", { lt: 1 }, false],
    ["journal_metric.2yr_mean_citedness", { gt: 1.1 }, true],
    ["journal_metric.2yr_mean_citedness", { gt: 1.0 }, false],
    ["journal_metric.2yr_mean_citedness", { gt: 1.09 }, false],
    ["journal_metric.2yr_mean_citedness", { lt: 0.0 }, true],
    ["journal_metric.impact_factor", { gt: 0.9 }, true],
    ["journal_metric.impact_factor", { gt: 0.8 }, false],
    ["journal_metric.impact_factor", { lt: 0.2 }, true],
    ["journal_metric.impact_factor", { lt: 0.21 }, false],
    ["journal_metric.h_index", { gt: 10, gte: 35 }, true],
  ])("%s %j accepted: %s", (field, bounds, ok) => {
    const run = () => compile({ field, ...bounds });
    if (ok) expect(run).not.toThrow();
    else expect(rejectionOf({ field, ...bounds }).details.field).toBe(field);
  });
  it("gt on an integer metric selects like gte N+1", () => {
    expect(issnsSelected({ "journal_metric.h_index": { gt: 39 } })).toEqual(
      issnsSelected({ "journal_metric.h_index": { gte: 40 } }),
    );
    expect(issnsSelected({ "journal_metric.h_index": { gt: 40 } })).toEqual(["0001-0001", "0001-000X"]);
  });
});

describe("rule 4: two-ended ranges are accepted anywhere within the ISSN cap", () => {
  it.each([
    [{ field: "journal_metric.h_index", between: [1, 10] }],
    [{ field: "journal_metric.h_index", gte: 1, lte: 10 }],
    [{ field: "journal_metric.i10_index", gt: 0, lt: 5 }],
    [{ "journal_metric.2yr_mean_citedness": { gte: 0.1, lte: 0.5 } }],
    [{ field: "journal_metric.impact_factor", between: [0.3, 0.5] }],
  ])("%j", (filter) => {
    expect(() => compile(filter)).not.toThrow();
  });
});

describe("rule 5: not keeps documents with no ISSN, no metric, or no impact factor", () => {
  it("not(gte X) compiles to not(in issn) and keeps what the condition did not select", () => {
    const plan = compile({ not: [{ field: "journal_metric.impact_factor", gte: 1 }] }).collections[0];
    expect(plan).toMatchObject({
      outcome: "search",
      ast: { kind: "not", child: { kind: "in", field: "issn", values: ["0001-0001", "0001-000X"] } },
    });
    if (plan.outcome !== "search") return;
    const keeps = compileToPredicate(plan.ast);
    const doc = (issn: string[] | null) => ({ chunk_index: 0, doc_id: "d", issn });
    expect(keeps(doc(null))).toBe(true); // no ISSN
    expect(keeps(doc(["0005-0005"]))).toBe(true); // journal without any metric
    expect(keeps(doc(["0004-0004"]))).toBe(true); // journal without impact_factor
    expect(keeps(doc(["9999-9999"]))).toBe(true); // journal not in the table
    expect(keeps(doc(["0001-000X"]))).toBe(false);
  });
  it("simple-format not", () => {
    const plan = compile({ "journal_metric.h_index": { not: { gte: 100 } } }).collections[0];
    expect(plan).toMatchObject({ ast: { kind: "not", child: { kind: "in", field: "issn" } } });
  });
});

describe("rule 6: a condition matching no journal warns", () => {
  it("gives journal_metric_matched_nothing and selects nothing (everything under not)", () => {
    const compiled = compile({ field: "journal_metric.h_index", between: [5000, 6000] });
    expect(compiled.warnings).toEqual([
      expect.objectContaining({ code: "journal_metric_matched_nothing", field: "journal_metric.h_index" }),
    ]);
    expect(compiled.collections[0]).toMatchObject({ outcome: "search", ast: { kind: "none" } });
    expect(compiled.expansions).toEqual([
      {
        field: "journal_metric.h_index",
        condition: "between 5000 and 6000",
        matchedJournals: 0,
        issnCount: 0,
        sampleIssns: [],
      },
    ]);
    expect(compile({ not: [{ field: "journal_metric.h_index", gte: 5000 }] }).collections[0]).toMatchObject({
      ast: { kind: "all" },
    });
  });
});

describe("rule 8: lt/lte include journals scored 0; no impact_factor matches no threshold", () => {
  it("lte includes zeros", () => {
    expect(issnsSelected({ "journal_metric.h_index": { lte: 3 } })).toEqual(["0003-0003", "0004-0004"]);
    expect(issnsSelected({ "journal_metric.2yr_mean_citedness": { lte: 0 } })).toEqual(["0003-0003", "0004-0004"]);
  });
  it("a journal without impact_factor (or without any metric) matches no threshold", () => {
    expect(issnsSelected({ field: "journal_metric.impact_factor", between: [0, 1000] })).toEqual([
      "0001-0001",
      "0001-000X",
      "0002-0002",
      "0003-0003",
    ]);
    expect(issnsSelected({ "journal_metric.impact_factor": { lte: 0.2 } })).toEqual(["0003-0003"]);
    expect(issnsSelected({ field: "journal_metric.h_index", between: [0, 1000] })).not.toContain("0005-0005");
  });
});

describe("expansions", () => {
  it("report field, condition, matched journals, ISSN count and at most five sample ISSNs", () => {
    const many = new JournalMetricIndex(
      Array.from({ length: 10 }, (_, n) =>
        journal({ issns: [syntheticIssn(2 * n), syntheticIssn(2 * n + 1)], h_index: 100 + n }),
      ),
    );
    const compiled = compile(
      {
        and: [
          { field: "journal_metric.h_index", gte: 105 },
          { field: "journal_metric.h_index", gt: 1, lte: 101 },
        ],
      },
      many,
    );
    expect(compiled.expansions).toEqual([
      {
        field: "journal_metric.h_index",
        condition: "gte 105",
        matchedJournals: 5,
        issnCount: 10,
        sampleIssns: expect.any(Array),
      },
      {
        field: "journal_metric.h_index",
        condition: "gt 1, lte 101",
        matchedJournals: 2,
        issnCount: 4,
        sampleIssns: ["0000-0002", "0000-0003", "0000-0000", "0000-0001"],
      },
    ]);
    expect(compiled.expansions[0].sampleIssns).toHaveLength(5);
    expect(compiled.expansions[0].sampleIssns[0]).toBe("0000-0018"); // highest metric first
    expect(compile({ "journal_metric.2yr_mean_citedness": { gte: 2 } }).expansions[0].condition).toBe("gte 2.0");
  });
});

describe("rule 1 and rule 4 at full size (80,000 generated journals)", () => {
  let full: JournalMetricIndex;
  beforeAll(() => {
    full = new JournalMetricIndex(fullSizeJournals());
  });

  it("computeBounds on the generated snapshot gives back the spec's table", () => {
    expect(computeBounds(fullSizeJournals()).bounds).toEqual(DEFAULT_METRIC_BOUNDS.bounds);
  });

  it("a one-ended condition at its bound expands to exactly 35,000 ISSNs and is accepted", () => {
    const compiled = compile({ "journal_metric.h_index": { gte: 35 } }, full);
    expect(compiled.expansions[0]).toMatchObject({ matchedJournals: HIGH_GROUP, issnCount: 35_000 });
  });

  it("a two-ended range matching more than 35,000 ISSNs is rejected naming the limit", () => {
    const error = rejectionOf({ field: "journal_metric.h_index", between: [0, 40] }, full);
    expect(error.details).toMatchObject({
      field: "journal_metric.h_index",
      min_gte: 35,
      max_lte: 3,
      limit: { name: "issns_per_metric_condition", max: 35_000 },
    });
    expect(error.message).toMatch(/at most 35000 ISSNs/);
  });

  it("a one-ended condition within the bound table but over the cap (a stale table) is still rejected", () => {
    const error = rejectionOf(
      { "journal_metric.i10_index": { gte: 160 } },
      new JournalMetricIndex([
        ...fullSizeJournals(),
        ...Array.from({ length: 10 }, (_, n) => journal({ issns: [syntheticIssn(90_000 + n)], i10_index: 500 })),
      ]),
    );
    expect(error.details.limit?.name).toBe("issns_per_metric_condition");
  });

  it("70,000 values per request: two conditions at their caps fit exactly; one more list value does not", () => {
    const twoAtCap = {
      and: [
        { field: "journal_metric.h_index", gte: 35 },
        { field: "journal_metric.impact_factor", gte: 0.9 },
      ],
    };
    expect(compile(twoAtCap, full).expansions.map((expansion) => expansion.issnCount)).toEqual([35_000, 35_000]);
    const over = { and: [...twoAtCap.and, { field: "issn", not_in: ["1234-5679"] }] };
    const error = rejectionOf(over, full);
    expect(error.details.limit).toEqual({ name: "filter_values_per_request", max: 70_000, actual: 70_001 });
    expect(error.message).toMatch(/at most 70000/);
  });

  it("70,000 values per request: in/not_in lists count, simple-format arrays included", () => {
    const list = Array.from({ length: 35_001 }, (_, n) => syntheticIssn(n));
    const error = rejectionOf({ issn: list, "journal_metric.h_index": { gte: 35 } }, full);
    expect(error.details.limit?.name).toBe("filter_values_per_request");
    expect(() => compile({ issn: list.slice(0, 35_000), "journal_metric.h_index": { gte: 35 } }, full)).not.toThrow();
    expect(() =>
      compile({ field: "issn", in: Array.from({ length: 70_001 }, (_, n) => syntheticIssn(n)) }, full),
    ).toThrow(FilterError);
  });

  it("at most 8 journal_metric conditions per filter", () => {
    const condition = { field: "journal_metric.h_index", between: [100, 101] };
    expect(() => compile({ and: Array.from({ length: 8 }, () => condition) }, full)).not.toThrow();
    const error = rejectionOf({ and: Array.from({ length: 9 }, () => condition) }, full);
    expect(error.details.limit).toEqual({ name: "metric_conditions_per_filter", max: 8, actual: 9 });
    expect(error.message).toMatch(/at most 8/);
  });
});
