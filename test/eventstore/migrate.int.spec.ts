// Processes that start together on a fresh PostgreSQL database (the scaled shape's API processes and worker) each
// migrate it: they must take turns, or two sessions creating the same table collide in the catalogue.
import pg from "pg";
import { describe, expect, it } from "vitest";
import { openPostgres, type Db } from "../../src/eventstore/db.js";
import { migrate } from "../../src/eventstore/schema.js";
import { FEATURE_PROJECTORS, PROJECTION_READ_MODELS } from "../../src/app/projectors.js";
import { createPostgresDatabase } from "../support/stores.js";

describe("migrate", () => {
  it("lets 8 processes migrate one fresh database at the same time, and again once it exists", async () => {
    for (let round = 0; round < 3; round++) {
      const url = await createPostgresDatabase();
      const stores: Db[] = await Promise.all(Array.from({ length: 8 }, () => openPostgres(url, FEATURE_PROJECTORS, 2)));
      try {
        const outcomes = await Promise.allSettled(stores.map((db) => migrate(db, PROJECTION_READ_MODELS)));
        expect(
          outcomes.filter((o) => o.status === "rejected").map((o) => String((o as PromiseRejectedResult).reason)),
        ).toEqual([]);
        expect(
          (await Promise.allSettled(stores.map((db) => migrate(db, PROJECTION_READ_MODELS)))).every(
            (o) => o.status === "fulfilled",
          ),
        ).toBe(true);
        const [tables] = await stores[0]!.query<{ n: number }>(
          `SELECT count(*)::int AS n FROM pg_tables WHERE tablename IN ('events', 'query_records', 'rate_windows')`,
        );
        expect(tables!.n).toBe(3);
      } finally {
        await Promise.all(stores.map((db) => db.close()));
      }
    }
  });

  it("a process starting on a current schema runs no DDL: it never waits on tables live requests hold", async () => {
    const url = await createPostgresDatabase();
    const first = await openPostgres(url, FEATURE_PROJECTORS, 2);
    const traffic = new pg.Client({ connectionString: url });
    await traffic.connect();
    const starting = await openPostgres(url, FEATURE_PROJECTORS, 2);
    try {
      await migrate(first, PROJECTION_READ_MODELS);
      // a live request's transaction holds ACCESS SHARE on the tables authentication and the query cache read
      await traffic.query("BEGIN");
      await traffic.query("SELECT 1 FROM proj_api_keys LIMIT 1");
      await traffic.query("SELECT 1 FROM query_records LIMIT 1");
      await traffic.query("SELECT 1 FROM proj_organizations LIMIT 1");
      const outcome = await Promise.race([
        migrate(starting, PROJECTION_READ_MODELS).then(() => "migrated"),
        new Promise((r) => setTimeout(() => r("still waiting on a table lock after 10 s"), 10_000)),
      ]);
      expect(outcome).toBe("migrated");
      await traffic.query("COMMIT");
    } finally {
      await traffic.end();
      await Promise.all([first.close(), starting.close()]);
    }
  });

  it("a migration that must run gives way to live traffic (lock timeout, retry) and never deadlocks it", async () => {
    const url = await createPostgresDatabase();
    const db = await openPostgres(url, FEATURE_PROJECTORS, 2);
    const traffic = new pg.Client({ connectionString: url });
    await traffic.connect();
    try {
      await migrate(db, PROJECTION_READ_MODELS);
      const upgraded = {
        ...PROJECTION_READ_MODELS,
        ddl: `${PROJECTION_READ_MODELS.ddl}\nALTER TABLE proj_api_keys ADD COLUMN IF NOT EXISTS upgrade_probe INTEGER;`,
      };
      // a request holds proj_api_keys for 2 s, then wants proj_organizations, which the migration alters first
      await traffic.query("BEGIN");
      await traffic.query("SELECT 1 FROM proj_api_keys LIMIT 1");
      const migrating = migrate(db, upgraded);
      await new Promise((r) => setTimeout(r, 2000));
      await traffic.query("SELECT 1 FROM proj_organizations LIMIT 1");
      await traffic.query("COMMIT");
      await migrating;
      const [column] = await db.query<{ n: number }>(
        `SELECT count(*)::int AS n FROM information_schema.columns WHERE table_name = 'proj_api_keys' AND ` +
          `column_name = 'upgrade_probe'`,
      );
      expect(column!.n).toBe(1);
    } finally {
      await traffic.end();
      await db.close();
    }
  });
});
