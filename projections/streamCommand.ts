// One command on one stream, the way every non-charge append runs: under the append lock, read what the decision
// needs, decide, append at the version read, and project inline, in one transaction; a conflict is decided again.
import type { Db, Queryable } from "../src/eventstore/db.js";
import {
  APPEND_LOCK_KEY,
  appendHeadColumns,
  appendHeadOf,
  batchHeadColumns,
  batchHeadOf,
  insertEventsPart,
  type BatchHeadRow,
  LOG_HEAD_COLUMNS,
  numberEvents,
  prepareAppend,
  type SqlPart,
} from "../src/eventstore/eventStore.js";
import { retryConflicts } from "../src/eventstore/conflictRetry.js";
import { groupCalls } from "../src/eventstore/groupCalls.js";
import {
  prefetchKeysFor,
  prefetchSubquery,
  projectInline,
  type PrefetchedRows,
  type PrefetchTouch,
} from "./sqlProjection.js";
import type { Actor, DomainEvent, StoredEvent } from "../src/domain/events.js";

interface StreamDecision {
  /** the stream's version the decision was made on (0: a new stream); 'any': the stream's one writer needs no check */
  version: number | "any";
  events: DomainEvent[];
}

/** Appends what `decide` returns (nothing when it returns no events) and returns the stored events. */
export function runStreamCommand(
  db: Db,
  now: () => Date,
  streamId: string,
  actor: Actor,
  decide: (tx: Queryable, at: Date) => Promise<StreamDecision>,
  options: {
    requestId?: string;
    /** a retried command with the same key appends nothing and returns the first one's events */
    idempotencyKey?: string;
  } = {},
): Promise<StoredEvent[]> {
  return retryConflicts(() =>
    db.transaction(
      async (tx) => {
        const at = now();
        const idempotency = options.idempotencyKey ? { idempotencyKey: options.idempotencyKey } : {};
        return appendDecided(tx, db, streamId, actor, options, at, await decide(tx, at), idempotency);
      },
      { advisoryLock: APPEND_LOCK_KEY },
    ),
  );
}

/** One stream's share of appendStreams: its events, appended once by their key, as one writer of the stream. */
export interface StreamAppend {
  streamId: string;
  actor: Actor;
  events: DomainEvent[];
  /** a key already in the log appends nothing (the first event carries it, the others `key#i`) */
  idempotencyKey: string;
  /** written in the same statement, and only when these events are */
  alsoWrite?: SqlPart;
}

/**
 * Many streams' appends under the append lock once: `decide` reads what it needs in the transaction and returns the
 * appends; the log head, the keys already used and the streams' versions come in one read, and the events (in the
 * order given) with their projection and every `alsoWrite` go in one statement. For a batch's many small commands (an
 * ingestion's alert runs), which one by one take the lock, and its round trips, as many times. Each stream has one
 * writer (no version check). Returns the events written, each append's own list: empty for one whose key was used.
 */
export function appendStreams(
  db: Db,
  now: () => Date,
  decide: (tx: Queryable, at: Date) => Promise<StreamAppend[]>,
): Promise<StoredEvent[][]> {
  return retryConflicts(() =>
    db.transaction(
      async (tx) => {
        const at = now();
        const appends = await decide(tx, at);
        if (appends.every((a) => a.events.length === 0)) return appends.map(() => []);
        const params: unknown[] = [];
        const param = (v: unknown) => (params.push(v), `$${params.length}`);
        const [row] = await tx.query<BatchHeadRow>(
          `SELECT ${LOG_HEAD_COLUMNS}, ${batchHeadColumns(
            appends.map((a) => a.idempotencyKey),
            [...new Set(appends.map((a) => a.streamId))],
            param,
          )}`,
          params,
        );
        const { log, used, versions } = batchHeadOf(row);
        const rows: unknown[][] = [];
        const also: SqlPart[] = [];
        const written = appends.map((a) => {
          if (a.events.length === 0 || used.has(a.idempotencyKey)) return [];
          used.add(a.idempotencyKey);
          const current = versions.get(a.streamId) ?? 0;
          const numbered = numberEvents(
            log,
            a.streamId,
            current,
            a.events,
            { actor: a.actor },
            at.toISOString(),
            a.idempotencyKey,
          );
          versions.set(a.streamId, current + a.events.length);
          rows.push(...numbered.rows);
          if (a.alsoWrite) also.push(a.alsoWrite);
          return numbered.events;
        });
        const events = written.flat();
        if (events.length > 0) await projectInline(tx, db.projectors, events, "proj_", [insertEventsPart(rows)], also);
        return written;
      },
      { advisoryLock: APPEND_LOCK_KEY },
    ),
  );
}

/** Appends of one group at most: well under PostgreSQL's 65,535 parameters at 10 an event. */
const MAX_GROUPED_APPENDS = 256;

const groups = new WeakMap<Db, (append: StreamAppend) => Promise<StoredEvent[]>>();

/**
 * One stream's append (as appendStreams takes it, with nothing to read first), grouped with the others this process
 * makes meanwhile: appends that arrive while a group commits go together in the next (groupCalls), so many runs that
 * each append when their own step ends (a webhook's answer) share the lock's few takings, and none waits for another's
 * step. Returns the events written (none when its key was used).
 */
export function appendGrouped(db: Db, now: () => Date, append: StreamAppend): Promise<StoredEvent[]> {
  let grouped = groups.get(db);
  if (!grouped) {
    grouped = groupCalls((appends: StreamAppend[]) => appendStreams(db, now, async () => appends), MAX_GROUPED_APPENDS);
    groups.set(db, grouped);
  }
  return grouped(append);
}

/** What a command reads before it decides, folded into the transaction's one read. */
interface CommandRead<Row> {
  /** select-list items of the decision's own state (each named with AS); `param` numbers the values */
  columns: (param: (value: unknown) => string, at: Date) => string;
  /** what the command's events will touch (organization, key, at): their projection rows are read with the state */
  touches: (at: Date) => PrefetchTouch[];
  /** the decision's state out of the row the columns selected */
  state: (row: Record<string, unknown>) => Row;
}

/**
 * runStreamCommand in fewer round trips: the decision's state, the append head and the projection rows the events
 * will touch come in one statement, and the events with their projection go in one more (with the BEGIN that takes the
 * append lock and the COMMIT, four in all where runStreamCommand takes six). For a command on a new stream whose
 * decision reads a few projection rows (the quota of a free request).
 */
export function runStreamCommandInOneRead<Row>(
  db: Db,
  now: () => Date,
  streamId: string,
  actor: Actor,
  read: CommandRead<Row>,
  decide: (state: Row, at: Date) => StreamDecision,
  options: { requestId?: string } = {},
): Promise<StoredEvent[]> {
  return retryConflicts(() =>
    db.transaction(
      async (tx) => {
        const at = now();
        const params: unknown[] = [];
        const param = (v: unknown) => (params.push(v), `$${params.length}`);
        const keys = prefetchKeysFor(read.touches(at));
        const [row] = await tx.query<Record<string, unknown>>(
          `SELECT ${read.columns(param, at)}, ${appendHeadColumns(streamId, undefined, param)},
            ${prefetchSubquery(db.projectors.tables, "proj_", keys, param)} AS prefetched`,
          params,
          true,
        );
        const prefetched: PrefetchedRows = { keys, rows: (row?.prefetched ?? []) as PrefetchedRows["rows"] };
        const decision = decide(read.state(row ?? {}), at);
        return appendDecided(tx, db, streamId, actor, options, at, decision, { head: appendHeadOf(row) }, prefetched);
      },
      { advisoryLock: APPEND_LOCK_KEY },
    ),
  );
}

/**
 * A decision's events appended at the version it read and projected inline, in the command's transaction (a retried
 * command with the same key gets the first one's events, appending nothing).
 */
async function appendDecided(
  tx: Queryable,
  db: Db,
  streamId: string,
  actor: Actor,
  options: { requestId?: string },
  at: Date,
  { version, events }: StreamDecision,
  append: { idempotencyKey?: string; head?: ReturnType<typeof appendHeadOf> },
  prefetched?: PrefetchedRows,
): Promise<StoredEvent[]> {
  if (events.length === 0) return [];
  const metadata = { actor, ...(options.requestId ? { requestId: options.requestId } : {}) };
  const prepared = await prepareAppend(tx, streamId, version, events, metadata, { now: at, ...append });
  if (prepared.duplicate) return prepared.events;
  await projectInline(tx, db.projectors, prepared.events, "proj_", [prepared.insert], [], prefetched);
  return prepared.events;
}
