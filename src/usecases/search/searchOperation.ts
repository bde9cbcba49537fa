// Paid search (/query, /{collection}): the gate, then retrieval, then the charge committed with the query record; a
// cursor call identical to one already answered gets that page again, free.
import { createHash } from "node:crypto";
import type { AuthContext } from "../auth/context.js";
import { resolveTargets } from "../auth/keyScope.js";
import {
  claimIdempotencyKey,
  completeIdempotencyKey,
  idempotencyKeyOfAnotherKey,
  releaseIdempotencyKey,
} from "./previewIdempotency.js";
import { totalTokens } from "../../domain/organization.js";
import { retrieve, type SearchRequestInput } from "./pipeline.js";
import { cachedUntil, loadQueryRecord, type QueryRecord } from "./queryCache.js";
import { guarded, quotaFromUsage, quotaStatus, takeMinuteBudget } from "../limits/quotas.js";
import { fingerprintOf, LAST_PAGE, listFieldsOf, recordOf, searchChargeOf } from "./searchRecords.js";
import { gate } from "./searchGate.js";
import { continuation, withNamedWork } from "./searchContinuation.js";
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

/**
 * The queryId a search with an Idempotency-Key gets: the same for the same organization, key and body, so that the
 * charge, idempotent by queryId, is taken once even when the request dies between its charge and its key's record
 * and a retry takes the key over.
 */
function keyedQueryId(orgId: string, idempotency: SearchIdempotency): string {
  const h = createHash("sha256").update(`search\u0000${orgId}\u0000${idempotency.key}\u0000${idempotency.bodyHash}`);
  const hex = h.digest("hex");
  const variant = ((parseInt(hex[16]!, 16) & 0x3) | 0x8).toString(16);
  const [a, b, c, d, e] = [hex.slice(0, 8), hex.slice(8, 12), hex.slice(13, 16), hex.slice(17, 20), hex.slice(20, 32)];
  return `${a}-${b}-5${c}-${variant}${d}-${e}`;
}

/** What an Idempotency-Key on a search asks to be kept by (idempotencyRequest). */
export interface SearchIdempotency {
  key: string;
  bodyHash: string;
}

/**
 * A paid search with an Idempotency-Key: a repeat with the same key and body within 24 hours answers the first
 * search's rows, free (Idempotency-Status `replayed`); the same key while the first runs is 409 with Retry-After; with
 * another body 422. The key is claimed as a preview's is (previewIdempotency.ts); the search's queryId comes from the
 * key (keyedQueryId), so its charge is taken once whatever dies when.
 */
export async function keyedSearch(
  ctx: SearchContext,
  auth: AuthContext,
  request: SearchRequestInput,
  endpoint: string,
  idempotency: SearchIdempotency,
  requestId?: string,
  list: ListRequest = {},
): Promise<SearchOutcome & { idempotency: "created" | "replayed" }> {
  const { deps, db, clock } = ctx;
  const started = performance.now();
  const now = clock();
  resolveTargets(deps.catalog, auth, request.collections);
  const claim = await guarded("the idempotency store", () =>
    claimIdempotencyKey(db, auth.org.id, idempotency.key, idempotency.bodyHash, now, "search"),
  );
  const queryId = claim.kind === "replay" ? claim.queryId : keyedQueryId(auth.org.id, idempotency);
  const kept = await loadQueryRecord(db, queryId);
  if (kept) {
    if (kept.keyId !== auth.key.id) throw idempotencyKeyOfAnotherKey();
    if (claim.kind === "claimed") await completeIdempotencyKey(db, auth.org.id, idempotency.key, queryId);
    return { ...(await replayedSearch(ctx, auth, kept, now, started)), idempotency: "replayed" };
  }
  try {
    const outcome = await search(ctx, auth, request, endpoint, requestId, list, queryId);
    await completeIdempotencyKey(db, auth.org.id, idempotency.key, outcome.queryId);
    return { ...outcome, idempotency: "created" };
  } catch (err) {
    await releaseIdempotencyKey(db, auth.org.id, idempotency.key).catch(() => undefined);
    throw err;
  }
}

export async function search(
  ctx: SearchContext,
  auth: AuthContext,
  request: SearchRequestInput,
  endpoint: string,
  requestId?: string,
  list: ListRequest = {},
  /** the queryId a new search takes (keyedSearch's); else a new one */
  keyedId?: string,
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
  const input = await withNamedWork(ctx, auth, request, list.like);
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
  else if (keyedId) outcome.queryId = keyedId;
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
