// The author_id filter's ids checked against the authors a key can reach: a search or a facets request narrowed to an
// id that no reachable collection holds is 404 AUTHOR_NOT_FOUND naming that id, as GET /api/v1/authors/{id} answers,
// not an empty page that reads as "this person has no work on it". An id held elsewhere in the key's reach is a
// person who exists: the request runs, and an empty answer means none of their works is in the collections asked.
import type { AuthContext } from "../auth/context.js";
import type { Queryable } from "../../eventstore/db.js";
import { valuesNamed } from "../../filters/ast.js";
import type { AuthorFilterCheck } from "../search/pipeline.js";
import { Rejection } from "../../domain/rejection.js";
import { authorNotFound } from "./authors.js";

/** The field the filter language keeps authors' ids in. */
const AUTHOR_FIELD = "author_id";

/** Which of these ids (OpenAlex author ids or ORCIDs, canonical) an authorship of these indexes carries. */
async function authorIdsHeld(
  db: Queryable,
  indexKeys: readonly string[],
  ids: readonly string[],
): Promise<Set<string>> {
  if (indexKeys.length === 0 || ids.length === 0) return new Set();
  const rows = await db.query<{ id: string }>(
    `SELECT k.id FROM unnest($1::text[]) AS k(id)
     WHERE EXISTS (SELECT 1 FROM work_authors a WHERE a.author_id = k.id AND a.index_key = ANY($2::text[]))
        OR EXISTS (SELECT 1 FROM work_authors a WHERE a.orcid = k.id AND a.index_key = ANY($2::text[]))`,
    [[...ids], [...indexKeys]],
  );
  return new Set(rows.map((r) => r.id));
}

export function authorFilterCheck(deps: {
  db: Queryable;
  scopeOf: (auth: AuthContext) => string[];
}): AuthorFilterCheck {
  return async (auth, plan) => {
    const ids = valuesNamed(plan?.perCollection.values() ?? [], AUTHOR_FIELD);
    // a sandbox key's authors are synthetic, whatever the id
    if (ids.length === 0 || auth.billingMode === "sandbox") return;
    const held = await authorIdsHeld(deps.db, deps.scopeOf(auth), ids);
    const unknown = ids.filter((id) => !held.has(id));
    if (unknown.length === 0) return;
    const first = unknown[0]!;
    const kind = /^A/.test(first) ? "openalex" : "orcid";
    throw new Rejection(
      "AUTHOR_NOT_FOUND",
      `filters.${AUTHOR_FIELD}: ${authorNotFound({ kind, value: first }, unknown.slice(1))}`,
      { field: AUTHOR_FIELD, id: first, ids: unknown },
    );
  };
}
