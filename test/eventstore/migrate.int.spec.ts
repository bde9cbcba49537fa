// Processes that start together on a fresh PostgreSQL database (the scaled shape's API processes and worker) each
// migrate it: they must take turns, or two sessions creating the same table collide in the catalogue.
import { describe, expect, it } from 'vitest';
import { openPostgres, type Db } from '../../src/eventstore/db.js';
import { migrate } from '../../src/eventstore/schema.js';
import { PROJECTION_READ_MODELS } from '../../projections/readModels.js';
import { createPostgresDatabase } from '../support/stores.js';

describe('migrate', () => {
  it('lets 8 processes migrate one fresh database at the same time, and again once it exists', async () => {
    for (let round = 0; round < 3; round++) {
      const url = await createPostgresDatabase();
      const stores: Db[] = await Promise.all(Array.from({ length: 8 }, () => openPostgres(url, 2)));
      try {
        const outcomes = await Promise.allSettled(stores.map((db) => migrate(db, PROJECTION_READ_MODELS)));
        expect(outcomes.filter((o) => o.status === 'rejected').map((o) => String((o as PromiseRejectedResult).reason))).toEqual([]);
        expect((await Promise.allSettled(stores.map((db) => migrate(db, PROJECTION_READ_MODELS)))).every((o) => o.status === 'fulfilled')).toBe(true);
        const [tables] = await stores[0]!.query<{ n: number }>(`SELECT count(*)::int AS n FROM pg_tables WHERE tablename IN ('events', 'query_records', 'rate_windows')`);
        expect(tables!.n).toBe(3);
      } finally {
        await Promise.all(stores.map((db) => db.close()));
      }
    }
  });
});
