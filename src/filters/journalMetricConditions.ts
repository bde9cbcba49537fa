// Journal metric conditions: bound and limit checks, then expansion to the ISSNs they select.
import type { FilterNode } from "./ast.js";
import { FilterError } from "./errors.js";
import { indexedFieldsSentence } from "./fields.js";
import {
  MAX_FILTER_VALUES_PER_REQUEST,
  MAX_ISSNS_PER_METRIC_CONDITION,
  MAX_METRIC_CONDITIONS_PER_FILTER,
} from "./limits.js";
import type { MetricTest } from "./syntax.js";
import { metricMatchedNothingWarning, type FilterWarning } from "./warnings.js";
import type { MetricBound, MetricBoundsTable } from "../journals/bounds.js";
import { METRICS, type MetricField } from "../journals/metricFields.js";
import type { JournalMetricIndex, MetricInterval } from "../journals/metricIndex.js";

/** One entry of `journalMetricExpansions`. */
export interface JournalMetricExpansion {
  field: MetricField;
  condition: string;
  matchedJournals: number;
  issnCount: number;
  sampleIssns: string[];
  /** what the journals table's metrics were computed from (added by the service's planner) */
  metricsBasis?: string;
}

interface ExpandedMetricConditions {
  /** the AST each metric condition stands for: `in` on issn, or `none` when it matched no journal */
  nodes: Map<MetricTest, FilterNode>;
  expansions: JournalMetricExpansion[];
  warnings: FilterWarning[];
}

const SAMPLE_ISSNS = 5;
const TOLERANCE = 1e-9;

/**
 * Checks every metric condition and resolves it against the journals table.
 * `listValueCount` is the in/not_in values of the rest of the filter, counted toward the request limit.
 */
export function expandMetricConditions(
  tests: readonly MetricTest[],
  listValueCount: number,
  journals: JournalMetricIndex,
  boundsTable: MetricBoundsTable,
): ExpandedMetricConditions {
  if (tests.length > MAX_METRIC_CONDITIONS_PER_FILTER) {
    throw new FilterError(
      `The filter has ${tests.length} journal_metric conditions (on ` +
        `${[...new Set(tests.map((test) => test.field))].join(", ")}); ` +
        `at most ${MAX_METRIC_CONDITIONS_PER_FILTER} are allowed ` +
        `per filter (put both bounds of one metric in one condition). ${indexedFieldsSentence()}`,
      {
        field: tests[0].field,
        filter: tests.map((test) => test.source),
        limit: { name: "metric_conditions_per_filter", max: MAX_METRIC_CONDITIONS_PER_FILTER, actual: tests.length },
      },
    );
  }
  const nodes = new Map<MetricTest, FilterNode>();
  const expansions: JournalMetricExpansion[] = [];
  const warnings: FilterWarning[] = [];
  let totalValues = listValueCount;
  for (const test of tests) {
    const bound = boundsTable.bounds[test.field];
    const interval = intervalOf(test);
    checkOneEndedBound(test, interval, bound);
    const match = journals.match(test.field, interval);
    if (match.issns.length > MAX_ISSNS_PER_METRIC_CONDITION) {
      throw new FilterError(
        `${test.field} ${test.condition} matches ${match.issns.length} ISSNs (${match.matchedJournals} journals); ` +
          (`one journal_metric condition may expand to at most ${MAX_ISSNS_PER_METRIC_CONDITION} ISSNs. Narrow ` +
            "the range. ") +
          indexedFieldsSentence(),
        {
          field: test.field,
          filter: test.source,
          min_gte: bound.minGte,
          max_lte: bound.maxLte,
          limit: {
            name: "issns_per_metric_condition",
            max: MAX_ISSNS_PER_METRIC_CONDITION,
            actual: match.issns.length,
          },
        },
      );
    }
    totalValues += match.issns.length;
    expansions.push({
      field: test.field,
      condition: test.condition,
      matchedJournals: match.matchedJournals,
      issnCount: match.issns.length,
      sampleIssns: match.issns.slice(0, SAMPLE_ISSNS),
    });
    if (match.matchedJournals === 0) {
      warnings.push(metricMatchedNothingWarning(test.field, test.condition));
      nodes.set(test, { kind: "none" });
    } else {
      nodes.set(test, { kind: "in", field: "issn", values: match.issns });
    }
  }
  if (totalValues > MAX_FILTER_VALUES_PER_REQUEST) {
    throw new FilterError(
      `The filter carries ${totalValues} values (journal metric expansions` +
        `${tests.length > 0 ? ` of ${[...new Set(tests.map((test) => test.field))].join(", ")}` : ""}: ` +
        `${totalValues - listValueCount}, ` +
        `in/not_in lists: ${listValueCount}); a request may hold at most ${MAX_FILTER_VALUES_PER_REQUEST}. ` +
        `Narrow a metric range or shorten a list. ${indexedFieldsSentence()}`,
      {
        field: tests[0]?.field,
        limit: { name: "filter_values_per_request", max: MAX_FILTER_VALUES_PER_REQUEST, actual: totalValues },
      },
    );
  }
  return { nodes, expansions, warnings };
}

/** The narrowest interval the condition's bounds describe (gt beats gte at the same value). */
function intervalOf(test: MetricTest): MetricInterval {
  const { gt, gte, lt, lte } = test.bounds;
  const interval: MetricInterval = {};
  if (gt !== undefined || gte !== undefined) {
    interval.lower =
      gt !== undefined && (gte === undefined || gt >= gte)
        ? { value: gt, inclusive: false }
        : { value: gte as number, inclusive: true };
  }
  if (lt !== undefined || lte !== undefined) {
    interval.upper =
      lt !== undefined && (lte === undefined || lt <= lte)
        ? { value: lt, inclusive: false }
        : { value: lte as number, inclusive: true };
  }
  return interval;
}

/**
 * Rules 2 and 3: a threshold with one end must select no more than its bound selects.
 * On integer metrics gt N selects gte N+1 and lt N selects lte N-1 (and gte 34.5 selects gte 35);
 * on continuous metrics gt x stays within gte b exactly when x >= b, lt x within lte b when x <= b.
 */
function checkOneEndedBound(test: MetricTest, interval: MetricInterval, bound: MetricBound): void {
  const { lower, upper } = interval;
  if (lower && upper) return;
  const integer = METRICS[test.field].integer;
  if (lower) {
    const selectedFrom = integer
      ? lower.inclusive
        ? Math.ceil(lower.value - TOLERANCE)
        : Math.floor(lower.value + TOLERANCE) + 1
      : lower.value;
    if (selectedFrom >= bound.minGte - TOLERANCE) return;
    throwOutOfBound(test, `a lower threshold alone must be at least gte ${bound.minGte}`, bound);
  }
  if (upper) {
    if (bound.maxLte === null) {
      throwOutOfBound(test, "an upper threshold alone is not accepted on this metric (add a lower end)", bound);
    }
    const selectedTo = integer
      ? upper.inclusive
        ? Math.floor(upper.value + TOLERANCE)
        : Math.ceil(upper.value - TOLERANCE) - 1
      : upper.value;
    if (selectedTo <= bound.maxLte + TOLERANCE) return;
    throwOutOfBound(test, `an upper threshold alone must be at most lte ${bound.maxLte}`, bound);
  }
}

function throwOutOfBound(test: MetricTest, rule: string, bound: MetricBound): never {
  const below = `for "below X" use not with gte X, X at least ${bound.minGte}`;
  throw new FilterError(
    `${test.field} ${test.condition} is out of bounds: ${rule} ` +
      `(lowest gte alone: ${bound.minGte}; highest lte alone: ${bound.maxLte === null ? "none" : bound.maxLte}). ` +
      (`Add the other end to make a two-ended range (accepted anywhere up to ${MAX_ISSNS_PER_METRIC_CONDITION} ` +
        `ISSNs), or ${below}. `) +
      indexedFieldsSentence(),
    { field: test.field, filter: test.source, min_gte: bound.minGte, max_lte: bound.maxLte },
  );
}
