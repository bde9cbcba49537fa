// Search use cases: paid search, free preview, free re-fetch. Each one enforces limits, then money, then caches.
import { randomUUID } from 'node:crypto';
import type { Db } from '../eventstore/db.js';
import type { Accounts } from '../billing/accounts.js';
import type { AuthContext } from '../auth/context.js';
import { Rejection } from '../domain/rejection.js';
import { totalMicros, totalTokens, chargeLines } from '../domain/organization.js';
import type { CollectionCharge } from '../domain/events.js';
import { retrieve, resolveTargets, type SearchDeps, type SearchRequestInput } from './pipeline.js';
import { freshness, loadQueryRecord, PAYLOAD_VERSION, saveQueryRecord, type CachedRow, type QueryRecord, CACHE_LIFETIME_MS } from './queryCache.js';
import { syntheticRows } from './sandbox.js';
import { assertSearchableQuery } from './queryValidation.js';
import { assertQueryQuota, quotaStatus, takeMinuteBudget, takePreviewBudget, type QuotaStatus } from '../limits/quotas.js';
import { countInWindow, readWindow } from '../limits/rateWindows.js';

export const INVALID_QUERY_LIMIT_PER_MINUTE = 30;

export interface BillingOutcome {
  mode: AuthContext['billingMode'];
  tokens: number;
  costMicros: bigint;
  /** balance after the request; undefined when the organization hides it */
  balanceMicros?: bigint;
}

export interface SearchOutcome {
  queryId: string;
  rows: CachedRow[];
  latencyMs: number;
  filterWarnings?: unknown[];
  journalMetricExpansions?: unknown[];
  filtersApplied?: unknown;
  billing: BillingOutcome;
  quota?: QuotaStatus;
}

export interface PreviewOutcome {
  queryId: string;
  rows: CachedRow[];
  unlocked: Set<string>;
  filterWarnings?: unknown[];
  journalMetricExpansions?: unknown[];
  filtersApplied?: unknown;
}

export interface ServiceDeps extends SearchDeps {
  db: Db;
  accounts: Accounts;
  clock: () => Date;
}

export type SearchService = ReturnType<typeof createSearchService>;

/** Cost of the rows still locked, rounded once per collection like a charge. */
export function remainingCost(rows: CachedRow[], unlocked: Set<string>): bigint {
  return totalMicros(chargeLines(rows.filter((r) => !unlocked.has(r.id)).map((r) => ({ collection: r.collection, tokens: r.tokens, pricePer1000Micros: BigInt(r.pricePer1000Micros) }))));
}

export function createSearchService(deps: ServiceDeps) {
  const { db, accounts, clock } = deps;

  /** INVALID_QUERY rejections are counted; past 30 a minute the organization is told to slow down. */
  async function withQueryGuard<T>(auth: AuthContext, fn: () => Promise<T>): Promise<T> {
    const now = clock().getTime();
    const scope = `invalid:${auth.org.id}`;
    if ((await readWindow(db, scope, 60_000, now)) > INVALID_QUERY_LIMIT_PER_MINUTE) {
      throw new Rejection('SEARCH_RATE_LIMITED', 'too many queries were rejected as INVALID_QUERY in the last minute', { retryAfterSeconds: Math.max(1, Math.ceil((60_000 - (now % 60_000)) / 1000)) });
    }
    try {
      return await fn();
    } catch (err) {
      if (err instanceof Rejection && err.code === 'INVALID_QUERY') {
        const { count, resetAt } = await countInWindow(db, scope, 60_000, now);
        if (count > INVALID_QUERY_LIMIT_PER_MINUTE) {
          throw new Rejection('SEARCH_RATE_LIMITED', 'too many queries were rejected as INVALID_QUERY in the last minute', { retryAfterSeconds: Math.max(1, Math.ceil((resetAt - now) / 1000)) });
        }
      }
      throw err;
    }
  }

  function zeroBilling(auth: AuthContext): BillingOutcome {
    return { mode: auth.billingMode, tokens: 0, costMicros: 0n, balanceMicros: auth.org.hideBalance ? undefined : auth.org.balanceMicros };
  }

  return {
    async search(auth: AuthContext, input: SearchRequestInput, endpoint: string, requestId?: string): Promise<SearchOutcome> {
      const started = performance.now();
      const now = clock();
      if (auth.billingMode === 'sandbox') {
        const names = resolveTargets(deps.catalog, auth, input.collections).map((t) => t.requested.name);
        return withQueryGuard(auth, async () => {
          assertSearchableQuery(input.query);
                    const rows = syntheticRows(input.query, names, input.limit);
          const queryId = randomUUID();
          await saveQueryRecord(db, { queryId, orgId: auth.org.id, keyId: auth.key.id, kind: 'search', payloadVersion: PAYLOAD_VERSION, createdAt: now, payload: { query: input.query, collections: names, rows } });
          return { queryId, rows, latencyMs: Math.round(performance.now() - started), billing: { mode: 'sandbox', tokens: 0, costMicros: 0n } };
        });
      }
      if (auth.org.suspended) throw new Rejection('BILLING_SUSPENDED', 'Billing for this organization is on hold; contact support');
      await takeMinuteBudget(db, auth.org, now);
      await assertQueryQuota(db, auth.org, now);
      if (auth.billingMode === 'live' && auth.org.balanceMicros <= 0n) {
        throw new Rejection('INSUFFICIENT_CREDITS', 'Balance is zero; add credits to search. Nothing was charged');
      }
      const outcome = await withQueryGuard(auth, () => retrieve(deps, auth, input));
      const lines: CollectionCharge[] = outcome.lines;
      const charged = await accounts.chargeSearch({ orgId: auth.org.id, keyId: auth.key.id, queryId: outcome.queryId, endpoint, collections: lines, requestId });
      const event = charged.events[0];
      const costMicros = event && event.type === 'SearchCharged' ? BigInt(event.data.amountMicros) : 0n;
      await saveQueryRecord(db, {
        queryId: outcome.queryId,
        orgId: auth.org.id,
        keyId: auth.key.id,
        kind: 'search',
        payloadVersion: PAYLOAD_VERSION,
        createdAt: now,
        payload: { query: input.query, collections: outcome.requested.map((r) => r.name), rows: outcome.rows, filterWarnings: outcome.filterWarnings, journalMetricExpansions: outcome.journalMetricExpansions, filtersApplied: outcome.filtersApplied },
      });
      const org = await accounts.getOrganization(auth.org.id);
      return {
        queryId: outcome.queryId,
        rows: outcome.rows,
        latencyMs: Math.round(performance.now() - started),
        filterWarnings: outcome.filterWarnings,
        journalMetricExpansions: outcome.journalMetricExpansions,
        filtersApplied: outcome.filtersApplied,
        billing: { mode: auth.billingMode, tokens: totalTokens(lines), costMicros, balanceMicros: org && !org.hideBalance ? org.balanceMicros : undefined },
        quota: await quotaStatus(db, auth.org, now),
      };
    },

    async preview(auth: AuthContext, input: SearchRequestInput): Promise<PreviewOutcome> {
      if (auth.billingMode === 'sandbox') throw new Rejection('SANDBOX_UNSUPPORTED_ENDPOINT', 'preview has no sandbox behaviour; use a live key');
      const now = clock();
      await takePreviewBudget(db, auth.org, now);
      const outcome = await withQueryGuard(auth, () => retrieve(deps, auth, input));
      await saveQueryRecord(db, {
        queryId: outcome.queryId,
        orgId: auth.org.id,
        keyId: auth.key.id,
        kind: 'preview',
        payloadVersion: PAYLOAD_VERSION,
        createdAt: now,
        payload: { query: input.query, collections: outcome.requested.map((r) => r.name), rows: outcome.rows, filterWarnings: outcome.filterWarnings, journalMetricExpansions: outcome.journalMetricExpansions, filtersApplied: outcome.filtersApplied },
      });
      return { queryId: outcome.queryId, rows: outcome.rows, unlocked: new Set(), filterWarnings: outcome.filterWarnings, journalMetricExpansions: outcome.journalMetricExpansions, filtersApplied: outcome.filtersApplied };
    },

    /** Loads a query record for the same key; 404 for unknown or another key's, 410 once expired. */
    async loadOwnRecord(auth: AuthContext, queryId: string): Promise<QueryRecord> {
      const record = await loadQueryRecord(db, queryId);
      if (!record || record.keyId !== auth.key.id) throw new Rejection('NOT_FOUND', `query ${queryId} not found for this API key`);
      if (freshness(record, clock()) === 'expired') throw new Rejection('CACHED_RESULT_EXPIRED', `query ${queryId} has expired; results are kept for 7 days. Run the search again`);
      return record;
    },

    expiresAt(record: QueryRecord): Date {
      return new Date(record.createdAt.getTime() + CACHE_LIFETIME_MS);
    },

    async unlockedFor(record: QueryRecord): Promise<Set<string>> {
      if (record.kind === 'search') return new Set(record.payload.rows.map((r) => r.id));
      return accounts.unlockedIds(record.queryId);
    },

    zeroBilling,
  };
}
