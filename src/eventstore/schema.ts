// Creates the event log, the read models' tables (the projections, handed in by the composition root) and the
// operational tables (query cache, rate windows).
import type { Db, Queryable } from './db.js';
import { EVENTS_DDL } from './eventStore.js';

/** The read models a store keeps beside its log: what migrate needs of them (projections/readModels.ts). */
export interface ReadModels {
  /** every live table, by name */
  tables: readonly string[];
  /** creates the live tables that do not exist yet (a simple-protocol script: no parameters, several statements) */
  ddl: string;
  /** fills tables an upgrade added from the events already in the log; rows written since they appeared stay */
  fillAdded(db: Db, tables: string[]): Promise<void>;
}

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
-- the payload is written deflated by the service (src/usecases/search/queryCache.ts), which costs the database neither a JSONB
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
-- The document manifest of incremental ingestion (src/ingest/manifest.ts): per engine index, each indexed document's
-- fingerprint, chunk count and journal identity. Operational state beside the index, written with each committed
-- batch; NOT an event-sourced read model (no event carries it, replay neither rebuilds nor compares it).
CREATE TABLE IF NOT EXISTS ingest_manifest (
  index_key   TEXT NOT NULL,
  doc_id      TEXT NOT NULL,
  fingerprint TEXT NOT NULL,
  chunks      INTEGER NOT NULL,
  journal     JSONB NOT NULL,
  PRIMARY KEY (index_key, doc_id)
);
-- The works of each engine index (src/ingest/works.ts): identifiers and bibliographic fields per document, and the
-- references each cites (the citation graph's edges), written in the manifest's transaction; operational like it.
CREATE TABLE IF NOT EXISTS works (
  index_key     TEXT NOT NULL,
  doc_id        TEXT NOT NULL,
  doi           TEXT,
  pmid          TEXT,
  pmcid         TEXT,
  openalex      TEXT,
  searchable    BOOLEAN NOT NULL,
  fields        JSONB NOT NULL,
  refs_recorded INTEGER,
  PRIMARY KEY (index_key, doc_id)
);
CREATE INDEX IF NOT EXISTS works_doi ON works (doi);
CREATE INDEX IF NOT EXISTS works_pmid ON works (pmid);
CREATE INDEX IF NOT EXISTS works_pmcid ON works (pmcid);
CREATE INDEX IF NOT EXISTS works_openalex ON works (openalex);
CREATE INDEX IF NOT EXISTS works_doc_id ON works (doc_id);
CREATE TABLE IF NOT EXISTS work_references (
  index_key TEXT NOT NULL,
  doc_id    TEXT NOT NULL,
  position  INTEGER NOT NULL,
  doi       TEXT,
  pmid      TEXT,
  openalex  TEXT,
  PRIMARY KEY (index_key, doc_id, position)
);
CREATE INDEX IF NOT EXISTS work_references_doi ON work_references (doi);
CREATE INDEX IF NOT EXISTS work_references_pmid ON work_references (pmid);
CREATE INDEX IF NOT EXISTS work_references_openalex ON work_references (openalex);
-- What each committed batch of an ingestion did, written in the manifest's transaction: a retried batch answers these.
CREATE TABLE IF NOT EXISTS ingest_batches (
  ingestion_id TEXT NOT NULL,
  batch        INTEGER NOT NULL,
  counts       JSONB NOT NULL,
  PRIMARY KEY (ingestion_id, batch)
);
`;

/** Serializes migrations: "CREATE ... IF NOT EXISTS" is not safe against itself in another session. */
const MIGRATE_LOCK_KEY = 774_211_003;

/**
 * Creates or updates every table. On PostgreSQL, processes starting together on a fresh database (the scaled shape's
 * API processes and worker) take turns under an advisory lock, each in one transaction, so none sees another's
 * half-made catalogue entries (a duplicate pg_type row otherwise). PGlite has one process and one connection.
 */
export async function migrate(db: Db, readModels: ReadModels): Promise<void> {
  let added: string[] = [];
  if (db.kind === 'postgres') {
    await db.transaction(
      async (tx) => {
        await tx.query(EVENTS_DDL);
        added = await missingTables(tx, readModels.tables);
        // a simple-protocol query (no parameters) may hold several statements
        for (const ddl of [readModels.ddl, OPERATIONAL_DDL]) await tx.query(ddl);
      },
      { advisoryLock: MIGRATE_LOCK_KEY },
    );
  } else {
    await db.exec(EVENTS_DDL);
    added = await missingTables(db, readModels.tables);
    await db.exec(readModels.ddl);
    await db.exec(OPERATIONAL_DDL);
  }
  // on both stores: a table an upgrade added is filled from the log (the early return of the PostgreSQL path skipped it)
  if (added.length > 0 && added.length < readModels.tables.length) await readModels.fillAdded(db, added);
}

/** The tables of `tables` this store does not have yet. */
async function missingTables(db: Queryable, tables: readonly string[]): Promise<string[]> {
  const rows = await db.query<{ name: string }>(`SELECT name FROM unnest($1::text[]) AS name WHERE to_regclass(name) IS NULL`, [tables]);
  const missing = new Set(rows.map((r) => r.name));
  return tables.filter((t) => missing.has(t));
}
