// The projections as the event store's read models (src/eventstore/schema.ts migrate takes them from the composition
// root): the live tables, their DDL, and the fill of a table an upgrade added.
import type { Db } from "../src/eventstore/db.js";
import type { ReadModels } from "../src/eventstore/schema.js";
import { Rejection } from "../src/domain/rejection.js";
import { replayProjections } from "./replay.js";
import { COLUMNS, PROJECTION_TABLES, projectionDdl, type ProjectionTable } from "./tables.js";

const LIVE = "proj_";

export const PROJECTION_READ_MODELS: ReadModels = {
  tables: PROJECTION_TABLES.map((t) => `${LIVE}${t}`),
  ddl: projectionDdl(LIVE),
  fillAdded: (db, tables) =>
    fillAddedProjections(
      db,
      tables.map((t) => t.slice(LIVE.length) as ProjectionTable),
    ),
};

/**
 * A projection table added by an upgrade starts empty, while the log may already hold events it projects (the keys'
 * last use): it is filled from the same fold replay runs, so replay keeps comparing equal. Rows the live projector
 * wrote since the table appeared are newer and stay. Another process filling it at the same time makes this a no-op.
 */
async function fillAddedProjections(db: Db, tables: ProjectionTable[]): Promise<void> {
  const [any] = await db.query<{ n: number }>("SELECT count(*)::int AS n FROM (SELECT 1 FROM events LIMIT 1) e");
  if (!any || any.n === 0) return;
  try {
    await replayProjections(db);
  } catch (err) {
    if (err instanceof Rejection && err.code === "CONFLICT") return;
    throw err;
  }
  for (const t of tables) {
    const cols = COLUMNS[t].join(", ");
    await db.query(`INSERT INTO ${LIVE}${t} (${cols}) SELECT ${cols} FROM replay_${t} ON CONFLICT DO NOTHING`);
  }
}
