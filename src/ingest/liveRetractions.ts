// The retraction list in force: the shipped lists ingestion excluded by, plus every list an operator loaded since
// (RetractionsLoaded events on the retractions stream). Searches exclude the works of the loaded lists at query time
// and retractions/check answers from the whole list; each process re-reads the stream's version at most once a
// RETRACTIONS_RECHECK_MS, so every API process follows a load within that time (the loading one at once).
import { isAbsolute, resolve } from 'node:path';
import type { Db } from '../eventstore/db.js';
import { readStream } from '../eventstore/eventStore.js';
import { runStreamCommand } from '../eventstore/streamCommand.js';
import { RETRACTIONS_STREAM, type Actor, type StoredEvent } from '../domain/events.js';
import { Rejection } from '../domain/rejection.js';
import type { FilterNode } from '../filters/ast.js';
import { readLines } from './sourceFiles.js';
import { loadRetractionNotices, readOpenRetractionNotices, readRetractionWatchNotices, type RetractionNotice } from './retractions.js';

/** How stale another process's load may be here: one small indexed read of the stream's version per interval. */
export const RETRACTIONS_RECHECK_MS = 1000;

/** The columns a Retraction Watch CSV must have to be read as one. */
const RETRACTION_WATCH_COLUMNS = ['originalpaperdoi', 'retractionnature'];

export interface RetractionsLoad {
  /** the stream's version after the load: the list's version */
  version: number;
  files: string[];
  /** retracted works the files list */
  listed: number;
  /** of those, the ones no earlier list had: excluded from results from now on */
  newlyRetracted: number;
  loadedAt: string;
}

export interface LiveRetractions {
  /** every retracted work's notice by DOI (lower-case) */
  notices(): Promise<ReadonlyMap<string, RetractionNotice>>;
  /** the DOIs the loaded lists added (ingestion excluded the shipped ones already); empty before any load */
  addedDois(): Promise<readonly string[]>;
  /** a filter excluding the works the loaded lists added, or undefined when there are none */
  exclusionFilter(): Promise<FilterNode | undefined>;
  /** reads the files (relative paths under the data root) and records them as the list in force; a bad file is 422 and changes nothing */
  load(files: readonly string[], actor: Actor, requestId?: string): Promise<RetractionsLoad>;
}

/**
 * One file's notices, by its format: a ".csv" is a Retraction Watch export, anything else JSON lines of
 * open-retractions records (".gz" gunzipped). A file that is missing or does not parse is 422 naming it.
 */
export async function readRetractionFile(path: string, asGiven: string): Promise<Map<string, RetractionNotice>> {
  try {
    if (/\.csv(\.gz)?$/i.test(path)) {
      if (path.endsWith('.gz')) throw new Error('a Retraction Watch CSV is read uncompressed');
      for await (const header of readLines(path)) {
        const columns = header.split(',').map((c) => c.trim().replace(/^"|"$/g, '').toLowerCase());
        const missing = RETRACTION_WATCH_COLUMNS.filter((c) => !columns.includes(c));
        if (missing.length > 0) throw new Error(`not a Retraction Watch CSV: no ${missing.join(', ')} column`);
        break;
      }
      return await readRetractionWatchNotices(path);
    }
    return await readOpenRetractionNotices(path);
  } catch (err) {
    const e = err as NodeJS.ErrnoException;
    const reason = e.code === 'ENOENT' ? 'no such file' : e.code === 'EACCES' ? 'the server may not read it' : e.code === 'EISDIR' ? 'a directory, not a file' : e.message.replace(`${path}:`, 'line ').replace(/not valid JSON \(.*\)$/s, 'not valid JSON'); // JSON.parse quotes the file's text: not echoed
    throw new Rejection('VALIDATION_ERROR', `retraction list "${asGiven}" cannot be read: ${reason}. Give a Retraction Watch CSV or open-retractions JSON lines (relative paths are under DATA_ROOT); nothing was loaded`, { file: asGiven });
  }
}

export function createLiveRetractions(deps: { db: Db; dataRoot: string; clock?: () => Date; recheckMs?: number }): LiveRetractions {
  const clock = deps.clock ?? (() => new Date());
  const recheckMs = deps.recheckMs ?? RETRACTIONS_RECHECK_MS;
  let shipped: Promise<Map<string, RetractionNotice>> | undefined;
  const state = { version: 0, added: new Map<string, RetractionNotice>(), all: undefined as Map<string, RetractionNotice> | undefined, filter: undefined as FilterNode | undefined, checkedAt: -Infinity };

  function fold(events: readonly StoredEvent[]): void {
    for (const e of events) {
      if (e.streamVersion <= state.version || e.type !== 'RetractionsLoaded') continue;
      for (const n of e.data.notices) state.added.set(n.doi, n);
      state.version = e.streamVersion;
      state.all = undefined;
      state.filter = state.added.size > 0 ? { kind: 'not', child: { kind: 'in', field: 'doi', values: [...state.added.keys()] } } : undefined;
    }
  }

  async function refresh(): Promise<void> {
    const now = clock().getTime();
    if (now - state.checkedAt < recheckMs) return;
    state.checkedAt = now;
    const [row] = await deps.db.query<{ v: number | null }>('SELECT max(stream_version) AS v FROM events WHERE stream_id = $1', [RETRACTIONS_STREAM]);
    if ((row?.v ?? 0) > state.version) fold(await readStream(deps.db, RETRACTIONS_STREAM));
  }

  async function all(): Promise<Map<string, RetractionNotice>> {
    await refresh();
    shipped ??= loadRetractionNotices(deps.dataRoot);
    const base = await shipped;
    state.all ??= new Map([...base, ...state.added]);
    return state.all;
  }

  return {
    notices: all,
    async addedDois() {
      await refresh();
      return [...state.added.keys()];
    },
    async exclusionFilter() {
      await refresh();
      return state.filter;
    },
    async load(files, actor, requestId) {
      if (files.length === 0) throw new Rejection('VALIDATION_ERROR', 'files must name at least one retraction list', { field: 'files' });
      const read = await Promise.all(files.map((f) => readRetractionFile(isAbsolute(f) ? f : resolve(deps.dataRoot, f), f)));
      const listed = new Map(read.flatMap((m) => [...m]));
      shipped ??= loadRetractionNotices(deps.dataRoot);
      const base = await shipped;
      const events = await runStreamCommand(deps.db, clock, RETRACTIONS_STREAM, actor, async (tx) => {
        const [row] = await tx.query<{ v: number | null }>('SELECT max(stream_version) AS v FROM events WHERE stream_id = $1', [RETRACTIONS_STREAM]);
        const version = row?.v ?? 0;
        if (version > state.version) fold(await readStream(tx, RETRACTIONS_STREAM));
        const notices = [...listed.values()].filter((n) => !base.has(n.doi) && !state.added.has(n.doi));
        return { version, events: [{ type: 'RetractionsLoaded', data: { files: [...files], listed: listed.size, newlyRetracted: notices.length, notices } }] };
      }, { requestId });
      fold(events);
      const e = events[0]!;
      if (e.type !== 'RetractionsLoaded') throw new Error('retractions load was not recorded');
      return { version: e.streamVersion, files: e.data.files, listed: e.data.listed, newlyRetracted: e.data.newlyRetracted, loadedAt: e.recordedAt };
    },
  };
}
