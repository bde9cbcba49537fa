// Property tests of the filter parser: malformed filters always give a FilterError, junk never anything else, valid
// filters pass.
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { compileFilterForCollections, FilterError, type CollectionFilterProfile } from "../../src/filters/parse.js";
import { JournalMetricIndex } from "../../src/journals/metricIndex.js";
import { journal, syntheticIssn } from "../journals/syntheticJournals.js";
import {
  metricConditionCount,
  nearMiss,
  simpleWithDefect,
  structuredWithDefect,
  validTree,
} from "./malformedFilterArbitraries.js";

const profiles: CollectionFilterProfile[] = [
  { name: "pubmed", editorial: false, openAccessOnly: false, scanFilterable: true, isMetaMember: false },
  { name: "plos", editorial: false, openAccessOnly: true, scanFilterable: true, isMetaMember: false },
];
const journals = new JournalMetricIndex(
  Array.from({ length: 500 }, (_, n) =>
    journal({
      issns: [syntheticIssn(n)],
      h_index: n % 120,
      i10_index: n,
      two_yr_mean_citedness: (n % 50) / 10,
      impact_factor: n % 3 === 0 ? null : (n % 40) / 10,
    }),
  ),
);

function compile(filter: unknown) {
  return compileFilterForCollections(filter, profiles, { journals });
}

function expectFilterError(filter: unknown): void {
  let thrown: unknown;
  try {
    compile(filter);
  } catch (error) {
    thrown = error;
  }
  if (!(thrown instanceof FilterError)) {
    throw new Error(
      `expected a FilterError for ${safeJson(filter)}, got ${thrown === undefined ? "acceptance" : String(thrown)}`,
    );
  }
  // the spec: the message names the field and lists the indexed fields
  expect(thrown.message).toContain("Indexed fields:");
  if (thrown.field !== undefined) expect(thrown.message).toContain(thrown.field);
}

function expectNothingButFilterError(filter: unknown): void {
  try {
    compile(filter);
  } catch (error) {
    if (!(error instanceof FilterError)) throw error;
    expect(error.message).toContain("Indexed fields:");
    if (error.field !== undefined) expect(error.message).toContain(error.field);
  }
}

function safeJson(value: unknown): string {
  try {
    return JSON.stringify(value)?.slice(0, 300) ?? String(value);
  } catch {
    return String(value);
  }
}

describe("fuzz: malformed filters", () => {
  it("a structured filter with one defect anywhere always gives a FilterError", () => {
    fc.assert(fc.property(structuredWithDefect, expectFilterError), { numRuns: 3000 });
  });
  it("a simple filter with one defect always gives a FilterError", () => {
    fc.assert(fc.property(simpleWithDefect, expectFilterError), { numRuns: 2000 });
  });
});

describe("fuzz: arbitrary input never raises anything but a FilterError", () => {
  it("JSON values", () => {
    fc.assert(fc.property(fc.jsonValue(), expectNothingButFilterError), { numRuns: 2000 });
  });
  it("any JavaScript value", () => {
    fc.assert(
      fc.property(
        fc.anything({
          withBigInt: true,
          withMap: true,
          withSet: true,
          withDate: true,
          withTypedArray: true,
          withNullPrototype: true,
        }),
        expectNothingButFilterError,
      ),
      {
        numRuns: 2000,
      },
    );
  });
  it("objects built from the filter vocabulary", () => {
    fc.assert(fc.property(nearMiss, expectNothingButFilterError), { numRuns: 5000 });
  });
});

describe("fuzz: valid filters", () => {
  it("are accepted on every collection", () => {
    fc.assert(
      fc.property(
        validTree.filter((tree) => metricConditionCount(tree) <= 8),
        (tree) => {
          const compiled = compile(tree);
          expect(compiled.collections).toHaveLength(2);
        },
      ),
      { numRuns: 1000 },
    );
  });
});
