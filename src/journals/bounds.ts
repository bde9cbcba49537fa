// One-ended threshold bounds of the journal metric filters: the default table (the spec's) and its recomputation from a
// snapshot.
import { readFile, writeFile, mkdir } from "node:fs/promises";
import { dirname } from "node:path";
import specBounds from "./bounds.json" with { type: "json" };
import { METRICS, METRIC_FIELDS, isMetricField, type MetricField } from "./metricFields.js";
import { JournalMetricIndex } from "./metricIndex.js";
import { readJournalTable, type JournalRecord, type JournalTable } from "./table.js";

export interface MetricBound {
  /** lowest `gte` accepted without an upper end */
  minGte: number;
  /** highest `lte` accepted without a lower end; null: an upper end alone is never accepted */
  maxLte: number | null;
}

export interface MetricBoundsTable {
  derivedFrom: string;
  /** the per-condition ISSN cap the bounds were derived for (the spec's 35,000) */
  maxIssnsPerCondition: number;
  bounds: Record<MetricField, MetricBound>;
}

export const MAX_ISSNS_PER_METRIC_CONDITION = 35_000;

function parseMetricBoundsTable(value: unknown): MetricBoundsTable {
  if (typeof value !== "object" || value === null) throw new Error("metric bounds: not an object");
  const record = value as Record<string, unknown>;
  const bounds = record.bounds;
  if (typeof bounds !== "object" || bounds === null) throw new Error('metric bounds: "bounds" missing');
  const parsed = {} as Record<MetricField, MetricBound>;
  for (const field of METRIC_FIELDS) {
    const entry = (bounds as Record<string, unknown>)[field] as Record<string, unknown> | undefined;
    if (!entry || typeof entry.minGte !== "number" || !(entry.maxLte === null || typeof entry.maxLte === "number")) {
      throw new Error(`metric bounds: bad or missing entry for ${field}`);
    }
    parsed[field] = { minGte: entry.minGte, maxLte: entry.maxLte };
  }
  for (const key of Object.keys(bounds)) {
    if (!isMetricField(key)) throw new Error(`metric bounds: unknown metric ${key}`);
  }
  return {
    derivedFrom: typeof record.derivedFrom === "string" ? record.derivedFrom : "unknown",
    maxIssnsPerCondition:
      typeof record.maxIssnsPerCondition === "number" ? record.maxIssnsPerCondition : MAX_ISSNS_PER_METRIC_CONDITION,
    bounds: parsed,
  };
}

/** The spec's table, kept as data in bounds.json. */
export const DEFAULT_METRIC_BOUNDS: MetricBoundsTable = parseMetricBoundsTable(specBounds);

function roundToStep(units: number, step: number): number {
  return Math.round(units * step * 1e6) / 1e6;
}

/**
 * The rule: a one-ended threshold is allowed when what it selects can never exceed the per-condition
 * ISSN cap on this snapshot. On the grid the spec states its table in (whole numbers for h_index and
 * i10_index, tenths for citedness and impact factor), starting at 0:
 *  - minGte is the smallest grid value t with ISSNs(metric >= t) <= cap;
 *  - maxLte is the largest grid value t with ISSNs(metric <= t) <= cap, or null when even
 *    ISSNs(metric <= 0) exceeds the cap (i10_index on a full OpenAlex snapshot: "add a lower end").
 * Journals without a value for the metric are not counted (they match no threshold).
 * On a snapshot smaller than the cap every threshold passes: minGte 0 and maxLte the highest value.
 */
export function computeBounds(
  journals: readonly JournalRecord[],
  options: { maxIssnsPerCondition?: number; derivedFrom?: string } = {},
): MetricBoundsTable {
  const cap = options.maxIssnsPerCondition ?? MAX_ISSNS_PER_METRIC_CONDITION;
  const index = new JournalMetricIndex(journals);
  const bounds = {} as Record<MetricField, MetricBound>;
  for (const field of METRIC_FIELDS) {
    const step = METRICS[field].boundStep;
    const ascending = [...index.scored(field)].sort((a, b) => a.value - b.value);
    const values = ascending.map((entry) => entry.value);
    // prefix[i] = ISSNs of the i lowest-valued journals
    const prefix = [0];
    for (const entry of ascending) prefix.push(prefix[prefix.length - 1] + entry.issnCount);
    const total = prefix[prefix.length - 1];
    const tolerance = step * 1e-6;
    const countBelow = (threshold: number): number => prefix[lowerIndex(values, threshold - tolerance)];
    const countAtMost = (threshold: number): number => prefix[lowerIndex(values, threshold + tolerance)];
    const issnsAtLeast = (units: number): number => total - countBelow(units * step);
    const issnsAtMost = (units: number): number => countAtMost(units * step);
    const topUnits = values.length === 0 ? 0 : Math.max(0, Math.ceil(values[values.length - 1] / step - 1e-9));

    // smallest units with issnsAtLeast(units) <= cap (monotone: true from some point on; true at topUnits + 1)
    let low = 0;
    let high = topUnits + 1;
    while (low < high) {
      const middle = Math.floor((low + high) / 2);
      if (issnsAtLeast(middle) <= cap) high = middle;
      else low = middle + 1;
    }
    const minGte = roundToStep(low, step);

    // largest units with issnsAtMost(units) <= cap (monotone: true up to some point)
    let maxLte: number | null = null;
    if (issnsAtMost(0) <= cap) {
      let lowUnits = 0;
      let highUnits = topUnits;
      while (lowUnits < highUnits) {
        const middle = Math.ceil((lowUnits + highUnits) / 2);
        if (issnsAtMost(middle) <= cap) lowUnits = middle;
        else highUnits = middle - 1;
      }
      maxLte = roundToStep(lowUnits, step);
    }
    bounds[field] = { minGte, maxLte };
  }
  return {
    derivedFrom: options.derivedFrom ?? `a snapshot of ${journals.length} journals`,
    maxIssnsPerCondition: cap,
    bounds,
  };
}

/** index of the first value greater than `threshold` in an ascending array */
function lowerIndex(ascending: readonly number[], threshold: number): number {
  let low = 0;
  let high = ascending.length;
  while (low < high) {
    const middle = (low + high) >> 1;
    if (ascending[middle] <= threshold) low = middle + 1;
    else high = middle;
  }
  return low;
}

export async function readMetricBounds(path: string): Promise<MetricBoundsTable> {
  return parseMetricBoundsTable(JSON.parse(await readFile(path, "utf8")));
}

/** The bounds of one built table, saying which table they derive from. */
export function boundsOfTable(table: JournalTable, maxIssnsPerCondition?: number): MetricBoundsTable {
  return computeBounds(table.journals, {
    maxIssnsPerCondition,
    derivedFrom:
      `journals table built ${table.builtAt} (${table.journals.length} journals, citation year ` +
      `${table.citationYear ?? "unknown"})`,
  });
}

/** The command behind "recompute the bounds table from a journals snapshot". */
export async function runComputeBounds(options: {
  journalsPath: string;
  outPath: string;
  maxIssnsPerCondition?: number;
}): Promise<MetricBoundsTable> {
  const table = await readJournalTable(options.journalsPath);
  const computed = boundsOfTable(table, options.maxIssnsPerCondition);
  await mkdir(dirname(options.outPath), { recursive: true });
  await writeFile(options.outPath, `${JSON.stringify(computed, null, 2)}\n`, "utf8");
  return computed;
}
