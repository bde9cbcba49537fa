// The four journal metrics: their filter field names, their keys in the journals table and how their values step.

export const METRIC_FIELDS = [
  "journal_metric.2yr_mean_citedness",
  "journal_metric.h_index",
  "journal_metric.i10_index",
  "journal_metric.impact_factor",
] as const;

export type MetricField = (typeof METRIC_FIELDS)[number];

type JournalMetricKey = "two_yr_mean_citedness" | "h_index" | "i10_index" | "impact_factor";

interface MetricDescription {
  key: JournalMetricKey;
  /** h_index and i10_index take whole values, so `gt N` selects what `gte N+1` selects */
  integer: boolean;
  /** spacing of the thresholds a bounds table is stated in */
  boundStep: number;
}

export const METRICS: Record<MetricField, MetricDescription> = {
  "journal_metric.2yr_mean_citedness": { key: "two_yr_mean_citedness", integer: false, boundStep: 0.1 },
  "journal_metric.h_index": { key: "h_index", integer: true, boundStep: 1 },
  "journal_metric.i10_index": { key: "i10_index", integer: true, boundStep: 1 },
  "journal_metric.impact_factor": { key: "impact_factor", integer: false, boundStep: 0.1 },
};

export function isMetricField(name: string): name is MetricField {
  return (METRIC_FIELDS as readonly string[]).includes(name);
}
