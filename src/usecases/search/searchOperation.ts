// Paid search (/query, /{collection}): the gate, then retrieval, then the charge committed with the query record; a
// cursor call identical to one already answered gets that page again, free.
import type { AuthContext } from "../auth/context.js";
import { totalTokens } from "../../domain/organization.js";
import { retrieve, type SearchRequestInput } from "./pipeline.js";
import { cachedUntil, loadQueryRecord, type QueryRecord } from "./queryCache.js";
import { guarded, quotaFromUsage, quotaStatus, takeMinuteBudget } from "../limits/quotas.js";
import { fingerprintOf, LAST_PAGE, listFieldsOf, recordOf, searchChargeOf } from "./searchRecords.js";
import { gate } from "./searchGate.js";
import { continuation, withLike } from "./searchContinuation.js";
import { sandboxSearch } from "./sandboxLists.js";
import { zeroBilling, type ListRequest, type SearchContext, type SearchOutcome } from "./searchContext.js";

/** A cursor call identical to one already answered: that page again, free (it was charged once, when made). */
async function replayedSearch(
  { db, accounts }: SearchContext,
  auth: AuthContext,
  record: QueryRecord,
  now: Date,
  started: number,
): Promise<SearchOutcome> {
  await takeMinuteBudget(db, auth.org, now);
  const { rows, belowMinRelevance, filterWarnings, journalMetricExpansions, filtersApplied } = record.payload;
  const latencyMs = performance.now() - started;
  return {
    queryId: record.queryId,
    rows,
    list: listFieldsOf(record.queryId, record.payload),
    belowMinRelevance: belowMinRelevance ?? 0,
    latencyMs: Math.round(latencyMs),
    filterWarnings,
    journalMetricExpansions,
    filtersApplied,
    billing: {
      ...zeroBilling(auth),
      balanceMicros: (await accounts.getOrganization(auth.org.id))?.balanceMicros ?? auth.org.balanceMicros,
    },
    quota: await quotaStatus(db, auth.org, now),
    cachedUntil: cachedUntil(record.createdAt),
    timings: { billingMs: latencyMs, retrievalMs: 0 },
  };
}

export async function search(
  ctx: SearchContext,
  auth: AuthContext,
  request: SearchRequestInput,
  endpoint: string,
  requestId?: string,
  list: ListRequest = {},
): Promise<SearchOutcome> {
  const { deps, db, accounts, clock } = ctx;
  const started = performance.now();
  const now = clock();
  const fingerprint = fingerprintOf(request, list);
  const next =
    list.cursor !== undefined
      ? await continuation(ctx, auth, "search", request, list.cursor, fingerprint, now)
      : undefined;
  if (next?.existing) return replayedSearch(ctx, auth, next.existing, now, started);
  const input = list.like === undefined ? request : await withLike(ctx, auth, request, list.like);
  const gated = await gate(ctx, auth, input, endpoint, now);
  if (gated.kind === "catalogue") {
    const latencyMs = performance.now() - started;
    return {
      queryId: gated.discovery.queryId,
      rows: [],
      list: LAST_PAGE,
      belowMinRelevance: 0,
      latencyMs: Math.round(latencyMs),
      billing: zeroBilling(auth),
      quota: await quotaStatus(db, auth.org, now),
      discovery: gated.discovery,
      timings: { billingMs: 0, retrievalMs: latencyMs },
    };
  }
  if (gated.kind === "sandbox") return sandboxSearch(ctx, auth, input, now, started, gated.prepared);
  const admitted = performance.now();
  const outcome = await retrieve(deps, auth, next ? { ...input, page: next.exclusion } : input, gated.prepared);
  if (next) outcome.queryId = next.queryId;
  const retrieved = performance.now();
  const record = recordOf(auth, "search", now, input, outcome, fingerprint, next?.exclusion);
  const charge = await searchChargeOf(auth, endpoint, requestId, outcome, record);
  const charged = await guarded("the billing store", () => accounts.chargeSearch(charge));
  if (charged.duplicate) {
    // an identical cursor call charged this page first: its rows, nothing charged again
    const kept = await loadQueryRecord(db, outcome.queryId);
    if (kept) return replayedSearch(ctx, auth, kept, now, started);
  }
  const event = charged.events[0];
  const costMicros = event && event.type === "SearchCharged" ? BigInt(event.data.amountMicros) : 0n;
  const quota =
    charged.dailyUsed >= 0
      ? quotaFromUsage(auth.org, { dailyUsed: charged.dailyUsed, monthlyUsed: charged.monthlyUsed }, now)
      : await quotaStatus(db, auth.org, now);
  const finished = performance.now();
  return {
    queryId: outcome.queryId,
    rows: outcome.rows,
    list: listFieldsOf(record.queryId, record.payload),
    belowMinRelevance: outcome.belowMinRelevance,
    latencyMs: Math.round(finished - started),
    timings: { billingMs: admitted - started + (finished - retrieved), retrievalMs: retrieved - admitted },
    filterWarnings: outcome.filterWarnings,
    journalMetricExpansions: outcome.journalMetricExpansions,
    filtersApplied: outcome.filtersApplied,
    ...(outcome.vectorsBackfilling ? { vectorsBackfilling: outcome.vectorsBackfilling } : {}),
    billing: {
      mode: auth.billingMode,
      tokens: totalTokens(outcome.lines),
      costMicros,
      balanceMicros: charged.balanceMicros,
    },
    quota,
    cachedUntil: cachedUntil(record.createdAt),
  };
}
