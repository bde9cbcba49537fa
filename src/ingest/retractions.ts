// Loads the retracted articles of the open-retractions dump and the Retraction Watch sample: their DOIs (ingestion
// excludes them) and their notices (date, reasons, source: the retractions/check tool).
import { realpath } from 'node:fs/promises';
import { openRegularFile } from './operatorFiles.js';
import { join } from 'node:path';
import { parse } from 'csv-parse';
import { z } from 'zod';
import { doiFromSource } from './sourceIdentifiers.js';
import { badLinesError, LISTED_BAD_LINES, MAX_LINE_BYTES, readLineRecords, SourceContentError, tooLongLine } from './sourceFiles.js';

export const OPEN_RETRACTIONS_FILE = 'retractions/open_retractions.retracted.jsonl';
export const RETRACTION_WATCH_FILE = 'retractions/retraction_watch_etl_sampled.csv';

export type { RetractionNotice } from '../domain/retraction.js';
import type { RetractionNotice } from '../domain/retraction.js';

const openRetractionRecord = z.object({
  retracted: z.boolean(),
  timestamp: z.number().optional(),
  updates: z.array(z.object({ identifier: z.object({ doi: z.string() }).partial().optional(), type: z.string().optional() })).optional(),
  identifier: z.object({ doi: z.string() }),
});

const RETRACTION_TYPE = /retract|withdraw/i;

/** A schema's issues as `field: problem`, never the value. */
const issuesOf = (error: z.ZodError): string => error.issues.slice(0, 3).map((i) => (i.path.length ? `${i.path.join('.')}: ${i.message}` : i.message)).join('; ');

/**
 * Notices of `retracted: true` records by DOI (lower-case); `identifier.doi` is the retracted article, not the notice.
 * The first record of a DOI wins. A line that is not JSON or not an open-retractions record fails the read, listing
 * such lines by number and reason (never their text).
 */
export async function readOpenRetractionNotices(path: string): Promise<Map<string, RetractionNotice>> {
  const notices = new Map<string, RetractionNotice>();
  const bad: string[] = [];
  let badCount = 0;
  const refuse = (line: string) => {
    badCount += 1;
    if (bad.length < LISTED_BAD_LINES) bad.push(line);
  };
  for await (const line of readLineRecords(path)) {
    if (line.tooLong !== undefined) {
      refuse(tooLongLine(line));
      continue;
    }
    let raw: unknown;
    try {
      raw = JSON.parse(line.text);
    } catch {
      refuse(`line ${line.number}: not valid JSON`);
      continue;
    }
    const parsed = openRetractionRecord.safeParse(raw);
    if (!parsed.success) {
      refuse(`line ${line.number}: not an open-retractions record (${issuesOf(parsed.error)})`);
      continue;
    }
    const record = parsed.data;
    const doi = doiFromSource(record.identifier.doi);
    if (!record.retracted || !doi || notices.has(doi)) continue;
    // the flag is heuristic: the retraction-type update when there is one, else the first update
    const update = record.updates?.find((u) => u.type && RETRACTION_TYPE.test(u.type)) ?? record.updates?.[0];
    notices.set(doi, {
      doi,
      source: 'open_retractions',
      date: record.timestamp === undefined ? null : new Date(record.timestamp).toISOString().slice(0, 10),
      reasons: [],
      noticeDoi: doiFromSource(update?.identifier?.doi),
      noticeType: update?.type ?? null,
    });
  }
  if (badCount > 0) throw badLinesError(path, badCount, bad, 'the file was not read');
  return notices;
}

/** DOIs (lower-case) of `retracted: true` records. */
export async function readOpenRetractions(path: string): Promise<Set<string>> {
  return new Set((await readOpenRetractionNotices(path)).keys());
}

/** "2/2/2015 0:00" (M/D/YYYY) -> "2015-02-02"; null when not such a date. */
export function retractionWatchDate(value: string | undefined): string | null {
  const m = /^(\d{1,2})\/(\d{1,2})\/(\d{4})\b/.exec(value?.trim() ?? '');
  return m ? `${m[3]}-${m[1]!.padStart(2, '0')}-${m[2]!.padStart(2, '0')}` : null;
}

/** Items of a numpy-style list string ("['+Plagiarism' '+Duplication of Text']", possibly over several lines), without the leading "+". */
export function retractionWatchList(value: string | undefined): string[] {
  const items: string[] = [];
  for (const m of (value ?? '').matchAll(/'([^']*)'|"([^"]*)"/g)) {
    const item = (m[1] ?? m[2] ?? '').replace(/\s+/g, ' ').trim().replace(/^\+/, '');
    if (item) items.push(item);
  }
  return items;
}

/**
 * A Retraction Watch column name as the reader keys it: lower-case, letters and digits only, so the database's own export
 * (`OriginalPaperDOI`, `RetractionNature`, `Record ID`) and the lower-cased ETL sample (`originalpaperdoi`) read alike.
 */
export const retractionWatchColumn = (name: string): string => name.toLowerCase().replace(/[^a-z0-9]/g, '');

/** The columns a Retraction Watch CSV must have to be read as one (as retractionWatchColumn keys them). */
export const RETRACTION_WATCH_COLUMNS = ['originalpaperdoi', 'retractionnature'];

/**
 * Notices of Retraction Watch rows whose RetractionNature is "Retraction" (not EoC, correction, reinstatement), by
 * original-paper DOI; the first row of a DOI wins. Headers are matched whatever their case and spacing.
 */
export async function readRetractionWatchNotices(path: string): Promise<Map<string, RetractionNotice>> {
  const notices = new Map<string, RetractionNotice>();
  const { handle } = await openRegularFile(await realpath(path));
  const rows = handle.createReadStream().pipe(parse({ columns: (header: string[]) => header.map(retractionWatchColumn), skip_empty_lines: true, relax_column_count: true, max_record_size: MAX_LINE_BYTES }));
  let read = 0;
  let retractions = 0;
  for await (const row of rows as AsyncIterable<Record<string, string | undefined>>) {
    read += 1;
    if (row.retractionnature?.trim() !== 'Retraction') continue;
    retractions += 1;
    const doi = doiFromSource(row.originalpaperdoi);
    if (!doi || notices.has(doi)) continue;
    notices.set(doi, {
      doi,
      source: 'retraction_watch',
      date: retractionWatchDate(row.retractiondate),
      reasons: retractionWatchList(row.reason),
      noticeDoi: doiFromSource(row.retractiondoi),
      noticeType: 'Retraction',
    });
  }
  if (notices.size === 0) {
    throw new SourceContentError(
      `${path}: no row lists a retracted work (${read} rows read, ${retractions} with RetractionNature "Retraction", none of them with an OriginalPaperDOI that is a DOI)`,
    );
  }
  return notices;
}

/** Original-paper DOIs of Retraction Watch rows whose retractionnature is "Retraction". */
export async function readRetractionWatch(path: string): Promise<Set<string>> {
  return new Set((await readRetractionWatchNotices(path)).keys());
}

/**
 * Both lists under a data root by DOI: Retraction Watch's notice where it has one (a dated notice with reasons),
 * else open-retractions'. The keys are the retracted DOIs ingestion excludes.
 */
export async function loadRetractionNotices(dataRoot: string): Promise<Map<string, RetractionNotice>> {
  const [openRetractions, retractionWatch] = await Promise.all([
    readOpenRetractionNotices(join(dataRoot, OPEN_RETRACTIONS_FILE)),
    readRetractionWatchNotices(join(dataRoot, RETRACTION_WATCH_FILE)),
  ]);
  return new Map([...openRetractions, ...retractionWatch]);
}

/** Union of both retraction lists under a data root, as lower-case DOIs. */
export async function loadRetractedDois(dataRoot: string): Promise<Set<string>> {
  return new Set((await loadRetractionNotices(dataRoot)).keys());
}
