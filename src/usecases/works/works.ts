// Works: a paper by any identifier (one or a batch), its references and the works citing it, from the works table the
// ingestion writes (src/ingest/works.ts). Only the collections the key reaches count: a work held only elsewhere
// answers like one held nowhere. Free, but each call takes a slot of the per-minute budget; sandbox keys get synthetic
// works. Never the text: that is what search and unlock sell. Each operation has its file; the factory assembles them.
import type { AuthContext } from "../auth/context.js";
import type { WorkRow } from "./worksReads.js";
import { admit, scopeOf, worksContextOf, worksOf } from "./worksContext.js";
import { batchWorks, getWork } from "./workLookup.js";
import { citedBy, references } from "./workGraph.js";
import { exportId, exportIds, exportRows } from "./workExports.js";
import type { WorksDeps } from "./workShapes.js";
import type { CachedRow } from "../../domain/resultRow.js";

export type { GraphEntry, GraphPage, Work } from "./workShapes.js";
export { groupRows, listedOrder } from "./workShapes.js";

export function createWorks(deps: WorksDeps) {
  const ctx = worksContextOf(deps);
  /**
   * What other features that list works (authors) build on: the reachable index keys, their collection names, admit
   * (one slot of the per-minute budget) and works of row groups, answered as works lookups are.
   */
  const listing = {
    scopeOf: (auth: AuthContext) => scopeOf(ctx, auth),
    admit: (auth: AuthContext) => admit(ctx, auth),
    collectionOf: (indexKey: string): string | undefined => ctx.collectionOf.get(indexKey),
    worksOf: (groups: readonly WorkRow[][], keys: readonly string[]) => worksOf(ctx, groups, keys),
  };
  return {
    get: (auth: AuthContext, id: string) => getWork(ctx, auth, id),
    batch: (auth: AuthContext, ids: readonly string[]) => batchWorks(ctx, auth, ids),
    references: (auth: AuthContext, id: string, page: { limit: number; cursor?: string }) =>
      references(ctx, auth, id, page),
    citedBy: (auth: AuthContext, id: string, page: { limit: number; cursor?: string }) => citedBy(ctx, auth, id, page),
    exportIds: (auth: AuthContext, ids: readonly string[]) => exportIds(ctx, auth, ids),
    exportId: (auth: AuthContext, id: string) => exportId(ctx, auth, id),
    /** `paid`: the rows the key paid for (their works' abstracts are exported), see exportRows */
    exportRows: (stored: readonly CachedRow[], paid: ReadonlySet<string>) => exportRows(ctx, stored, paid),
    listing,
  };
}

export type Works = ReturnType<typeof createWorks>;
