// The journals table: one row per journal with its ISSNs, names and citation metrics, as persisted and loaded.
import { readFile, writeFile, mkdir, rename } from "node:fs/promises";
import { dirname } from "node:path";
import type { MetricsBasis } from "./metricsBasis.js";

export interface JournalRecord {
  /** ISSN-L from OpenAlex; null for a journal known only from DOAJ */
  issnL: string | null;
  /** every ISSN of the journal in canonical form ("1234-567X"), ISSN-L included; no ISSN belongs to two rows */
  issns: string[];
  title: string | null;
  publisher: string | null;
  /** null: no citation data for this journal (it matches no metric threshold) */
  h_index: number | null;
  i10_index: number | null;
  two_yr_mean_citedness: number | null;
  /** null also when the spec's JIF rule withholds it (under 20 articles+reviews, or under half the output) */
  impact_factor: number | null;
  /**
   * works the metrics were computed from: the works sample's count, or a source record's `works_count` (OpenAlex's);
   * null when unknown
   */
  works_count: number | null;
}

export interface JournalTable {
  formatVersion: 1;
  builtAt: string;
  /** Y of the two-year metrics: citations received in Y by works of Y-1 and Y-2; null when unknown */
  citationYear: number | null;
  /** what the table was built from, for the record */
  inputs: string[];
  /** what the metrics were computed from (the sentence every place showing metrics says is derived from it) */
  metricsBasis: MetricsBasis;
  journals: JournalRecord[];
}

/** A table written before it recorded its metrics basis: rebuild it (`journals build`). */
export class OutdatedJournalTable extends Error {}

/**
 * Written whole or not at all (a temporary file renamed over it): processes starting together may rebuild it at once.
 */
export async function writeJournalTable(table: JournalTable, path: string): Promise<void> {
  await mkdir(dirname(path), { recursive: true });
  const partial = `${path}.${process.pid}.${Date.now()}.tmp`;
  await writeFile(partial, `${JSON.stringify(table)}\n`, "utf8");
  await rename(partial, path);
}

export async function readJournalTable(path: string): Promise<JournalTable> {
  const parsed: unknown = JSON.parse(await readFile(path, "utf8"));
  if (!isJournalTable(parsed)) throw new Error(`${path} is not a journals table (formatVersion 1)`);
  if (typeof parsed.metricsBasis !== "object" || parsed.metricsBasis === null) {
    throw new OutdatedJournalTable(
      `${path} does not record what its metrics were computed from: rebuild it with \`journals build\``,
    );
  }
  return parsed;
}

function isJournalTable(value: unknown): value is JournalTable {
  if (typeof value !== "object" || value === null) return false;
  const candidate = value as Partial<JournalTable>;
  return candidate.formatVersion === 1 && Array.isArray(candidate.journals);
}
