// Imports OpenAlex *source* records (summary_stats: h_index, i10_index, 2yr_mean_citedness) where a deployment has
// them.
import { canonicalIssn } from "../domain/identifiers.js";
import { readJsonLines } from "./readJsonLines.js";
import type { JournalRecord } from "./table.js";
import { roundMetric } from "./worksMetrics.js";

type JsonObject = Record<string, unknown>;

function asObject(value: unknown): JsonObject | null {
  return typeof value === "object" && value !== null && !Array.isArray(value) ? (value as JsonObject) : null;
}

function asMetric(value: unknown): number | null {
  return typeof value === "number" && Number.isFinite(value) && value >= 0 ? value : null;
}

/**
 * One source record → a journal row. Source records carry no impact factor: the JIF formula needs the citations
 * received in Y by the works of Y-1 and Y-2 and the count of those that are articles and reviews, and a source's
 * `counts_by_year` gives only its works per year and the citations made in each year to all its works; so
 * impact_factor is null (absent, not 0) unless works give one. Null for a source with no ISSN.
 */
export function journalFromOpenAlexSource(record: unknown): JournalRecord | null {
  const source = asObject(record);
  if (!source) return null;
  const issns = new Set<string>();
  const issnL = typeof source.issn_l === "string" ? canonicalIssn(source.issn_l) : null;
  if (issnL) issns.add(issnL);
  for (const raw of Array.isArray(source.issn) ? source.issn : []) {
    const issn = typeof raw === "string" ? canonicalIssn(raw) : null;
    if (issn) issns.add(issn);
  }
  if (issns.size === 0) return null;
  const stats = asObject(source.summary_stats) ?? {};
  const citedness = asMetric(stats["2yr_mean_citedness"]);
  const text = (value: unknown): string | null => (typeof value === "string" && value.trim() ? value.trim() : null);
  return {
    issnL: issnL ?? [...issns][0],
    issns: [...issns],
    title: text(source.display_name),
    publisher: text(source.host_organization_name),
    h_index: asMetric(stats.h_index),
    i10_index: asMetric(stats.i10_index),
    two_yr_mean_citedness: citedness === null ? null : roundMetric(citedness),
    impact_factor: null,
    works_count: asMetric(source.works_count),
  };
}

/** Reads a JSON Lines file (optionally .gz) of source records, one per line. */
export async function readOpenAlexSources(path: string): Promise<JournalRecord[]> {
  const journals: JournalRecord[] = [];
  for await (const record of readJsonLines(path)) {
    const journal = journalFromOpenAlexSource(record);
    if (journal) journals.push(journal);
  }
  return journals;
}
