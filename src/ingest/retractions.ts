// Loads the shipped update lists, the open-retractions dump of Crossref update records (every kind: corrections,
// errata, withdrawals, expressions of concern, retractions) and the Retraction Watch sample: the retracted articles'
// DOIs (ingestion excludes them) and notices (date, reasons, source: the retractions/check tool), and every article's
// notices of any kind (each work's integrity, src/domain/integrity.ts).
import { existsSync } from "node:fs";
import { realpath } from "node:fs/promises";
import { join } from "node:path";
import { parse } from "csv-parse";
import { z } from "zod";
import { openRegularFile } from "./operatorFiles.js";
import { doiFromSource } from "./sourceIdentifiers.js";
import { canonicalPmid } from "../domain/identifiers.js";
import {
  badLinesError,
  LISTED_BAD_LINES,
  MAX_LINE_BYTES,
  readableIssues,
  readLineRecords,
  SourceContentError,
  tooLongLine,
} from "./sourceFiles.js";

/** Every Crossref update record of the dump; its `retracted: true` records are the retracted subset below. */
const OPEN_UPDATES_FILE = "retractions/open_retractions.all_updates.jsonl.gz";
/** The retracted subset alone, read when a data root holds no OPEN_UPDATES_FILE. */
const OPEN_RETRACTIONS_FILE = "retractions/open_retractions.retracted.jsonl";
const RETRACTION_WATCH_FILE = "retractions/retraction_watch_etl_sampled.csv";

export type { RetractionNotice } from "../domain/retraction.js";
import type { RetractionNotice } from "../domain/retraction.js";
import { addNotice, noticeType, withdrawalsByNoticeDoi, type IntegrityNotice } from "../domain/integrity.js";

/**
 * What one list says: the works it flags retracted (their notice) and every work's notices of any kind, by DOI
 * (lower-case).
 */
export interface UpdateList {
  retracted: Map<string, RetractionNotice>;
  updates: Map<string, IntegrityNotice[]>;
}

const emptyList = (): UpdateList => ({ retracted: new Map(), updates: new Map() });

/** Notices by DOI (lower-case), as the shipped lists keep them for the life of the process. */
interface NoticesByDoi {
  readonly size: number;
  get(doi: string): IntegrityNotice[] | undefined;
}

/** The shipped lists as loadUpdateLists keeps them: the retracted works' notices, and every work's notices packed. */
export interface ShippedLists {
  retracted: Map<string, RetractionNotice>;
  updates: NoticesByDoi;
  /** the withdrawal and removal notices by their own DOI (ListsInForce.noticesAt) */
  withdrawalsAt: Map<string, IntegrityNotice[]>;
}

/**
 * Every work's notices kept as JSON in one string, each DOI pointing at its span. Held as arrays of notice objects,
 * the shipped lists' 119,000 works were 52 MB of small objects that live as long as the process, and every major
 * garbage collection walks them (a service on them ran one every hundred searches where it ran none before); one
 * string and the DOIs hold no reference to follow. Each lookup parses its span, so a caller gets objects of its own
 * to change.
 */
function packNotices(updates: ReadonlyMap<string, readonly IntegrityNotice[]>): NoticesByDoi {
  const spanOf = new Map<string, number>();
  const texts: string[] = [];
  const ends = new Uint32Array(updates.size + 1);
  for (const [doi, notices] of updates) {
    const text = JSON.stringify(notices);
    spanOf.set(doi, texts.length);
    ends[texts.length + 1] = ends[texts.length] + text.length;
    texts.push(text);
  }
  const packed = texts.join("");
  return {
    size: spanOf.size,
    get: (doi) => {
      const i = spanOf.get(doi);
      return i === undefined ? undefined : (JSON.parse(packed.slice(ends[i], ends[i + 1])) as IntegrityNotice[]);
    },
  };
}

/** Both lists as one: a retracted work keeps the first list's notice; notices of any kind are merged per work. */
export function mergeUpdateLists(lists: readonly UpdateList[]): UpdateList {
  const merged = emptyList();
  for (const list of lists) {
    for (const [doi, notice] of list.retracted) if (!merged.retracted.has(doi)) merged.retracted.set(doi, notice);
    for (const [doi, notices] of list.updates) {
      const into = merged.updates.get(doi) ?? [];
      for (const n of notices) addNotice(into, { ...n });
      merged.updates.set(doi, into);
    }
  }
  return merged;
}

function noteUpdate(list: UpdateList, doi: string, notice: IntegrityNotice): void {
  const notices = list.updates.get(doi) ?? [];
  addNotice(notices, notice);
  list.updates.set(doi, notices);
}

const openRetractionRecord = z.object({
  retracted: z.boolean(),
  timestamp: z.number().optional(),
  updates: z
    .array(z.object({ identifier: z.object({ doi: z.string() }).partial().optional(), type: z.string().optional() }))
    .optional(),
  identifier: z.object({ doi: z.string() }),
});

const RETRACTION_TYPE = /retract|withdraw/i;

type OpenRetractionRecord = z.infer<typeof openRetractionRecord>;

/**
 * A record as the schema reads it: checked by hand on the common shape (zod over 114,615 records took seconds), by zod
 * otherwise; a record of another shape is what zod says of it (fields and problems, never values).
 */
function openRecordOf(raw: unknown): OpenRetractionRecord | { problem: string } {
  const r = raw as Partial<Record<keyof OpenRetractionRecord, unknown>> | null;
  const updates = r?.updates;
  const plain =
    r !== null &&
    typeof r === "object" &&
    typeof r.retracted === "boolean" &&
    typeof (r.identifier as { doi?: unknown } | undefined)?.doi === "string" &&
    (r.timestamp === undefined || typeof r.timestamp === "number") &&
    (updates === undefined ||
      (Array.isArray(updates) &&
        updates.every(
          (u: { type?: unknown; identifier?: { doi?: unknown } } | null) =>
            u !== null &&
            typeof u === "object" &&
            (u.type === undefined || typeof u.type === "string") &&
            (u.identifier === undefined ||
              (typeof u.identifier === "object" &&
                u.identifier !== null &&
                (u.identifier.doi === undefined || typeof u.identifier.doi === "string"))),
        )));
  if (plain) return raw as OpenRetractionRecord;
  const parsed = openRetractionRecord.safeParse(raw);
  return parsed.success ? parsed.data : { problem: readableIssues(parsed.error, 3) };
}

/**
 * Every record's updates as notices by the updated article's DOI (`identifier.doi`, lower-case), and the notices of
 * `retracted: true` records; the first such record of a DOI wins. A line that is not JSON or not an open-retractions
 * record fails the read, listing such lines by number and reason (never their text).
 */
export async function readOpenRetractionsList(path: string): Promise<UpdateList> {
  const list = emptyList();
  const notices = list.retracted;
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
    const record = openRecordOf(raw);
    if ("problem" in record) {
      refuse(`line ${line.number}: not an open-retractions record (${record.problem})`);
      continue;
    }
    const doi = doiFromSource(record.identifier.doi);
    if (!doi) continue;
    const date = record.timestamp === undefined ? null : new Date(record.timestamp).toISOString().slice(0, 10);
    // the updates' own timestamps are Crossref's indexing times: the record's date is the better one (see below)
    for (const u of record.updates ?? [])
      noteUpdate(list, doi, {
        type: noticeType(u.type),
        source: "crossref",
        doi: doiFromSource(u.identifier?.doi),
        pmid: null,
        date,
      });
    if (!record.retracted || notices.has(doi)) continue;
    // the flag is heuristic: the retraction-type update when there is one, else the first update
    const update = record.updates?.find((u) => u.type && RETRACTION_TYPE.test(u.type)) ?? record.updates?.[0];
    notices.set(doi, {
      doi,
      source: "open_retractions",
      date,
      reasons: [],
      noticeDoi: doiFromSource(update?.identifier?.doi),
      noticeType: update?.type ?? null,
    });
  }
  if (badCount > 0) throw badLinesError(path, badCount, bad, "the file was not read");
  return list;
}

/** "2/2/2015 0:00" (M/D/YYYY) -> "2015-02-02"; null when not such a date. */
export function retractionWatchDate(value: string | undefined): string | null {
  const m = /^(\d{1,2})\/(\d{1,2})\/(\d{4})\b/.exec(value?.trim() ?? "");
  return m ? `${m[3]}-${m[1]!.padStart(2, "0")}-${m[2]!.padStart(2, "0")}` : null;
}

/**
 * Items of a numpy-style list string ("['+Plagiarism' '+Duplication of Text']", possibly over several lines), without
 * the leading "+".
 */
export function retractionWatchList(value: string | undefined): string[] {
  const items: string[] = [];
  for (const m of (value ?? "").matchAll(/'([^']*)'|"([^"]*)"/g)) {
    const item = (m[1] ?? m[2] ?? "").replace(/\s+/g, " ").trim().replace(/^\+/, "");
    if (item) items.push(item);
  }
  return items;
}

/**
 * A Retraction Watch column name as the reader keys it: lower-case, letters and digits only, so the database's own
 * export (`OriginalPaperDOI`, `RetractionNature`, `Record ID`) and the lower-cased ETL sample (`originalpaperdoi`) read
 * alike.
 */
export const retractionWatchColumn = (name: string): string => name.toLowerCase().replace(/[^a-z0-9]/g, "");

/** The columns a Retraction Watch CSV must have to be read as one (as retractionWatchColumn keys them). */
export const RETRACTION_WATCH_COLUMNS = ["originalpaperdoi", "retractionnature"];

/**
 * Every row as a notice of its kind (retraction, expression of concern, correction, reinstatement) by original-paper
 * DOI, and the retracted works: rows whose RetractionNature is "Retraction"; the first row of a DOI wins. Headers are
 * matched whatever their case and spacing. A list that names no retracted work is refused, saying why.
 */
export async function readRetractionWatchList(path: string): Promise<UpdateList> {
  const list = emptyList();
  const notices = list.retracted;
  const { handle } = await openRegularFile(await realpath(path));
  const rows = handle.createReadStream().pipe(
    parse({
      columns: (header: string[]) => header.map(retractionWatchColumn),
      skip_empty_lines: true,
      relax_column_count: true,
      max_record_size: MAX_LINE_BYTES,
    }),
  );
  let read = 0;
  let retractions = 0;
  for await (const row of rows as AsyncIterable<Record<string, string | undefined>>) {
    read += 1;
    const retraction = row.retractionnature?.trim() === "Retraction";
    if (retraction) retractions += 1;
    const doi = doiFromSource(row.originalpaperdoi);
    if (!doi) continue;
    noteUpdate(list, doi, {
      type: noticeType(row.retractionnature),
      source: "retraction_watch",
      doi: doiFromSource(row.retractiondoi),
      pmid: canonicalPmid(row.retractionpubmedid ?? "") ?? null,
      date: retractionWatchDate(row.retractiondate),
    });
    if (!retraction || notices.has(doi)) continue;
    notices.set(doi, {
      doi,
      source: "retraction_watch",
      date: retractionWatchDate(row.retractiondate),
      reasons: retractionWatchList(row.reason),
      noticeDoi: doiFromSource(row.retractiondoi),
      noticeType: "Retraction",
    });
  }
  if (notices.size === 0) {
    throw new SourceContentError(
      `${path}: no row lists a retracted work (${read} rows read, ${retractions} with RetractionNature ` +
        `"Retraction", none of them with an OriginalPaperDOI that is a DOI)`,
    );
  }
  return list;
}

/**
 * The shipped lists under a data root, whole: Retraction Watch's retraction notice where it has one (a dated notice
 * with reasons), else open-retractions'; the retracted DOIs are those ingestion excludes. Every notice of any kind of
 * both lists by DOI. The open-retractions dump of all updates is read (the retracted subset's file only when it is
 * absent).
 */
export function loadUpdateLists(dataRoot: string): Promise<ShippedLists> {
  // read once per process and data root (the shipped files do not change while it runs); a failed read is tried again
  const cached = shippedLists.get(dataRoot);
  if (cached) return cached;
  const loading = readShippedLists(dataRoot);
  shippedLists.set(dataRoot, loading);
  loading.catch(() => shippedLists.delete(dataRoot));
  return loading;
}

const shippedLists = new Map<string, Promise<ShippedLists>>();

async function readShippedLists(dataRoot: string): Promise<ShippedLists> {
  const openFile = existsSync(join(dataRoot, OPEN_UPDATES_FILE)) ? OPEN_UPDATES_FILE : OPEN_RETRACTIONS_FILE;
  const [openRetractions, retractionWatch] = await Promise.all([
    readOpenRetractionsList(join(dataRoot, openFile)),
    readRetractionWatchList(join(dataRoot, RETRACTION_WATCH_FILE)),
  ]);
  const merged = mergeUpdateLists([retractionWatch, openRetractions]);
  return {
    retracted: merged.retracted,
    updates: packNotices(merged.updates),
    withdrawalsAt: withdrawalsByNoticeDoi(merged.updates.values()),
  };
}

/** Union of both retraction lists under a data root, as lower-case DOIs. */
export async function loadRetractedDois(dataRoot: string): Promise<Set<string>> {
  return new Set((await loadUpdateLists(dataRoot)).retracted.keys());
}
