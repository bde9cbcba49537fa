// Replay: rebuilds every projection from position 0 into fresh tables and proves it equals the live state.
import { createHash } from 'node:crypto';
import type { Db, Queryable } from '../src/eventstore/db.js';
import { readAll, canonicalJson } from '../src/eventstore/eventStore.js';
import { project, type ProjectionReader } from './project.js';
import { upsertSql, rowParams, selectList } from './sqlProjection.js';
import { COLUMNS, dropProjectionDdl, PRIMARY_KEYS, PROJECTION_TABLES, projectionDdl, type ProjectionTable, type RowOf, type TablePrefix } from './tables.js';

type MemoryTables = { [T in ProjectionTable]: Map<string, RowOf[T]> };

const pkOf = (table: ProjectionTable, row: object) =>
  PRIMARY_KEYS[table].map((c) => String((row as Record<string, unknown>)[c])).join('\u0000');

function memoryReader(m: MemoryTables): ProjectionReader {
  return {
    organization: async (orgId) => m.organizations.get(orgId),
    balance: async (orgId) => m.balances.get(orgId),
    apiKey: async (keyId) => m.api_keys.get(keyId),
    usage: async (orgId, period) => m.usage.get(`${orgId}\u0000${period}`),
    collectionUsage: async (orgId, day, collection) => m.collection_usage.get(`${orgId}\u0000${day}\u0000${collection}`),
  };
}

export interface TableDigest {
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
  tables: TableDigest[];
  equal: boolean;
}

async function bulkInsert(tx: Queryable, p: TablePrefix, table: ProjectionTable, rows: object[]): Promise<void> {
  const batch = 500;
  for (let i = 0; i < rows.length; i += batch) {
    const slice = rows.slice(i, i + batch);
    await tx.query(upsertSql(p, table, slice.length), slice.flatMap((r) => rowParams(table, r)));
  }
}

/** Digest of a projection table: sha256 over its rows in primary-key order, each as canonical JSON. */
export async function tableDigest(db: Queryable, p: TablePrefix, table: ProjectionTable): Promise<{ rows: number; digest: string }> {
  const rows = await db.query(`SELECT ${selectList(table)} FROM ${p}${table} ORDER BY ${PRIMARY_KEYS[table].map((c) => `${p}${table}.${c}`).join(', ')}`);
  const h = createHash('sha256');
  for (const r of rows) h.update(canonicalJson(r)).update('\n');
  return { rows: rows.length, digest: h.digest('hex') };
}

/** Folds the whole log in memory with the same projection logic as the inline projector, then writes replay_* tables. */
export async function replayProjections(db: Db): Promise<ReplayReport> {
  const started = performance.now();
  const mem = Object.fromEntries(PROJECTION_TABLES.map((t) => [t, new Map()])) as MemoryTables;
  const reader = memoryReader(mem);
  let events = 0;
  for await (const page of readAll(db)) {
    for (const e of page) {
      for (const change of await project(e, reader)) {
        (mem[change.table] as Map<string, object>).set(pkOf(change.table, change.row), change.row);
      }
      events += 1;
    }
  }
  await db.exec(dropProjectionDdl('replay_'));
  await db.exec(projectionDdl('replay_'));
  await db.transaction(async (tx) => {
    for (const t of PROJECTION_TABLES) await bulkInsert(tx, 'replay_', t, [...mem[t].values()]);
  });
  const seconds = (performance.now() - started) / 1000;
  const tables: TableDigest[] = [];
  for (const t of PROJECTION_TABLES) {
    const live = await tableDigest(db, 'proj_', t);
    const rebuilt = await tableDigest(db, 'replay_', t);
    tables.push({ table: t, rows: rebuilt.rows, live: live.digest, rebuilt: rebuilt.digest, equal: live.digest === rebuilt.digest && live.rows === rebuilt.rows });
  }
  return { events, seconds, eventsPerSecond: seconds > 0 ? Math.round(events / seconds) : events, tables, equal: tables.every((t) => t.equal) };
}

/** Replaces the live projections with the rebuilt ones (operator repair after a projection bug). */
export async function promoteReplay(db: Db): Promise<void> {
  await db.transaction(async (tx) => {
    for (const t of PROJECTION_TABLES) {
      await tx.query(`DELETE FROM proj_${t}`);
      // explicit columns: a live table that gained columns by ALTER has them in another order
      const cols = COLUMNS[t].join(', ');
      await tx.query(`INSERT INTO proj_${t} (${cols}) SELECT ${cols} FROM replay_${t}`);
    }
  });
}
