// Reads and writes projection rows in SQL under a table prefix; the inline projector of money-moving appends.
import type { Queryable } from '../src/eventstore/db.js';
import type { StoredEvent } from '../src/domain/events.js';
import { project, type Change, type ProjectionReader } from './project.js';
import { COLUMNS, PRIMARY_KEYS, type ProjectionTable, type RowOf, type TablePrefix } from './tables.js';

/** bigint columns are selected as text so money never passes through a JS number */
const BIGINT_COLUMNS = new Set(['balance_micros', 'credited_micros', 'charged_micros', 'refunded_micros', 'amount_micros', 'balance_after_micros', 'spending_cap_micros', 'spent_micros', 'tokens', 'position', 'unlocked_micros', 'price_per_1000_micros']);
const JSON_COLUMNS = new Set(['limits', 'collections']);

export function selectList(table: ProjectionTable): string {
  return COLUMNS[table].map((c) => (BIGINT_COLUMNS.has(c) ? `${c}::text AS ${c}` : c === 'time' ? `to_char(time AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') AS time` : c)).join(', ');
}

export function normalizeRow<T extends ProjectionTable>(table: T, raw: Record<string, unknown>): RowOf[T] {
  const row: Record<string, unknown> = { ...raw };
  if (table === 'ledger' || table === 'unlocks' || table === 'price_overrides') row.position = Number(row.position);
  return row as unknown as RowOf[T];
}

export function sqlReader(tx: Queryable, p: TablePrefix): ProjectionReader {
  const one = async <T extends ProjectionTable>(table: T, where: string, params: unknown[]) => {
    const rows = await tx.query(`SELECT ${selectList(table)} FROM ${p}${table} WHERE ${where}`, params);
    return rows[0] ? normalizeRow(table, rows[0]) : undefined;
  };
  return {
    organization: (orgId) => one('organizations', 'org_id = $1', [orgId]),
    balance: (orgId) => one('balances', 'org_id = $1', [orgId]),
    apiKey: (keyId) => one('api_keys', 'key_id = $1', [keyId]),
    usage: (orgId, period) => one('usage', 'org_id = $1 AND period = $2', [orgId, period]),
    collectionUsage: (orgId, day, collection) => one('collection_usage', 'org_id = $1 AND day = $2 AND collection = $3', [orgId, day, collection]),
  };
}

function sqlValue(column: string, value: unknown): unknown {
  if (value === null || value === undefined) return null;
  if (JSON_COLUMNS.has(column)) return JSON.stringify(value);
  return value;
}

export function upsertSql(p: TablePrefix, table: ProjectionTable, rowCount: number): string {
  const cols = COLUMNS[table];
  const pk = PRIMARY_KEYS[table];
  const values: string[] = [];
  for (let r = 0; r < rowCount; r++) {
    values.push(`(${cols.map((_, i) => `$${r * cols.length + i + 1}`).join(', ')})`);
  }
  const updates = cols.filter((c) => !pk.includes(c)).map((c) => `${c} = EXCLUDED.${c}`);
  return `INSERT INTO ${p}${table} (${cols.join(', ')}) VALUES ${values.join(', ')}
    ON CONFLICT (${pk.join(', ')}) DO ${updates.length ? `UPDATE SET ${updates.join(', ')}` : 'NOTHING'}`;
}

export function rowParams(table: ProjectionTable, row: object): unknown[] {
  const r = row as Record<string, unknown>;
  return COLUMNS[table].map((c) => sqlValue(c, r[c]));
}

export async function writeChange(tx: Queryable, p: TablePrefix, change: Change): Promise<void> {
  await tx.query(upsertSql(p, change.table, 1), rowParams(change.table, change.row));
}

/** Projects events into the live tables inside the transaction that appended them. */
export async function projectInline(tx: Queryable, events: StoredEvent[], p: TablePrefix = 'proj_'): Promise<void> {
  const reader = sqlReader(tx, p);
  for (const e of events) {
    for (const change of await project(e, reader)) await writeChange(tx, p, change);
  }
}
