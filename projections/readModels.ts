// The projections as the event store's read models (src/eventstore/schema.ts migrate takes them from the composition
// root, src/app/projectors.ts): the live tables the features declare, their DDL, and the fill of a table an upgrade
// added.
import type { Db } from "../src/eventstore/db.js";
import type { ReadModels } from "../src/eventstore/schema.js";
import { Rejection } from "../src/domain/rejection.js";
import { replayProjections } from "./replay.js";
import { columnsOf, projectionDdl, tableList, type ProjectionTable, type ProjectionTables } from "./tables.js";

const LIVE = "proj_";

export function projectionReadModels(tables: ProjectionTables): ReadModels {
  return {
    tables: tableList(tables).map((t) => `${LIVE}${t.name}`),
    ddl: projectionDdl(tables, LIVE),
    fillAdded: (db, added) =>
      fillAddedProjections(
        db,
        added.map((t) => tables[t.slice(LIVE.length) as ProjectionTable]),
      ),
  };
}

/**
 * A projection table added by an upgrade starts empty, while the log may already hold events it projects (the keys'
 * last use): it is filled from the same fold replay runs, so replay keeps comparing equal. Rows the live projector
 * wrote since the table appeared are newer and stay. Another process filling it at the same time makes this a no-op.
 */
async function fillAddedProjections(db: Db, added: ProjectionTables[ProjectionTable][]): Promise<void> {
  const [any] = await db.query<{ n: number }>("SELECT count(*)::int AS n FROM (SELECT 1 FROM events LIMIT 1) e");
  if (!any || any.n === 0) return;
  try {
    await replayProjections(db);
  } catch (err) {
    if (err instanceof Rejection && err.code === "CONFLICT") return;
    throw err;
  }
  for (const spec of added) {
    const cols = columnsOf(spec).join(", ");
    await db.query(
      `INSERT INTO ${LIVE}${spec.name} (${cols}) SELECT ${cols} FROM replay_${spec.name} ON CONFLICT DO NOTHING`,
    );
  }
}
