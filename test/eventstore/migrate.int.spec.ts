// Processes that start together on a fresh PostgreSQL database (the scaled shape's API processes and worker) each
// migrate it: they must take turns, or two sessions creating the same table collide in the catalogue.
import pg from "pg";
import { describe, expect, it } from "vitest";
import { openPostgres, type Db } from "../../src/eventstore/db.js";
import { migrate } from "../../src/eventstore/schema.js";
import { FEATURE_PROJECTORS, PROJECTION_READ_MODELS } from "../../src/app/projectors.js";
import { createPostgresDatabase, freshStore } from "../support/stores.js";
import { tableList } from "../../projections/tables.js";

describe("migrate", () => {
  it("creates each feature's tables with the columns, order and types its declaration lists", async () => {
    // a declaration states its columns twice, in `columns` (what reads, writes and replay use) and in its DDL: they
    // must name the same table
    const db = await freshStore("postgres");
    const sqlType: Record<string, string> = {
      text: "text",
      jsonb: "jsonb",
      boolean: "boolean",
      integer: "integer",
      bigint: "bigint",
      timestamptz: "timestamp with time zone",
    };
    try {
      for (const spec of tableList(FEATURE_PROJECTORS.tables)) {
        const created = await db.query<{ column_name: string; data_type: string }>(
          "SELECT column_name, data_type FROM information_schema.columns WHERE table_name = $1 " +
            "ORDER BY ordinal_position",
          [`proj_${spec.name}`],
        );
        expect(
          created.map((c) => `${c.column_name} ${c.data_type}`),
          spec.name,
        ).toEqual(Object.entries(spec.columns).map(([name, type]) => `${name} ${sqlType[type]}`));
      }
    } finally {
      await db.close();
    }
  });

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

  it("a store made before edges kept their citing work gets them filled and the ordered indexes, once", async () => {
    const db = await openPostgres(await createPostgresDatabase(), FEATURE_PROJECTORS, 2);
    try {
      await migrate(db, PROJECTION_READ_MODELS);
      // the works tables as an earlier version left them (single-column indexes, edges without their citing work)
      for (const id of ["openalex", "doi", "pmid"]) {
        await db.query(`DROP INDEX work_references_citing_${id}`);
        await db.query(`CREATE INDEX work_references_${id} ON work_references (${id})`);
      }
      for (const column of ["date", "key", "doi", "pmid", "openalex"])
        await db.query(`ALTER TABLE work_references DROP COLUMN citing_${column}`);
      await db.query(
        `INSERT INTO works (index_key, doc_id, doi, pmid, openalex, searchable, fields) VALUES
           ('embedded/c', 'd1', '10.1/a', '7', NULL, true, '{"publication_date": "2020-05-01"}'),
           ('embedded/c', 'd2', NULL, NULL, NULL, true, '{"publication_date": null}')`,
      );
      await db.query(
        `INSERT INTO work_references VALUES ('embedded/c', 'd1', 0, NULL, NULL, 'W1'),
           ('embedded/c', 'd1', 1, '10.9/x', NULL, NULL), ('embedded/c', 'd2', 0, NULL, NULL, 'W1')`,
      );
      await db.query("DELETE FROM schema_version");
      await migrate(db, PROJECTION_READ_MODELS);
      // a second migration fills only edges not filled yet: one changed since keeps its value
      await db.query("UPDATE work_references SET citing_date = '2099' WHERE doc_id = 'd2'");
      await db.query("DELETE FROM schema_version");
      await migrate(db, PROJECTION_READ_MODELS);
      const indexes = await db.query<{ indexname: string }>(
        "SELECT indexname FROM pg_indexes WHERE tablename = 'work_references' ORDER BY indexname",
      );
      expect(indexes.map((r) => r.indexname)).toEqual([
        "work_references_citing_doi",
        "work_references_citing_openalex",
        "work_references_citing_pmid",
        "work_references_pkey",
      ]);
      expect(
        await db.query(
          `SELECT doc_id, position, citing_date, citing_key, citing_doi, citing_pmid, citing_openalex
           FROM work_references ORDER BY doc_id, position`,
        ),
      ).toEqual([
        {
          doc_id: "d1",
          position: 0,
          citing_date: "2020-05-01",
          citing_key: "10.1/a",
          citing_doi: "10.1/a",
          citing_pmid: "7",
          citing_openalex: null,
        },
        {
          doc_id: "d1",
          position: 1,
          citing_date: "2020-05-01",
          citing_key: "10.1/a",
          citing_doi: "10.1/a",
          citing_pmid: "7",
          citing_openalex: null,
        },
        {
          doc_id: "d2",
          position: 0,
          citing_date: "2099",
          citing_key: "d2",
          citing_doi: null,
          citing_pmid: null,
          citing_openalex: null,
        },
      ]);
    } finally {
      await db.close();
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
