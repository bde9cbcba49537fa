// One writer of a collection's index at a time: the ingestion's batches, its finish and the vector backfill stage and
// commit under it (an engine commit publishes everything staged in the index, another writer's half too).
import type { Db } from "../src/eventstore/db.js";

/** Runs `write` (stage and commit) while no other writer of the collection does. */
export type CollectionWriters = (collection: string, write: () => Promise<void>) => Promise<void>;

/** The advisory lock a collection's writers take on PostgreSQL: one per collection name. */
const writerLockOf = (collection: string): number => {
  let h = 0x2f6b;
  for (const c of collection) h = (Math.imul(h, 31) + c.charCodeAt(0)) | 0;
  return 774_300_000 + (Math.abs(h) % 100_000);
};

/**
 * In this process by a queue per collection; across the scaled shape's worker processes (PostgreSQL) also under a
 * transaction-level advisory lock. (PGlite serves one process, whose queue suffices, and its one connection is not
 * held for an engine commit.) One per worker process, shared by its ingestion and backfill activities.
 */
export function createCollectionWriters(db: Db): CollectionWriters {
  const writers = new Map<string, Promise<unknown>>();
  return (collection, write) => {
    const run = (writers.get(collection) ?? Promise.resolve())
      .catch(() => undefined)
      .then(() =>
        db.kind === "postgres" ? db.transaction(() => write(), { advisoryLock: writerLockOf(collection) }) : write(),
      );
    writers.set(collection, run);
    return run;
  };
}
