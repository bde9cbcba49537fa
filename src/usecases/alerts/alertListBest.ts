// Each alert's list best: the best engine score of its whole list in each physical collection, as its last search of
// the whole collection read it (its creation's search, or a run's). A run within the works new to the alert reads
// their relevance against it instead of searching the whole collection again; it is read anew once a day old, and
// raised at once by a new work that scores better. Operational, as the alerts' vectors are: the searches rebuild it.
import type { Queryable } from "../../eventstore/db.js";
import type { ListBest } from "../search/pipeline.js";

/**
 * How long a list best stands before a run reads it from the whole list again: the list's first row may have been
 * deleted, or the collection's BM25 statistics moved, meanwhile.
 */
const LIST_BEST_MAX_AGE_MS = 24 * 3_600_000;

/** The list bests of these alerts not older than LIST_BEST_MAX_AGE_MS at `now`: by alert, by physical collection. */
export async function loadListBest(
  db: Queryable,
  alertIds: readonly string[],
  now: Date,
): Promise<Map<string, Map<string, number>>> {
  const byAlert = new Map<string, Map<string, number>>();
  if (alertIds.length === 0) return byAlert;
  const rows = await db.query<{ alert_id: string; collection: string; best: number }>(
    "SELECT alert_id, collection, best FROM alert_list_best WHERE alert_id = ANY($1::text[]) AND at > $2",
    [[...alertIds], new Date(now.getTime() - LIST_BEST_MAX_AGE_MS)],
  );
  for (const r of rows) {
    const best = byAlert.get(r.alert_id) ?? new Map<string, number>();
    best.set(r.collection, Number(r.best));
    byAlert.set(r.alert_id, best);
  }
  return byAlert;
}

/**
 * Keeps what these alerts' searches read of their lists' bests, in one statement: a best read from the whole list
 * (ListBest.searchedWhole) replaces the one kept, dated `now`; any other (a kept best, or a new work's better row) only
 * raises it, keeping its date (one never read whole stays due for a whole read). A best that changes nothing is not
 * written, nor one of an alert deleted: the alert's row is read under a share lock, so a deletion committing meanwhile
 * is waited for and then seen (its forgetListBest runs after its commit), and a run in flight writes no best back.
 */
export async function keepListBest(
  db: Queryable,
  searched: readonly { alertId: string; listBest: ListBest }[],
  now: Date,
): Promise<void> {
  const rows = searched.flatMap(({ alertId, listBest }) =>
    [...listBest.best].map(([collection, best]) => ({
      alertId,
      collection,
      best,
      whole: listBest.searchedWhole.includes(collection),
    })),
  );
  if (rows.length === 0) return;
  await db.query(
    `INSERT INTO alert_list_best (alert_id, collection, best, at)
     SELECT a, c, b, CASE WHEN w THEN $5::timestamptz ELSE '-infinity'::timestamptz END
     FROM unnest($1::text[], $2::text[], $3::float8[], $4::bool[]) AS t(a, c, b, w)
     JOIN proj_alerts p ON p.alert_id = t.a AND p.state <> 'deleted'
     FOR SHARE OF p
     ON CONFLICT (alert_id, collection) DO UPDATE SET
       best = CASE WHEN EXCLUDED.at > alert_list_best.at THEN EXCLUDED.best
                   ELSE GREATEST(alert_list_best.best, EXCLUDED.best) END,
       at = GREATEST(alert_list_best.at, EXCLUDED.at)
     WHERE EXCLUDED.at > alert_list_best.at OR EXCLUDED.best > alert_list_best.best`,
    [rows.map((r) => r.alertId), rows.map((r) => r.collection), rows.map((r) => r.best), rows.map((r) => r.whole), now],
  );
}

/** A deleted alert's list bests: none of its runs will read them. */
export async function forgetListBest(db: Queryable, alertId: string): Promise<void> {
  await db.query("DELETE FROM alert_list_best WHERE alert_id = $1", [alertId]);
}
