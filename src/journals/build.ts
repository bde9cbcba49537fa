// Builds the journals table: metrics from OpenAlex works (the indexed sample) or from OpenAlex source records (an open
// snapshot's `sources` entity files), names and ISSNs from DOAJ.
import { existsSync, readdirSync, statSync } from "node:fs";
import { writeFile, mkdir } from "node:fs/promises";
import { dirname, join } from "node:path";
import { boundsOfTable, type MetricBoundsTable } from "./bounds.js";
import { readDoajJournals, type DoajJournal } from "./doaj.js";
import { readOpenAlexSources } from "./openAlexSources.js";
import { readJsonLines } from "./readJsonLines.js";
import { writeJournalTable, type JournalRecord, type JournalTable } from "./table.js";
import { WorkMetricsAccumulator } from "./worksMetrics.js";
import { metricsBasisSentence } from "./metricsBasis.js";

interface BuildJournalTableOptions {
  /** folder holding articles/ (OpenAlex works) and journals/ (DOAJ, optional OpenAlex sources) */
  dataRoot: string;
  /** default: every articles/openalex_works*.jsonl[.gz] */
  worksPaths?: string[];
  /** default: journals/doaj_journals.csv when present; null to leave DOAJ out */
  doajPath?: string | null;
  /** default: every journals/openalex_sources*.jsonl[.gz] */
  sourcesPaths?: string[];
  /**
   * a folder of OpenAlex `sources` entity files (the open snapshot's data/sources: updated_date=.../part_NNN.gz,
   * gzipped JSON Lines); the table is then built from them alone (no works), every file under it read
   */
  openAlexSourcesDir?: string;
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

/** Every JSON Lines file (gzipped or not) under a folder, at any depth, in path order; refuses a folder with none. */
function openAlexSourceFiles(folder: string): string[] {
  if (!existsSync(folder) || !statSync(folder).isDirectory())
    throw new Error(`--openalex-sources ${folder}: no such folder`);
  const files: string[] = [];
  const walk = (dir: string): void => {
    for (const entry of readdirSync(dir, { withFileTypes: true }).sort((a, b) => a.name.localeCompare(b.name))) {
      const path = join(dir, entry.name);
      if (entry.isDirectory()) walk(path);
      else if (/\.(gz|jsonl)$/.test(entry.name)) files.push(path);
    }
  };
  walk(folder);
  if (files.length === 0)
    throw new Error(
      `--openalex-sources ${folder}: no .gz or .jsonl files in it (expected the snapshot's ` +
        "sources/updated_date=*/part_*.gz)",
    );
  return files;
}

export async function buildJournalTable(input: string | BuildJournalTableOptions): Promise<JournalTable> {
  const options: BuildJournalTableOptions = typeof input === "string" ? { dataRoot: input } : input;
  const fromSnapshot = options.openAlexSourcesDir !== undefined;
  const worksPaths =
    options.worksPaths ??
    (fromSnapshot ? [] : filesMatching(join(options.dataRoot, "articles"), /^openalex_works.*\.jsonl(\.gz)?$/));
  const defaultDoaj = join(options.dataRoot, "journals", "doaj_journals.csv");
  const doajPath = options.doajPath === undefined ? (existsSync(defaultDoaj) ? defaultDoaj : null) : options.doajPath;
  const sourcesPaths =
    options.sourcesPaths ??
    (fromSnapshot
      ? openAlexSourceFiles(options.openAlexSourcesDir!)
      : filesMatching(join(options.dataRoot, "journals"), /^openalex_sources.*\.jsonl(\.gz)?$/));

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
      ...worksPaths.map(
        (path) =>
          `OpenAlex works: ${path} (${accumulator.worksSeen} works, ${accumulator.worksAttributed} with a source ISSN)`,
      ),
      ...sourcesPaths.map((path) => `OpenAlex sources: ${path}`),
      ...(doajPath ? [`DOAJ: ${doajPath} (${fromDoaj.length} journals with an ISSN)`] : []),
    ],
    metricsBasis: {
      works:
        worksPaths.length > 0
          ? { count: accumulator.worksAttributed, publicationYears: accumulator.publicationYears }
          : null,
      openAlexSources:
        sourcesPaths.length > 0
          ? {
              records: fromSources.length,
              worksCount: fromSources.reduce((sum, source) => sum + (source.works_count ?? 0), 0),
            }
          : null,
      citationYear: fromWorks.citationYear,
    },
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
    // the works sample's works_count stays: the impact factor it gives is computed from those works
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

interface JournalTableSummary {
  outPath: string;
  /** the one-ended bounds recomputed from this table, when written */
  boundsPath?: string;
  bounds?: MetricBoundsTable["bounds"];
  /** the sentence the metrics are shown with */
  metricsBasis: string;
  journals: number;
  withCitationMetrics: number;
  withImpactFactor: number;
  issns: number;
  citationYear: number | null;
}

function summarizeJournalTable(table: JournalTable, outPath: string): JournalTableSummary {
  return {
    outPath,
    metricsBasis: metricsBasisSentence(table.metricsBasis),
    journals: table.journals.length,
    withCitationMetrics: table.journals.filter((journal) => journal.h_index !== null).length,
    withImpactFactor: table.journals.filter((journal) => journal.impact_factor !== null).length,
    issns: table.journals.reduce((sum, journal) => sum + journal.issns.length, 0),
    citationYear: table.citationYear,
  };
}

/**
 * The command behind "build the journals table": reads dataRoot (or the sources folder), writes outPath and, given
 * boundsPath, the one-ended bounds recomputed from the table just built; returns figures to print.
 */
export async function runBuildJournals(
  options: BuildJournalTableOptions & { outPath: string; boundsPath?: string },
): Promise<JournalTableSummary> {
  const table = await buildJournalTable(options);
  await writeJournalTable(table, options.outPath);
  const summary = summarizeJournalTable(table, options.outPath);
  if (options.boundsPath === undefined) return summary;
  const bounds = boundsOfTable(table);
  await mkdir(dirname(options.boundsPath), { recursive: true });
  await writeFile(options.boundsPath, `${JSON.stringify(bounds, null, 2)}\n`, "utf8");
  return { ...summary, boundsPath: options.boundsPath, bounds: bounds.bounds };
}
