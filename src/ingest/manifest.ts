// The document manifest of incremental ingestion: per engine index, doc_id -> the document's fingerprint, chunk count
// and journal identity, in the event store's database (every worker process reads it). Plain operational tables
// (ingest_manifest, ingest_batches in src/eventstore/schema.ts), not an event-sourced read model.
import { InventoryTally, type CollectionInventory, type JournalIdentityFields } from "../domain/inventory.js";
import type { IngestionCounts } from "../domain/events.js";
import type { Db, Queryable } from "../eventstore/db.js";
import { addCounts, countsOf, zeroCounts } from "../domain/ingestionCounts.js";

export { zeroCounts };
import { chunkId } from "./chunk.js";
import { fingerprintKey } from "./fingerprint.js";
import { writeWorks, type WorksChange } from "./works.js";

export interface ManifestEntry {
  docId: string;
  fingerprint: string;
  chunks: number;
  journal: JournalIdentityFields;
}

/** The manifest's key of one index: the same index name on two engines is two manifests. */
export const manifestKey = fingerprintKey;

/** Chunk ids of a document that has `chunks` chunks (chunk ids are deterministic: collection, doc_id, position). */
export function chunkIdsOf(collection: string, docId: string, chunks: number, from = 0): string[] {
  return Array.from({ length: Math.max(0, chunks - from) }, (_, k) => chunkId(collection, docId, from + k));
}

export async function manifestEntries(
  db: Queryable,
  indexKey: string,
  docIds: readonly string[],
): Promise<Map<string, ManifestEntry>> {
  if (docIds.length === 0) return new Map();
  const rows = await db.query<{ doc_id: string; fingerprint: string; chunks: number; journal: JournalIdentityFields }>(
    "SELECT doc_id, fingerprint, chunks, journal FROM ingest_manifest WHERE index_key = $1 AND doc_id = " +
      "ANY($2::text[])",
    [indexKey, [...docIds]],
  );
  return new Map(
    rows.map((r) => [
      r.doc_id,
      { docId: r.doc_id, fingerprint: r.fingerprint, chunks: Number(r.chunks), journal: r.journal },
    ]),
  );
}

/** Every document of the index with its chunk count (replace mode deletes those its files do not hold). */
export async function manifestDocuments(db: Queryable, indexKey: string): Promise<{ docId: string; chunks: number }[]> {
  const rows = await db.query<{ doc_id: string; chunks: number }>(
    "SELECT doc_id, chunks FROM ingest_manifest WHERE index_key = $1 ORDER BY doc_id",
    [indexKey],
  );
  return rows.map((r) => ({ docId: r.doc_id, chunks: Number(r.chunks) }));
}

/** Documents and chunks the manifest holds for the index. */
export async function manifestTotals(db: Queryable, indexKey: string): Promise<{ documents: number; chunks: number }> {
  const [row] = await db.query<{ documents: string | number; chunks: string | number | null }>(
    "SELECT count(*) AS documents, sum(chunks) AS chunks FROM ingest_manifest WHERE index_key = $1",
    [indexKey],
  );
  return { documents: Number(row?.documents ?? 0), chunks: Number(row?.chunks ?? 0) };
}

export async function manifestSize(db: Queryable, indexKey: string): Promise<number> {
  const [row] = await db.query<{ n: string | number }>(
    "SELECT count(*) AS n FROM ingest_manifest WHERE index_key = $1",
    [indexKey],
  );
  return Number(row?.n ?? 0);
}

/** The collection's inventory from the manifest: its documents by journal identity. */
export async function manifestInventory(
  db: Queryable,
  indexKey: string,
  collection: string,
  at: Date = new Date(),
): Promise<CollectionInventory> {
  const tally = new InventoryTally();
  const rows = await db.query<{ journal: JournalIdentityFields }>(
    "SELECT journal FROM ingest_manifest WHERE index_key = $1",
    [indexKey],
  );
  for (const row of rows) tally.add(row.journal);
  return tally.inventory(collection, at);
}

export async function clearManifest(db: Queryable, indexKey: string): Promise<void> {
  await db.query("DELETE FROM ingest_manifest WHERE index_key = $1", [indexKey]);
}

/** The counts a batch recorded when it committed, null when it has not. */
export async function recordedBatch(
  db: Queryable,
  ingestionId: string,
  batch: number,
): Promise<IngestionCounts | null> {
  const [row] = await db.query<{ counts: IngestionCounts }>(
    "SELECT counts FROM ingest_batches WHERE ingestion_id = $1 AND batch = $2",
    [ingestionId, batch],
  );
  return row ? countsOf(row.counts) : null;
}

/** The sum of every batch an ingestion recorded (its exact counts, however often a batch ran). */
export async function recordedTotals(db: Queryable, ingestionId: string): Promise<IngestionCounts> {
  const rows = await db.query<{ counts: IngestionCounts }>(
    "SELECT counts FROM ingest_batches WHERE ingestion_id = $1",
    [ingestionId],
  );
  return rows.reduce((sum, r) => addCounts(sum, countsOf(r.counts)), zeroCounts());
}

/**
 * Records what one batch committed to the engine, in one transaction: the manifest rows it wrote and removed, the works
 * it changed, and its
 * counts under (ingestionId, batch). A batch recorded already (a retry that raced the first run) changes nothing and
 * answers the first run's counts.
 */
export async function recordBatch(
  db: Db,
  input: {
    indexKey: string;
    ingestionId: string;
    batch: number;
    upserts: readonly ManifestEntry[];
    deletes: readonly string[];
    counts: IngestionCounts;
    works?: WorksChange;
    /** the collection and the identities of the works the batch indexed (alertRules.ts worksOf): their first time */
    heldWorks?: { collection: string; works: readonly string[] };
  },
): Promise<IngestionCounts> {
  return db.transaction(async (tx) => {
    const inserted = await tx.query<{ batch: number }>(
      "INSERT INTO ingest_batches (ingestion_id, batch, counts) VALUES ($1, $2, $3) ON CONFLICT DO NOTHING " +
        "RETURNING batch",
      [input.ingestionId, input.batch, JSON.stringify(input.counts)],
    );
    if (inserted.length === 0) return (await recordedBatch(tx, input.ingestionId, input.batch))!;
    if (input.deletes.length > 0)
      await tx.query("DELETE FROM ingest_manifest WHERE index_key = $1 AND doc_id = ANY($2::text[])", [
        input.indexKey,
        [...input.deletes],
      ]);
    if (input.upserts.length > 0) {
      await tx.query(
        `INSERT INTO ingest_manifest (index_key, doc_id, fingerprint, chunks, journal)
         SELECT $1, d, f, c, j::jsonb FROM unnest($2::text[], $3::text[], $4::int[], $5::text[]) AS t(d, f, c, j)
         ON CONFLICT (index_key, doc_id) DO UPDATE SET fingerprint = EXCLUDED.fingerprint, chunks = EXCLUDED.chunks,
           journal = EXCLUDED.journal`,
        [
          input.indexKey,
          input.upserts.map((u) => u.docId),
          input.upserts.map((u) => u.fingerprint),
          input.upserts.map((u) => u.chunks),
          input.upserts.map((u) => JSON.stringify(u.journal)),
        ],
      );
    }
    if (input.works) await writeWorks(tx, input.indexKey, input.works);
    // the time they became searchable (the engine committed them before this): now, not the transaction's start
    if (input.heldWorks && input.heldWorks.works.length > 0)
      await tx.query(
        `INSERT INTO work_first_held (collection, work, first_at)
         SELECT $1, w, clock_timestamp() FROM unnest($2::text[]) AS t(w) ON CONFLICT DO NOTHING`,
        [input.heldWorks.collection, [...input.heldWorks.works]],
      );
    return input.counts;
  });
}
