// Reads the DOAJ journal CSV export into titles, publishers and ISSNs.
import { readFile } from "node:fs/promises";
import { parse } from "csv-parse/sync";
import { canonicalIssn } from "../domain/identifiers.js";

export interface DoajJournal {
  title: string | null;
  publisher: string | null;
  issns: string[];
}

const TITLE = "Journal title";
const PRINT_ISSN = "Journal ISSN (print version)";
const ELECTRONIC_ISSN = "Journal EISSN (online version)";
const PUBLISHER = "Publisher";

export function parseDoajCsv(csv: string): DoajJournal[] {
  const rows = parse(csv, { columns: true, skip_empty_lines: true, bom: true, relax_column_count: true }) as Record<
    string,
    string | undefined
  >[];
  const journals: DoajJournal[] = [];
  for (const row of rows) {
    const issns = [row[PRINT_ISSN], row[ELECTRONIC_ISSN]]
      .map((raw) => (raw ? canonicalIssn(raw) : null))
      .filter((issn): issn is string => issn !== null);
    if (issns.length === 0) continue;
    journals.push({
      title: row[TITLE]?.trim() || null,
      publisher: row[PUBLISHER]?.trim() || null,
      issns: [...new Set(issns)],
    });
  }
  return journals;
}

export async function readDoajJournals(path: string): Promise<DoajJournal[]> {
  return parseDoajCsv(await readFile(path, "utf8"));
}
