// What a search or preview continues from before it runs: the page a cursor continues, and the work a more-like-this
// request searches near.
import type { AuthContext } from "../auth/context.js";
import { resolveTargets } from "../auth/keyScope.js";
import { Rejection } from "../../domain/rejection.js";
import { assertCollectionsReady, type SearchRequestInput } from "./pipeline.js";
import { freshness, loadQueryRecordPair, type QueryRecord } from "./queryCache.js";
import { assertContinues, exclusionAfter, nextPageQueryId, type PageExclusion } from "./paging.js";
import { resolveLike } from "./moreLikeThis.js";
import { withIdentifiedWork } from "./identifierQuery.js";
import { queryIdOfCursor } from "../../domain/cursors.js";
import { sandboxLike } from "./sandbox.js";
import { guarded } from "../limits/quotas.js";
import type { SearchContext } from "./searchContext.js";

/** The page a cursor asks for, and that page itself when an identical call already made it. */
interface Continuation {
  queryId: string;
  exclusion: PageExclusion;
  existing?: QueryRecord;
}

/**
 * A cursor's page: the page it continues, checked (organization, kind, same request, a list that goes on), and the
 * page it asks for when an identical call already made it. One round trip, and only when a cursor is sent.
 */
export async function continuation(
  { deps, db }: SearchContext,
  auth: AuthContext,
  kind: "search" | "preview",
  input: SearchRequestInput,
  cursor: string,
  fingerprint: string,
  now: Date,
): Promise<Continuation> {
  // a sandbox key's lists are synthetic and end on their first page: a live list's cursor is nothing to it
  if (auth.billingMode === "sandbox")
    throw new Rejection("VALIDATION_ERROR", "cursor: sandbox results have a single page; send no cursor", {
      field: "cursor",
    });
  // the key must still reach the collections (its scope may have narrowed since the page before)
  resolveTargets(deps.catalog, auth, input.collections);
  const previousId = queryIdOfCursor(cursor);
  const queryId = nextPageQueryId(previousId, auth.key.id);
  const [previous, existing] = await guarded("the query store", () => loadQueryRecordPair(db, previousId, queryId));
  const state = assertContinues(
    previous && {
      orgId: previous.orgId,
      kind: previous.kind,
      page: previous.payload.page,
      fresh: freshness(previous, now) === "fresh",
    },
    auth.org.id,
    kind,
    fingerprint,
  );
  const exclusion = exclusionAfter(state, previous!.payload.rows, input.selection?.onePerDocument ?? false);
  return {
    queryId,
    exclusion,
    ...(existing && existing.keyId === auth.key.id && freshness(existing, now) === "fresh" ? { existing } : {}),
  };
}

/**
 * The request with the work it names resolved: its like-work (`like`), or else the work its query is by DOI.
 */
export async function withNamedWork(
  ctx: SearchContext,
  auth: AuthContext,
  input: SearchRequestInput,
  like: string | undefined,
): Promise<SearchRequestInput> {
  return like === undefined ? withIdentifiedWork(ctx.deps, auth, input) : withLike(ctx, auth, input, like);
}

/**
 * The request with its like-work resolved (scope and existence of the collections first, then 404 WORK_NOT_FOUND).
 */
async function withLike(
  { deps }: SearchContext,
  auth: AuthContext,
  input: SearchRequestInput,
  work: string,
): Promise<SearchRequestInput> {
  const targets = resolveTargets(deps.catalog, auth, input.collections);
  await assertCollectionsReady(deps, auth, input.collections);
  // a sandbox key never reaches a real work (its text would be licensed content): a synthetic one stands in, held by
  // the first physical collection searched, as a live work is named by the collection holding it
  const like =
    auth.billingMode === "sandbox"
      ? sandboxLike(work, targets[0]!.physical[0]?.name ?? targets[0]!.requested.name)
      : await resolveLike(deps, auth, work);
  return { ...input, like, query: like.text };
}
