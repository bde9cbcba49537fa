// A kept result re-fetched by its queryId: GET /results/{id} (rows or an export) and the MCP tools get_results and
// export_results. The caller knows the queryId, so the re-fetch is the delivery of an assisted answer or an alert run,
// proven before anything of it is served; an answer refunded, or an alert run that ended undelivered, is gone (410).
// The one place of this rule, so no surface serves rows without their charge.
import type { Alerts } from "../alerts/alerts.js";
import type { AssistedSearch } from "../assisted/assistedSearch.js";
import type { AuthContext } from "../auth/context.js";
import type { ImageOptions } from "../figures/figureImages.js";
import type { RefetchOutcome, SearchService } from "../search/searchService.js";

export interface DeliveredRefetchDeps {
  search: Pick<SearchService, "refetch">;
  assisted: Pick<AssistedSearch, "deliveredBeforeServing">;
  alerts: Pick<Alerts, "deliveredOnRefetch">;
}

/** The key's kept result `queryId`, its delivery proven first; `figures` null renders none. */
export async function refetchDelivered(
  deps: DeliveredRefetchDeps,
  auth: AuthContext,
  queryId: string,
  figures: ImageOptions | null,
): Promise<RefetchOutcome> {
  const refetched = await deps.search.refetch(auth, queryId, figures);
  // an assisted answer: delivered now, or 410 once it was refunded
  await deps.assisted.deliveredBeforeServing(refetched.record);
  // an alert run: delivered now (the run is charged), or 410 once it ended undelivered
  await deps.alerts.deliveredOnRefetch(refetched.record);
  return refetched;
}
