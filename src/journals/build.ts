// Builds the journals table from the data folder: metrics from OpenAlex works (and source records if present), names and ISSNs from DOAJ.
import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { readDoajJournals, type DoajJournal } from './doaj.js';
import { readOpenAlexSources } from './openAlexSources.js';
import { readJsonLines } from './readJsonLines.js';
import { writeJournalTable, type JournalRecord, type JournalTable } from './table.js';
import { WorkMetricsAccumulator } from './worksMetrics.js';

export interface BuildJournalTableOptions {
  /** folder holding articles/ (OpenAlex works) and journals/ (DOAJ, optional OpenAlex sources) */
  dataRoot: string;
  /** default: every articles/openalex_works*.jsonl[.gz] */
  worksPaths?: string[];
  /** default: journals/doaj_journals.csv when present; null to leave DOAJ out */
  doajPath?: string | null;
  /** default: every journals/openalex_sources*.jsonl[.gz] */
  sourcesPaths?: string[];
  /** Y of the two-year metrics; default: the year before the works' latest update */
  citationYear?: number;
  now?: Date;
}

function filesMatching(folder: string, pattern: RegExp): string[] {
  if (!existsSync(folder)) return [];
  return readdirSync(folder)
    .filter((name) => pattern.test(name))
    .sort()
    .map((name) => join(folder, name));
}

export async function buildJournalTable(input: string | BuildJournalTableOptions): Promise<JournalTable> {
  const options: BuildJournalTableOptions = typeof input === 'string' ? { dataRoot: input } : input;
  const worksPaths = options.worksPaths ?? filesMatching(join(options.dataRoot, 'articles'), /^openalex_works.*\.jsonl(\.gz)?$/);
  const defaultDoaj = join(options.dataRoot, 'journals', 'doaj_journals.csv');
  const doajPath = options.doajPath === undefined ? (existsSync(defaultDoaj) ? defaultDoaj : null) : options.doajPath;
  const sourcesPaths =
    options.sourcesPaths ?? filesMatching(join(options.dataRoot, 'journals'), /^openalex_sources.*\.jsonl(\.gz)?$/);

  const accumulator = new WorkMetricsAccumulator();
  for (const path of worksPaths) {
    for await (const work of readJsonLines(path)) accumulator.add(work);
  }
  const fromWorks = accumulator.finish(options.citationYear ?? accumulator.defaultCitationYear());
  const fromSources: JournalRecord[] = [];
  for (const path of sourcesPaths) fromSources.push(...(await readOpenAlexSources(path)));
  const fromDoaj = doajPath ? await readDoajJournals(doajPath) : [];

  return {
    formatVersion: 1,
    builtAt: (options.now ?? new Date()).toISOString(),
    citationYear: fromWorks.citationYear,
    inputs: [
      ...worksPaths.map((path) => `OpenAlex works: ${path} (${accumulator.worksSeen} works, ${accumulator.worksAttributed} with a source ISSN)`),
      ...sourcesPaths.map((path) => `OpenAlex sources: ${path}`),
      ...(doajPath ? [`DOAJ: ${doajPath} (${fromDoaj.length} journals with an ISSN)`] : []),
    ],
    journals: mergeJournals(fromWorks.journals, fromSources, fromDoaj),
  };
}

/**
 * One row per journal, no ISSN in two rows (the first row to claim an ISSN keeps it).
 * - works rows come first;
 * - a source record replaces h_index, i10_index and 2yr_mean_citedness of the row sharing an ISSN
 *   (its summary_stats cover every work, the works file only a sample), or adds a row;
 * - DOAJ adds ISSNs, and a title/publisher where the row has none, or a row of its own whose metrics
 *   are all null: no citation data is known for it, so it matches no metric threshold (`not` keeps it).
 */
export function mergeJournals(
  fromWorks: readonly JournalRecord[],
  fromSources: readonly JournalRecord[],
  fromDoaj: readonly DoajJournal[],
): JournalRecord[] {
  const rows: JournalRecord[] = [];
  const rowByIssn = new Map<string, JournalRecord>();
  const claim = (row: JournalRecord, issns: readonly string[]): void => {
    for (const issn of issns) {
      if (rowByIssn.has(issn)) continue;
      rowByIssn.set(issn, row);
      if (!row.issns.includes(issn)) row.issns.push(issn);
    }
  };
  const addRow = (candidate: JournalRecord): void => {
    const unclaimed = candidate.issns.filter((issn) => !rowByIssn.has(issn));
    if (unclaimed.length === 0) return;
    const row: JournalRecord = { ...candidate, issns: [] };
    if (row.issnL !== null && !unclaimed.includes(row.issnL)) row.issnL = null;
    rows.push(row);
    claim(row, unclaimed);
  };
  const findRow = (issns: readonly string[]): JournalRecord | undefined =>
    issns.map((issn) => rowByIssn.get(issn)).find((row) => row !== undefined);

  for (const journal of fromWorks) addRow(journal);
  for (const source of fromSources) {
    const row = findRow(source.issns);
    if (!row) {
      addRow(source);
      continue;
    }
    row.h_index = source.h_index ?? row.h_index;
    row.i10_index = source.i10_index ?? row.i10_index;
    row.two_yr_mean_citedness = source.two_yr_mean_citedness ?? row.two_yr_mean_citedness;
    row.title ??= source.title;
    row.publisher ??= source.publisher;
    claim(row, source.issns);
  }
  for (const doaj of fromDoaj) {
    const row = findRow(doaj.issns);
    if (!row) {
      addRow({
        issnL: null,
        issns: doaj.issns,
        title: doaj.title,
        publisher: doaj.publisher,
        h_index: null,
        i10_index: null,
        two_yr_mean_citedness: null,
        impact_factor: null,
        works_count: null,
      });
      continue;
    }
    row.title ??= doaj.title;
    row.publisher ??= doaj.publisher;
    claim(row, doaj.issns);
  }
  return rows;
}

export interface JournalTableSummary {
  outPath: string;
  journals: number;
  withCitationMetrics: number;
  withImpactFactor: number;
  issns: number;
  citationYear: number | null;
}

export function summarizeJournalTable(table: JournalTable, outPath: string): JournalTableSummary {
  return {
    outPath,
    journals: table.journals.length,
    withCitationMetrics: table.journals.filter((journal) => journal.h_index !== null).length,
    withImpactFactor: table.journals.filter((journal) => journal.impact_factor !== null).length,
    issns: table.journals.reduce((sum, journal) => sum + journal.issns.length, 0),
    citationYear: table.citationYear,
  };
}

/** The command behind "build the journals table": reads dataRoot, writes outPath, returns figures to print. */
export async function runBuildJournals(options: BuildJournalTableOptions & { outPath: string }): Promise<JournalTableSummary> {
  const table = await buildJournalTable(options);
  await writeJournalTable(table, options.outPath);
  return summarizeJournalTable(table, options.outPath);
}
