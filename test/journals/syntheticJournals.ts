// Journals tables made up for tests: small hand-shaped ones and a full-size one whose bounds are the spec's table.
import type { JournalRecord } from "../../src/journals/table.js";

/** A valid ISSN-shaped string for journal number `n` (check digit not computed; the filters do not verify it). */
export function syntheticIssn(n: number): string {
  const digits = String(n).padStart(8, "0");
  return `${digits.slice(0, 4)}-${digits.slice(4)}`;
}

export function journal(overrides: Partial<JournalRecord> & { issns: string[] }): JournalRecord {
  return {
    issnL: overrides.issns[0],
    title: null,
    publisher: null,
    h_index: 0,
    i10_index: 0,
    two_yr_mean_citedness: 0,
    impact_factor: null,
    works_count: 1,
    ...overrides,
  };
}

export const HIGH_GROUP = 35_000;
export const LOW_GROUP = 35_000;
export const MIDDLE_GROUP = 10_000;

/**
 * 80,000 journals, one ISSN each, shaped so that on every metric exactly 35,000 ISSNs sit at or above
 * the spec's lowest one-ended `gte` and exactly 35,000 at or below its highest `lte` (i10_index: 40,000
 * at 0, so no one-ended `lte` is possible), with journals just past each bound in the middle group.
 * computeBounds on it must give back the spec's table.
 *   journals [0, 35000): high;  [35000, 70000): low;  [70000, 80000): middle.
 */
export function fullSizeJournals(): JournalRecord[] {
  const journals: JournalRecord[] = [];
  for (let n = 0; n < HIGH_GROUP + LOW_GROUP + MIDDLE_GROUP; n += 1) {
    const group = n < HIGH_GROUP ? "high" : n < HIGH_GROUP + LOW_GROUP ? "low" : "middle";
    const spread = n % 50;
    let metrics: Pick<JournalRecord, "h_index" | "i10_index" | "two_yr_mean_citedness" | "impact_factor">;
    if (group === "high") {
      metrics = {
        h_index: 35 + spread,
        i10_index: 160 + spread * 3,
        two_yr_mean_citedness: 1.1 + spread / 10,
        impact_factor: 0.9 + spread / 10,
      };
    } else if (group === "low") {
      metrics = { h_index: spread % 4, i10_index: 0, two_yr_mean_citedness: 0, impact_factor: (spread % 3) / 10 };
    } else {
      // middle: just past every bound (h 4..34, i10 0..159, citedness 0.1..1.0, impact factor 0.3..0.8 or withheld)
      metrics = {
        h_index: 4 + (n % 31),
        i10_index: n % 2 === 0 ? 0 : 1 + (n % 159),
        two_yr_mean_citedness: Math.round((0.1 + (n % 10) / 10) * 10) / 10,
        impact_factor: n % 7 === 0 ? null : Math.round((0.3 + (n % 6) / 10) * 10) / 10,
      };
    }
    journals.push(journal({ issns: [syntheticIssn(n)], ...metrics }));
  }
  return journals;
}
