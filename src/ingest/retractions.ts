// Loads the DOIs of retracted articles from the open-retractions dump and the Retraction Watch sample.
import { createReadStream } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'csv-parse';
import { z } from 'zod';
import { doiFromSource } from './sourceIdentifiers.js';
import { readJsonLines } from './sourceFiles.js';

export const OPEN_RETRACTIONS_FILE = 'retractions/open_retractions.retracted.jsonl';
export const RETRACTION_WATCH_FILE = 'retractions/retraction_watch_etl_sampled.csv';

const openRetractionRecord = z.object({
  retracted: z.boolean(),
  identifier: z.object({ doi: z.string() }),
});

/** DOIs (lower-case) of `retracted: true` records; `identifier.doi` is the retracted article, not the notice. */
export async function readOpenRetractions(path: string): Promise<Set<string>> {
  const dois = new Set<string>();
  for await (const raw of readJsonLines(path)) {
    const record = openRetractionRecord.parse(raw);
    const doi = doiFromSource(record.identifier.doi);
    if (record.retracted && doi) dois.add(doi);
  }
  return dois;
}

/** Original-paper DOIs of Retraction Watch rows whose retractionnature is "Retraction" (not EoC, correction, reinstatement). */
export async function readRetractionWatch(path: string): Promise<Set<string>> {
  const dois = new Set<string>();
  const rows = createReadStream(path).pipe(parse({ columns: true, skip_empty_lines: true, relax_column_count: true }));
  for await (const row of rows as AsyncIterable<Record<string, string | undefined>>) {
    if (row.retractionnature?.trim() !== 'Retraction') continue;
    const doi = doiFromSource(row.originalpaperdoi);
    if (doi) dois.add(doi);
  }
  return dois;
}

/** Union of both retraction lists under a data root, as lower-case DOIs. */
export async function loadRetractedDois(dataRoot: string): Promise<Set<string>> {
  const [openRetractions, retractionWatch] = await Promise.all([
    readOpenRetractions(join(dataRoot, OPEN_RETRACTIONS_FILE)),
    readRetractionWatch(join(dataRoot, RETRACTION_WATCH_FILE)),
  ]);
  return new Set([...openRetractions, ...retractionWatch]);
}
