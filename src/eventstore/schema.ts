// Creates the event log, the live projection tables and the operational tables (query cache, rate windows).
import type { Db, Queryable } from './db.js';
import { EVENTS_DDL } from './eventStore.js';
import { COLUMNS, PROJECTION_TABLES, projectionDdl, type ProjectionTable } from '../../projections/tables.js';
import { replayProjections } from '../../projections/replay.js';
import { Rejection } from '../domain/rejection.js';

const OPERATIONAL_DDL = `
CREATE TABLE IF NOT EXISTS query_records (
  query_id        TEXT PRIMARY KEY,
  org_id          TEXT NOT NULL,
  key_id          TEXT NOT NULL,
  kind            TEXT NOT NULL,
  payload_version INTEGER NOT NULL,
  created_at      TIMESTAMPTZ NOT NULL,
  payload         JSONB NOT NULL
);
CREATE INDEX IF NOT EXISTS query_records_created ON query_records (created_at);
-- the payload is written deflated by the service (src/search/queryCache.ts), which costs the database neither a JSONB
-- parse nor its own compression per paid search; records written before keep their JSONB payload until they expire
ALTER TABLE query_records ADD COLUMN IF NOT EXISTS payload_deflated BYTEA;
ALTER TABLE query_records ALTER COLUMN payload DROP NOT NULL;
ALTER TABLE query_records ALTER COLUMN payload_deflated SET STORAGE EXTERNAL;
-- set with the refund of an assisted answer that never reached its caller (written with its RefundIssued event)
ALTER TABLE query_records ADD COLUMN IF NOT EXISTS refunded_undelivered_at TIMESTAMPTZ;
-- the query as asked, beside the deflated payload, so the dashboard's recent queries read it without inflating rows
ALTER TABLE query_records ADD COLUMN IF NOT EXISTS query_text TEXT;
CREATE TABLE IF NOT EXISTS preview_idempotency (
  org_id       TEXT NOT NULL,
  idem_key     TEXT NOT NULL,
  body_hash    TEXT NOT NULL,
  query_id     TEXT,
  created_at   TIMESTAMPTZ NOT NULL,
  PRIMARY KEY (org_id, idem_key)
);
CREATE TABLE IF NOT EXISTS rate_windows (
  scope        TEXT NOT NULL,
  window_start BIGINT NOT NULL,
  count        INTEGER NOT NULL,
  PRIMARY KEY (scope, window_start)
);
`;

/** Serializes migrations: "CREATE ... IF NOT EXISTS" is not safe against itself in another session. */
const MIGRATE_LOCK_KEY = 774_211_003;

/**
 * Creates or updates every table. On PostgreSQL, processes starting together on a fresh database (the scaled shape's
 * API processes and worker) take turns under an advisory lock, each in one transaction, so none sees another's
 * half-made catalogue entries (a duplicate pg_type row otherwise). PGlite has one process and one connection.
 */
export async function migrate(db: Db): Promise<void> {
  let added: ProjectionTable[] = [];
  if (db.kind === 'postgres') {
    await db.transaction(
      async (tx) => {
        await tx.query(EVENTS_DDL);
        added = await missingTables(tx);
        // a simple-protocol query (no parameters) may hold several statements
        for (const ddl of [projectionDdl('proj_'), OPERATIONAL_DDL]) await tx.query(ddl);
      },
      { advisoryLock: MIGRATE_LOCK_KEY },
    );
  } else {
    await db.exec(EVENTS_DDL);
    added = await missingTables(db);
    await db.exec(projectionDdl('proj_'));
    await db.exec(OPERATIONAL_DDL);
  }
  // on both stores: a table an upgrade added is filled from the log (the early return of the PostgreSQL path skipped it)
  if (added.length > 0 && added.length < PROJECTION_TABLES.length) await fillAddedProjections(db, added);
}

/** The projection tables this store does not have yet. */
async function missingTables(db: Queryable): Promise<ProjectionTable[]> {
  const rows = await db.query<{ name: string }>(`SELECT name FROM unnest($1::text[]) AS name WHERE to_regclass(name) IS NULL`, [PROJECTION_TABLES.map((t) => `proj_${t}`)]);
  const missing = new Set(rows.map((r) => r.name));
  return PROJECTION_TABLES.filter((t) => missing.has(`proj_${t}`));
}

/**
 * A projection table added by an upgrade starts empty, while the log may already hold events it projects (the keys'
 * last use): it is filled from the same fold replay runs, so replay keeps comparing equal. Rows the live projector
 * wrote since the table appeared are newer and stay. Another process filling it at the same time makes this a no-op.
 */
async function fillAddedProjections(db: Db, tables: ProjectionTable[]): Promise<void> {
  const [any] = await db.query<{ n: number }>('SELECT count(*)::int AS n FROM (SELECT 1 FROM events LIMIT 1) e');
  if (!any || any.n === 0) return;
  try {
    await replayProjections(db);
  } catch (err) {
    if (err instanceof Rejection && err.code === 'CONFLICT') return;
    throw err;
  }
  for (const t of tables) {
    const cols = COLUMNS[t].join(', ');
    await db.query(`INSERT INTO proj_${t} (${cols}) SELECT ${cols} FROM replay_${t} ON CONFLICT DO NOTHING`);
  }
}
