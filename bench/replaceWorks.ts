// The works benches' loading: a collection's works written in one transaction, as an ingestion would leave them.
import type { Db } from "../src/eventstore/db.js";
import { analyzeWorks, writeWorks, type StoredWork } from "../src/ingest/works.js";

/** Makes the index's works exactly these (a full pipeline build), in one transaction. */
export async function replaceWorks(db: Db, indexKey: string, works: readonly StoredWork[]): Promise<void> {
  await db.transaction((tx) =>
    writeWorks(tx, indexKey, { upserts: works, deletes: [], keepOnly: works.map((w) => w.docId) }),
  );
  await analyzeWorks(db);
}
