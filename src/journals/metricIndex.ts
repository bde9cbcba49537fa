// Answers "which journals, and which ISSNs, have this metric within this interval" over a journals table.
import type { JournalRecord } from "./table.js";
import { METRICS, METRIC_FIELDS, type MetricField } from "./metricFields.js";

interface MetricEnd {
  value: number;
  inclusive: boolean;
}

/** A set of metric values; an absent end is unbounded on that side. */
export interface MetricInterval {
  lower?: MetricEnd;
  upper?: MetricEnd;
}

interface MetricMatch {
  matchedJournals: number;
  /** distinct ISSNs of the matched journals, highest metric first */
  issns: string[];
}

interface ScoredJournal {
  value: number;
  issns: string[];
}

function intervalContains(interval: MetricInterval, value: number): boolean {
  const { lower, upper } = interval;
  if (lower && (lower.inclusive ? value < lower.value : value <= lower.value)) return false;
  if (upper && (upper.inclusive ? value > upper.value : value >= upper.value)) return false;
  return true;
}

/**
 * Built once per loaded table. Journals without a value for a metric (no citation data, or
 * impact_factor withheld) are not in that metric's list, so they match no threshold.
 */
export class JournalMetricIndex {
  readonly journalCount: number;
  private readonly scoredByField: Map<MetricField, ScoredJournal[]>;

  constructor(journals: readonly JournalRecord[]) {
    this.journalCount = journals.length;
    this.scoredByField = new Map();
    for (const field of METRIC_FIELDS) {
      const key = METRICS[field].key;
      const scored: ScoredJournal[] = [];
      for (const journal of journals) {
        const value = journal[key];
        if (typeof value === "number" && Number.isFinite(value) && journal.issns.length > 0) {
          scored.push({ value, issns: journal.issns });
        }
      }
      scored.sort((a, b) => b.value - a.value);
      this.scoredByField.set(field, scored);
    }
  }

  static empty(): JournalMetricIndex {
    return new JournalMetricIndex([]);
  }

  match(field: MetricField, interval: MetricInterval): MetricMatch {
    const issns = new Set<string>();
    let matchedJournals = 0;
    for (const journal of this.scoredByField.get(field) ?? []) {
      if (!intervalContains(interval, journal.value)) continue;
      matchedJournals += 1;
      for (const issn of journal.issns) issns.add(issn);
    }
    return { matchedJournals, issns: [...issns] };
  }

  /** metric values with their ISSN counts, highest first (what a bounds computation needs) */
  scored(field: MetricField): ReadonlyArray<{ value: number; issnCount: number }> {
    return (this.scoredByField.get(field) ?? []).map((journal) => ({
      value: journal.value,
      issnCount: journal.issns.length,
    }));
  }
}
