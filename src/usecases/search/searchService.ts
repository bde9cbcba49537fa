// Search use cases: paid search, free preview, free re-fetch. Each one enforces limits, then money, then caches. Each
// operation has its file; the factory builds their shared context once and assembles them.
import type { AuthContext } from "../auth/context.js";
import { assertCollectionsReady, type SearchRequestInput } from "./pipeline.js";
import { quotaStatus, takeMinuteBudget, type QuotaStatus } from "../limits/quotas.js";
import type { ImageOptions } from "../figures/figureImages.js";
import {
  searchContextOf,
  zeroBilling,
  type ListRequest,
  type PreviewOutcome,
  type RefetchOutcome,
  type SearchOutcome,
  type ServiceDeps,
} from "./searchContext.js";
import { gate, type Gated } from "./searchGate.js";
import { keyedSearch, search, type SearchIdempotency } from "./searchOperation.js";
import { preview, type PreviewIdempotency } from "./previewOperation.js";
import { refetch } from "./refetchOperation.js";

export type {
  BillingOutcome,
  ListFields,
  ListRequest,
  PreviewOutcome,
  RefetchOutcome,
  SearchOutcome,
} from "./searchContext.js";
export { remainingCost } from "./searchRecords.js";

export type SearchService = ReturnType<typeof createSearchService>;

export function createSearchService(deps: ServiceDeps) {
  const ctx = searchContextOf(deps);
  const { db, clock } = ctx;
  return {
    gate: (auth: AuthContext, input: SearchRequestInput, endpoint: string, now: Date): Promise<Gated> =>
      gate(ctx, auth, input, endpoint, now),

    /**
     * One slot of the per-minute budget and nothing else (a request that runs no new query, such as a clarification's
     * answer).
     */
    takeRequestSlot: (auth: AuthContext): Promise<void> => takeMinuteBudget(db, auth.org, clock()),

    search: (
      auth: AuthContext,
      request: SearchRequestInput,
      endpoint: string,
      requestId?: string,
      list: ListRequest = {},
      /** an Idempotency-Key: a repeat with the same key and body answers the first search, charged once */
      idempotency?: SearchIdempotency,
    ): Promise<SearchOutcome & { idempotency?: "created" | "replayed" }> =>
      idempotency
        ? keyedSearch(ctx, auth, request, endpoint, idempotency, requestId, list)
        : search(ctx, auth, request, endpoint, requestId, list),

    /**
     * Free: no charge, no quota, no trial query; its own hourly limit. An Idempotency-Key makes a retry return the
     * first preview. A sandbox key's preview holds synthetic rows and takes a slot of the per-minute budget, not the
     * preview hour.
     */
    preview: (
      auth: AuthContext,
      request: SearchRequestInput,
      idempotency?: PreviewIdempotency,
      list: ListRequest = {},
    ): Promise<PreviewOutcome> => preview(ctx, auth, request, idempotency, list),

    /** Free re-fetch: the rows through the unlock ledger, and images of unlocked preview rows when asked for. */
    refetch: (auth: AuthContext, queryId: string, figures: ImageOptions | null): Promise<RefetchOutcome> =>
      refetch(ctx, auth, queryId, figures),

    /** The quota object of GET /quota: today's and this month's queries against the organization's limits. */
    quota(auth: AuthContext): Promise<QuotaStatus> {
      return quotaStatus(db, auth.org, clock());
    },

    zeroBilling,

    /**
     * 503 while a collection these names reach is still ingesting: for routes that read a collection outside a search
     * (its journals listing)
     */
    assertCollectionsReady: (auth: AuthContext, names: readonly string[]): Promise<void> =>
      assertCollectionsReady(deps, auth, names),
  };
}
