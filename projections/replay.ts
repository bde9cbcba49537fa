// Replay: rebuilds every projection from position 0 into fresh tables and proves it equals the live state.
import { createHash } from "node:crypto";
import type { Db, Queryable } from "../src/eventstore/db.js";
import { readAllForReplay, canonicalJson } from "../src/eventstore/eventStore.js";
import { project } from "./project.js";
import { memoryReader, memoryTables, putRow } from "./memoryTables.js";
import type { ProjectableEvent } from "../src/domain/events.js";
import { selectList } from "./sqlProjection.js";
import {
  columnsOf,
  scratchProjectionDdl,
  tableList,
  type ProjectionTable,
  type TablePrefix,
  type TableSpec,
} from "./tables.js";
import { Rejection } from "../src/domain/rejection.js";

interface TableDigest {
  table: ProjectionTable;
  rows: number;
  live: string;
  rebuilt: string;
  equal: boolean;
}

export interface ReplayReport {
  events: number;
  seconds: number;
  eventsPerSecond: number;
  /** where the time went: waiting for pages, folding in memory, writing the rebuilt tables */
  phases: { readSeconds: number; foldSeconds: number; writeSeconds: number };
  tables: TableDigest[];
  equal: boolean;
}

/**
 * Writes rows into a fresh table: 50,000 rows per statement sent as one JSON document that the server turns into rows
 * (json_to_recordset), so neither side formats or parses parameters row by row.
 */
async function bulkInsert(tx: Queryable, p: TablePrefix, spec: TableSpec, rows: object[]): Promise<void> {
  const { name: table, columns } = spec;
  const cols = columnsOf(spec);
  const batch = 50_000;
  for (let i = 0; i < rows.length; i += batch) {
    const slice = rows.slice(i, i + batch);
    await tx.query(
      `INSERT INTO ${p}${table} (${cols.join(", ")}) SELECT ${cols.join(", ")} FROM ` +
        `json_to_recordset($1::json) AS r(${cols.map((c) => `${c} ${columns[c]}`).join(", ")})`,
      [JSON.stringify(slice)],
    );
  }
}

/** Digest of a projection table: sha256 over its rows in primary-key order, each as canonical JSON. */
async function tableDigest(db: Queryable, p: TablePrefix, spec: TableSpec): Promise<{ rows: number; digest: string }> {
  const table = spec.name;
  const rows = await db.query(
    `SELECT ${selectList(spec)} FROM ${p}${table} ORDER BY ` +
      `${spec.primaryKey.map((c) => `${p}${table}.${c}`).join(", ")}`,
  );
  const h = createHash("sha256");
  for (const r of rows) h.update(canonicalJson(r)).update("\n");
  return { rows: rows.length, digest: h.digest("hex") };
}

/**
 * Tables whose rows are only ever inserted, never changed by a later event (a ledger entry, an unlocked row): replay
 * streams them to the database while it folds, instead of holding them until the end.
 */
const APPEND_ONLY: ReadonlySet<ProjectionTable> = new Set(["ledger", "unlocks", "webhook_attempts"]);
const STREAM_BATCH = 20_000;

/** Held (transaction-level) by the one replay or promotion running against a PostgreSQL database. */
const REPLAY_LOCK_KEY = 774_211_002;
/** Stores this process is replaying or promoting on: the lock of the embedded store, which admits one process. */
const replaying = new WeakSet<Db>();

/**
 * Runs `fn` as the only replay or promotion on the store, or refuses with 409 CONFLICT at once. Replays share the
 * replay_* scratch tables: a second one would empty and fill them under the first, and both would report a false
 * divergence. On PostgreSQL a transaction-level advisory lock, held on one connection while `fn` runs, keeps out
 * the replays of other processes sharing the database; the in-process mark keeps out this process's own.
 */
async function exclusively<T>(db: Db, fn: () => Promise<T>): Promise<T> {
  const busy = () =>
    new Rejection(
      "CONFLICT",
      "a replay of this event store is already running; wait for its report, then try again (nothing was changed)",
    );
  if (replaying.has(db)) throw busy();
  replaying.add(db);
  try {
    if (db.kind === "pglite") return await fn();
    return await db.transaction(async (tx) => {
      const [lock] = await tx.query<{ taken: boolean }>("SELECT pg_try_advisory_xact_lock($1) AS taken", [
        REPLAY_LOCK_KEY,
      ]);
      if (!lock?.taken) throw busy();
      return fn();
    });
  } finally {
    replaying.delete(db);
  }
}

/**
 * Folds the whole log with the same projection logic as the inline projector into replay_* tables: the next page is
 * read while one is folded, append-only rows are written while folding goes on, the rest is written at the end.
 */
export function replayProjections(db: Db): Promise<ReplayReport> {
  return exclusively(db, () => rebuild(db));
}

async function rebuild(db: Db): Promise<ReplayReport> {
  const started = performance.now();
  const { tables } = db.projectors;
  await db.exec(scratchProjectionDdl(tables));
  const mem = memoryTables(tables);
  const reader = memoryReader(mem);
  const pending = new Map<ProjectionTable, object[]>([...APPEND_ONLY].map((t) => [t, []]));
  let writing: Promise<void> = Promise.resolve();
  const flush = (table: ProjectionTable) => {
    const rows = pending.get(table)!;
    if (rows.length === 0) return;
    pending.set(table, []);
    // one write at a time, in order; an error surfaces at the final await
    writing = writing.then(() => bulkInsert(db, "replay_", tables[table], rows));
    // handled at the final await; this keeps a failure from counting as unhandled meanwhile
    writing.catch(() => undefined);
  };
  let events = 0;
  let foldMs = 0;
  let lastPosition = 0;
  const fold = (page: ProjectableEvent[]) => {
    const t0 = performance.now();
    for (const e of page) {
      for (const change of project(db.projectors, e, reader)) {
        const buffered = pending.get(change.table);
        if (buffered) buffered.push(change.row);
        else putRow(mem, tables[change.table], change.row);
      }
      lastPosition = e.position;
      events += 1;
    }
    foldMs += performance.now() - t0;
  };
  // most of the log is folded while appends go on
  for await (const page of readAllForReplay(db)) {
    fold(page);
    for (const t of APPEND_ONLY) if (pending.get(t)!.length >= STREAM_BATCH) flush(t);
  }
  await writing;
  const folded = performance.now();
  // then the tail, the writes and both digests in one snapshot: the live projections and the log are compared at one
  // cut, so appends that land during a replay cannot show as a divergence. An append writes its events and their
  // projection rows in one statement or transaction, so any snapshot holds both or neither; a lock would not do, as
  // a charge batch written on its known head takes no lock (a moved head fails it on the events' key instead)
  const compared = await db.transaction(
    async (tx) => {
      for await (const page of readAllForReplay(tx, 20_000, lastPosition)) fold(page);
      for (const spec of tableList(tables)) {
        const t = spec.name;
        await bulkInsert(tx, "replay_", spec, APPEND_ONLY.has(t) ? pending.get(t)! : [...mem[t].values()]);
      }
      const digests: TableDigest[] = [];
      for (const spec of tableList(tables)) {
        const live = await tableDigest(tx, "proj_", spec);
        const rebuilt = await tableDigest(tx, "replay_", spec);
        digests.push({
          table: spec.name,
          rows: rebuilt.rows,
          live: live.digest,
          rebuilt: rebuilt.digest,
          equal: live.digest === rebuilt.digest && live.rows === rebuilt.rows,
        });
      }
      return digests;
    },
    { oneSnapshot: true },
  );
  const seconds = (performance.now() - started) / 1000;
  const phases = {
    readSeconds: (folded - started - foldMs) / 1000,
    foldSeconds: foldMs / 1000,
    writeSeconds: (performance.now() - folded) / 1000,
  };
  return {
    events,
    seconds,
    eventsPerSecond: seconds > 0 ? Math.round(events / seconds) : events,
    phases,
    tables: compared,
    equal: compared.every((t) => t.equal),
  };
}

/**
 * Replaces the live projections with the rebuilt ones (operator repair after a projection bug); never under a running
 * replay.
 */
export function promoteReplay(db: Db): Promise<void> {
  return exclusively(db, () =>
    db.transaction(async (tx) => {
      for (const spec of tableList(db.projectors.tables)) {
        const t = spec.name;
        await tx.query(`DELETE FROM proj_${t}`);
        // explicit columns: a live table that gained columns by ALTER has them in another order
        const cols = columnsOf(spec).join(", ");
        await tx.query(`INSERT INTO proj_${t} (${cols}) SELECT ${cols} FROM replay_${t}`);
      }
    }),
  );
}
