// Fresh event stores for tests: an in-memory PGlite, or a new database on the real PostgreSQL server.
import { randomBytes } from "node:crypto";
import pg from "pg";
import { openPglite, openPostgres, type Db } from "../../src/eventstore/db.js";
import { migrate } from "../../src/eventstore/schema.js";
import { FEATURE_PROJECTORS, PROJECTION_READ_MODELS } from "../../src/app/projectors.js";
import { requireComponent } from "../setup/components.js";
import type { FeatureProjection } from "../../projections/project.js";

export type StoreKind = "pglite" | "postgres";
export const STORE_KINDS: StoreKind[] = ["pglite", "postgres"];

/** Creates an empty database on the test PostgreSQL server and returns its URL. */
export async function createPostgresDatabase(): Promise<string> {
  const baseUrl = requireComponent("postgresUrl");
  const name = `t_${randomBytes(6).toString("hex")}`;
  const admin = new pg.Client({ connectionString: baseUrl });
  await admin.connect();
  try {
    await admin.query(`CREATE DATABASE ${name}`);
  } finally {
    await admin.end();
  }
  const url = new URL(baseUrl);
  url.pathname = `/${name}`;
  return url.toString();
}

/** `projectors`: what the store runs inline and in replay (the service's list unless a test hands its own). */
export async function freshStore(
  kind: StoreKind,
  maxConnections = 10,
  projectors: FeatureProjection = FEATURE_PROJECTORS,
): Promise<Db> {
  const db =
    kind === "pglite"
      ? await openPglite(undefined, projectors)
      : await openPostgres(await createPostgresDatabase(), projectors, maxConnections);
  await migrate(db, PROJECTION_READ_MODELS);
  return db;
}
