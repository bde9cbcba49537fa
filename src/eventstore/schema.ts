// Creates the event log, the read models' tables (the projections, handed in by the composition root) and the
// operational tables (query cache, rate windows).
import { createHash } from "node:crypto";
import { Rejection } from "../domain/rejection.js";
import { pgErrorCode, type Db, type Queryable } from "./db.js";
import { EVENTS_DDL } from "./eventStore.js";

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
-- the payload is written deflated by the service (src/usecases/search/queryCache.ts), which costs the database
-- neither a JSONB parse nor its own compression per paid search; records written before keep their JSONB payload
-- until they expire
ALTER TABLE query_records ADD COLUMN IF NOT EXISTS payload_deflated BYTEA;
ALTER TABLE query_records ALTER COLUMN payload DROP NOT NULL;
ALTER TABLE query_records ALTER COLUMN payload_deflated SET STORAGE EXTERNAL;
-- set with the refund of an assisted answer that never reached its caller (written with its RefundIssued event)
ALTER TABLE query_records ADD COLUMN IF NOT EXISTS refunded_undelivered_at TIMESTAMPTZ;
-- the query as asked, beside the deflated payload, so the dashboard's recent queries read it without inflating rows
ALTER TABLE query_records ADD COLUMN IF NOT EXISTS query_text TEXT;
-- the rows of a sandbox key's synthetic preview unlocked for free: kept with the record, never in the event log or
-- ledger
ALTER TABLE query_records ADD COLUMN IF NOT EXISTS sandbox_unlocked TEXT[];
-- the dashboard's recent queries list an organization's previews, newest first
CREATE INDEX IF NOT EXISTS query_records_org ON query_records (org_id, created_at);
-- an alert's query (by its digest) as an embedding path embedded it once: the runs after an ingestion skip the model
-- (derived data, made again when missing)
CREATE TABLE IF NOT EXISTS alert_query_vectors (
  model TEXT NOT NULL, query_sha256 TEXT NOT NULL, vector BYTEA NOT NULL, PRIMARY KEY (model, query_sha256));
-- the best engine score of an alert's whole list in each physical collection, as its last whole search read it (at):
-- a run within the works new to it reads their relevance against it (src/usecases/alerts/alertListBest.ts; derived
-- data, read again when missing or a day old)
CREATE TABLE IF NOT EXISTS alert_list_best (
  alert_id TEXT NOT NULL, collection TEXT NOT NULL, best DOUBLE PRECISION NOT NULL, at TIMESTAMPTZ NOT NULL,
  PRIMARY KEY (alert_id, collection));
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
-- what each work's own source record says of its integrity (src/domain/integrity.ts), and whether that flags it
-- retracted (the few rows a search's exclusion of works retracted in another collection reads)
ALTER TABLE works ADD COLUMN IF NOT EXISTS notices JSONB NOT NULL DEFAULT '[]'::jsonb;
ALTER TABLE works ADD COLUMN IF NOT EXISTS retracted BOOLEAN NOT NULL DEFAULT false;
CREATE INDEX IF NOT EXISTS works_retracted ON works (doi) WHERE retracted;
CREATE TABLE IF NOT EXISTS work_references (
  index_key TEXT NOT NULL,
  doc_id    TEXT NOT NULL,
  position  INTEGER NOT NULL,
  doi       TEXT,
  pmid      TEXT,
  openalex  TEXT,
  PRIMARY KEY (index_key, doc_id, position)
);
-- What a cited-by list needs of each citing document, kept on its edges (the edge is the citing document's: written,
-- replaced and deleted with it, so they stay its own): its publication date ('' when it has none) and key (OpenAlex
-- id, else DOI, else PMID, else doc_id), the list's order; its ids, which group its copies in other collections.
-- Filled from the works table where a store predates them (only edges not filled yet).
ALTER TABLE work_references ADD COLUMN IF NOT EXISTS citing_date TEXT COLLATE "C";
ALTER TABLE work_references ADD COLUMN IF NOT EXISTS citing_key TEXT COLLATE "C";
ALTER TABLE work_references ADD COLUMN IF NOT EXISTS citing_doi TEXT;
ALTER TABLE work_references ADD COLUMN IF NOT EXISTS citing_pmid TEXT;
ALTER TABLE work_references ADD COLUMN IF NOT EXISTS citing_openalex TEXT;
DROP INDEX IF EXISTS work_references_cited_openalex;
DROP INDEX IF EXISTS work_references_cited_doi;
DROP INDEX IF EXISTS work_references_cited_pmid;
UPDATE work_references e SET citing_date = COALESCE(w.fields->>'publication_date', ''),
    citing_key = COALESCE(w.openalex, w.doi, w.pmid, w.doc_id), citing_doi = w.doi, citing_pmid = w.pmid,
    citing_openalex = w.openalex
  FROM works w WHERE e.citing_key IS NULL AND w.index_key = e.index_key AND w.doc_id = e.doc_id;
-- A work's citing documents (cited-by pages, citedByHeld) are read by the cited id, in the list's order (newest
-- first, then by key): a page is a range of one index (its 20 entries after the cursor's position), and a count reads
-- the range without the edge rows (an index-only scan); the DOI and PMID ones only where the edge has one (OpenAlex
-- records its references by OpenAlex id alone). Measured at a million works in docs/measurements.md ("Works at a
-- million").
CREATE INDEX IF NOT EXISTS work_references_citing_openalex
  ON work_references (openalex, citing_date DESC, citing_key, index_key, doc_id)
  INCLUDE (citing_doi, citing_pmid, citing_openalex) WHERE openalex IS NOT NULL;
CREATE INDEX IF NOT EXISTS work_references_citing_doi
  ON work_references (doi, citing_date DESC, citing_key, index_key, doc_id)
  INCLUDE (citing_doi, citing_pmid, citing_openalex) WHERE doi IS NOT NULL;
CREATE INDEX IF NOT EXISTS work_references_citing_pmid
  ON work_references (pmid, citing_date DESC, citing_key, index_key, doc_id)
  INCLUDE (citing_doi, citing_pmid, citing_openalex) WHERE pmid IS NOT NULL;
DROP INDEX IF EXISTS work_references_doi;
DROP INDEX IF EXISTS work_references_pmid;
DROP INDEX IF EXISTS work_references_openalex;
-- Which indexes hold the work each edge cites: one row per edge and index holding a work with any of its ids, kept by
-- src/ingest/works.ts whenever works or edges are written or removed (both ends: the citing work's edges, and the
-- cited work arriving, leaving or changing ids), so a work's count of held references (referencesHeld, in every works
-- answer) is a range read of its own rows instead of a works lookup per cited id. Filled from the works table once
-- where a store predates it (schema_fills records that it was; a rerun skips it), then its unique index built.
CREATE TABLE IF NOT EXISTS work_reference_holds (
  index_key TEXT NOT NULL,
  doc_id    TEXT NOT NULL,
  position  INTEGER NOT NULL,
  held_key  TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS schema_fills (name TEXT PRIMARY KEY);
INSERT INTO work_reference_holds (index_key, doc_id, position, held_key)
  SELECT e.index_key, e.doc_id, e.position, w.index_key FROM work_references e JOIN works w ON w.openalex = e.openalex
  WHERE e.openalex IS NOT NULL AND NOT EXISTS (SELECT 1 FROM schema_fills WHERE name = 'work_reference_holds')
  UNION SELECT e.index_key, e.doc_id, e.position, w.index_key FROM work_references e JOIN works w ON w.doi = e.doi
  WHERE e.doi IS NOT NULL AND NOT EXISTS (SELECT 1 FROM schema_fills WHERE name = 'work_reference_holds')
  UNION SELECT e.index_key, e.doc_id, e.position, w.index_key FROM work_references e JOIN works w ON w.pmid = e.pmid
  WHERE e.pmid IS NOT NULL AND NOT EXISTS (SELECT 1 FROM schema_fills WHERE name = 'work_reference_holds');
INSERT INTO schema_fills (name) VALUES ('work_reference_holds') ON CONFLICT DO NOTHING;
CREATE UNIQUE INDEX IF NOT EXISTS work_reference_holds_edge
  ON work_reference_holds (index_key, doc_id, position, held_key);
-- Each work's authorships (src/ingest/works.ts writes them with the work; src/usecases/authors reads them): an author
-- is found by OpenAlex id or ORCID, and by the folded name (accents and case removed) when searched for by name.
CREATE TABLE IF NOT EXISTS work_authors (
  index_key TEXT NOT NULL,
  doc_id    TEXT NOT NULL,
  position  INTEGER NOT NULL,
  name      TEXT NOT NULL,
  folded    TEXT NOT NULL,
  author_id TEXT,
  orcid     TEXT,
  PRIMARY KEY (index_key, doc_id, position)
);
CREATE INDEX IF NOT EXISTS work_authors_author_id ON work_authors (author_id);
CREATE INDEX IF NOT EXISTS work_authors_orcid ON work_authors (orcid);
-- The words of each identified authorship's folded name (an OpenAlex id or an ORCID: the ones a name search finds),
-- so GET /authors?name= reads the authorships whose name has a word starting with the query's longest word from an
-- index (byte order, "C": a prefix is a range) instead of scanning every name with LIKE. Filled from work_authors
-- where a store predates it (each authorship once: those already in it are skipped).
CREATE TABLE IF NOT EXISTS work_author_words (
  index_key TEXT NOT NULL,
  doc_id    TEXT NOT NULL,
  position  INTEGER NOT NULL,
  word      TEXT COLLATE "C" NOT NULL,
  PRIMARY KEY (index_key, doc_id, position, word)
);
CREATE INDEX IF NOT EXISTS work_author_words_word ON work_author_words (word, index_key);
INSERT INTO work_author_words (index_key, doc_id, position, word)
  SELECT DISTINCT a.index_key, a.doc_id, a.position, w.word
  FROM work_authors a, unnest(string_to_array(a.folded, ' ')) AS w(word)
  WHERE w.word <> '' AND (a.author_id IS NOT NULL OR a.orcid IS NOT NULL)
    AND NOT EXISTS (SELECT 1 FROM work_author_words x
                    WHERE x.index_key = a.index_key AND x.doc_id = a.doc_id AND x.position = a.position)
  ON CONFLICT DO NOTHING;
-- When each collection first held each work, by the identity alerts count works by (src/usecases/alerts/alertRules.ts,
-- worksOf: "doi:…" or "collection/doc_id"), written with each committed batch and never removed: a work deleted and
-- ingested again, or in a rebuilt index, keeps its first time. An alert counts as seen every work its collections held
-- before it was created. A work without a row was held before the table existed. Operational like works.
CREATE TABLE IF NOT EXISTS work_first_held (
  collection TEXT NOT NULL,
  work       TEXT NOT NULL,
  first_at   TIMESTAMPTZ NOT NULL,
  PRIMARY KEY (work, collection)
);
-- an alert's run reads the works its collections began to hold since its previous run
CREATE INDEX IF NOT EXISTS work_first_held_since ON work_first_held (collection, first_at);
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
 * How long one DDL statement may wait for a table's lock while searches and charges hold it: under the server's
 * deadlock_timeout (1 s by default), so a migration that would close a cycle with live traffic gives up first (and
 * tries again) instead of leaving PostgreSQL to pick a victim among the requests.
 */
const DDL_LOCK_TIMEOUT_MS = 500;
/** How long a start keeps trying a migration that must run, its attempts a jittered pause apart. */
const MIGRATE_DEADLINE_MS = 120_000;

/** The schema this code expects: recorded once a migration ran, so a process starting against it runs no DDL. */
const SCHEMA_VERSION_DDL =
  `CREATE TABLE IF NOT EXISTS schema_version (id INTEGER PRIMARY KEY, ddl_hash TEXT NOT NULL, migrated_at ` +
  `TIMESTAMPTZ NOT NULL)`;

const schemaHash = (readModels: ReadModels): string =>
  createHash("sha256").update([EVENTS_DDL, readModels.ddl, OPERATIONAL_DDL].join("\n")).digest("hex");

/** The schema hash the store records, null when it records none (a fresh store, or one migrated before the record). */
async function recordedHash(db: Queryable): Promise<string | null> {
  const [present] = await db.query<{ ok: boolean }>(`SELECT to_regclass('schema_version') IS NOT NULL AS ok`);
  if (!present?.ok) return null;
  const [row] = await db.query<{ ddl_hash: string }>("SELECT ddl_hash FROM schema_version WHERE id = 1");
  return row?.ddl_hash ?? null;
}

/** A lock wait cut short by lock_timeout, or a deadlock: the migration steps aside and tries again. */
const gaveWay = (err: unknown): boolean => {
  const code = pgErrorCode(err) ?? pgErrorCode((err as Error).cause);
  if (code === "55P03" || code === "40P01") return true;
  return err instanceof Rejection && err.code === "SERVICE_UNAVAILABLE" && /retry shortly/.test(err.message);
};

/**
 * Creates or updates every table, only when the store's recorded schema is not this code's: a process starting
 * against a current schema reads one row and takes no lock, so rolling starts never stall or deadlock live traffic.
 * On PostgreSQL a migration that must run takes turns with other starting processes under an advisory lock, in one
 * transaction (none sees another's half-made catalogue entries), each DDL statement waiting at most
 * DDL_LOCK_TIMEOUT_MS for a table's lock; when it gives way it tries again after a jittered pause. PGlite has one
 * process and one connection.
 */
export async function migrate(db: Db, readModels: ReadModels): Promise<void> {
  const hash = schemaHash(readModels);
  if ((await recordedHash(db)) === hash) return;
  let added: string[] = [];
  const record = async (tx: Queryable) => {
    await tx.query(SCHEMA_VERSION_DDL);
    await tx.query(
      "INSERT INTO schema_version (id, ddl_hash, migrated_at) VALUES (1, $1, now()) ON CONFLICT (id) DO UPDATE " +
        "SET ddl_hash = EXCLUDED.ddl_hash, migrated_at = EXCLUDED.migrated_at",
      [hash],
    );
  };
  if (db.kind === "postgres") {
    const deadline = Date.now() + MIGRATE_DEADLINE_MS;
    for (let attempt = 0; ; attempt++) {
      try {
        await db.transaction(
          async (tx) => {
            // another process may have migrated while this one waited for the advisory lock
            if ((await recordedHash(tx)) === hash) return;
            await tx.query(`SET LOCAL lock_timeout = '${DDL_LOCK_TIMEOUT_MS}ms'`);
            await tx.query(EVENTS_DDL);
            added = await missingTables(tx, readModels.tables);
            // a simple-protocol query (no parameters) may hold several statements
            for (const ddl of [readModels.ddl, OPERATIONAL_DDL]) await tx.query(ddl);
            await record(tx);
          },
          { advisoryLock: MIGRATE_LOCK_KEY },
        );
        break;
      } catch (err) {
        if (!gaveWay(err) || Date.now() > deadline) throw err;
        added = [];
        await new Promise((r) => setTimeout(r, 100 + Math.random() * Math.min(2000, 100 * 2 ** attempt)));
      }
    }
  } else {
    await db.exec(EVENTS_DDL);
    added = await missingTables(db, readModels.tables);
    await db.exec(readModels.ddl);
    await db.exec(OPERATIONAL_DDL);
    await record(db);
  }
  // on both stores: a table an upgrade added is filled from the log
  if (added.length > 0 && added.length < readModels.tables.length) await readModels.fillAdded(db, added);
}

/** The tables of `tables` this store does not have yet. */
async function missingTables(db: Queryable, tables: readonly string[]): Promise<string[]> {
  const rows = await db.query<{ name: string }>(
    `SELECT name FROM unnest($1::text[]) AS name WHERE to_regclass(name) IS NULL`,
    [tables],
  );
  const missing = new Set(rows.map((r) => r.name));
  return tables.filter((t) => missing.has(t));
}
