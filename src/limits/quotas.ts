// Per-minute budget, daily/monthly query quotas and the preview hour, answered from the shared database.
// A store that cannot answer is 503 SERVICE_UNAVAILABLE with nothing charged.
import type { Db, Queryable } from '../eventstore/db.js';
import type { Organization } from '../billing/accounts.js';
import { Rejection } from '../domain/rejection.js';
import { takeFromWindow, windowStart } from './rateWindows.js';
import { assertQuotaLeft, dayPeriod, monthPeriod, nextUtcMidnight, secondsUntil, type QueryUsage } from '../domain/queryQuota.js';

export { nextUtcMidnight, nextUtcMonth } from '../domain/queryQuota.js';

export interface QuotaStatus {
  dailyLimit: number;
  dailyUsed: number;
  dailyRemaining: number;
  monthlyLimit: number;
  monthlyUsed: number;
  monthlyRemaining: number;
  /** epoch seconds of the next UTC midnight */
  dailyResetAt: number;
}

const MINUTE_MS = 60_000;
const HOUR_MS = 3_600_000;

/** A dependency that cannot answer becomes 503 with nothing charged. */
export async function guarded<T>(what: string, fn: () => Promise<T>): Promise<T> {
  try {
    return await fn();
  } catch (err) {
    if (err instanceof Rejection) throw err;
    throw new Rejection('SERVICE_UNAVAILABLE', `${what} is unreachable; nothing was charged, retry with backoff`);
  }
}

/** The quota object for given usage counts. */
export function quotaFromUsage(org: Pick<Organization, 'limits'>, usage: QueryUsage, now: Date): QuotaStatus {
  return {
    dailyLimit: org.limits.daily,
    dailyUsed: usage.dailyUsed,
    dailyRemaining: Math.max(0, org.limits.daily - usage.dailyUsed),
    monthlyLimit: org.limits.monthly,
    monthlyUsed: usage.monthlyUsed,
    monthlyRemaining: Math.max(0, org.limits.monthly - usage.monthlyUsed),
    dailyResetAt: Math.floor(nextUtcMidnight(now).getTime() / 1000),
  };
}

export async function queryUsage(db: Queryable, orgId: string, now: Date): Promise<QueryUsage> {
  const iso = now.toISOString();
  const rows = await guarded('the quota store', () =>
    db.query<{ period: string; queries: number }>('SELECT period, queries FROM proj_usage WHERE org_id = $1 AND period = ANY($2)', [orgId, [dayPeriod(iso), monthPeriod(iso)]]),
  );
  const used = (p: string) => Number(rows.find((r) => r.period === p)?.queries ?? 0);
  return { dailyUsed: used(dayPeriod(iso)), monthlyUsed: used(monthPeriod(iso)) };
}

export async function quotaStatus(db: Queryable, org: Organization, now: Date): Promise<QuotaStatus> {
  return quotaFromUsage(org, await queryUsage(db, org.id, now), now);
}

/**
 * Refuses early (before any search work) when the daily or monthly quota is used up. The charge transaction checks
 * again under the append lock, so concurrent requests from several processes cannot pass the quota together.
 */
export async function assertQueryQuota(db: Queryable, org: Organization, now: Date): Promise<QuotaStatus> {
  const usage = await queryUsage(db, org.id, now);
  assertQuotaLeft(org.limits, usage, now);
  return quotaFromUsage(org, usage, now);
}

export interface SearchAdmission {
  /** INVALID_QUERY rejections of the organization this minute */
  invalidQueries: number;
  /** false: the per-minute budget is used up (nothing was taken) */
  minuteTaken: boolean;
  /** epoch ms when the minute ends */
  minuteResetAt: number;
  usage: QueryUsage;
}

/**
 * Admits a search in one statement: takes a slot of the per-minute budget unless the INVALID_QUERY guard has tripped,
 * and reads the guard's count and today's and this month's queries. Written without waiting for the WAL flush.
 */
export async function admitSearchRequest(db: Db, org: Organization, invalidScope: string, invalidLimit: number, now: Date): Promise<SearchAdmission> {
  const iso = now.toISOString();
  const minute = windowStart(now.getTime(), MINUTE_MS);
  const [row] = await guarded('the quota store', () =>
    db.relaxed.query<{ invalid: number; taken: number | null; daily: number | null; monthly: number | null }>(
      `WITH guard AS (SELECT coalesce((SELECT count FROM rate_windows WHERE scope = $4 AND window_start = $2), 0) AS invalid),
       hit AS (
         INSERT INTO rate_windows (scope, window_start, count) SELECT $1, $2, 1 FROM guard WHERE guard.invalid <= $5 AND $3 > 0
         ON CONFLICT (scope, window_start) DO UPDATE SET count = rate_windows.count + 1 WHERE rate_windows.count < $3
         RETURNING count)
       SELECT (SELECT invalid FROM guard) AS invalid, (SELECT count FROM hit) AS taken,
         (SELECT queries FROM proj_usage WHERE org_id = $6 AND period = $7) AS daily,
         (SELECT queries FROM proj_usage WHERE org_id = $6 AND period = $8) AS monthly`,
      [`minute:${org.id}`, minute, org.limits.perMinute, invalidScope, invalidLimit, org.id, dayPeriod(iso), monthPeriod(iso)],
      true,
    ),
  );
  return {
    invalidQueries: Number(row?.invalid ?? 0),
    minuteTaken: row?.taken !== null && row?.taken !== undefined,
    minuteResetAt: minute + MINUTE_MS,
    usage: { dailyUsed: Number(row?.daily ?? 0), monthlyUsed: Number(row?.monthly ?? 0) },
  };
}

/** 429 for an admission that took no slot of the per-minute budget. */
export function minuteBudgetExceeded(org: Organization, admission: SearchAdmission, now: Date): Rejection {
  return new Rejection('QUOTA_EXCEEDED', `per-minute budget of ${org.limits.perMinute} requests is used up`, { retryAfterSeconds: secondsUntil(admission.minuteResetAt, now.getTime()) });
}

/** Takes one request from the per-minute budget shared by search and tool calls. */
export async function takeMinuteBudget(db: Db, org: Organization, now: Date): Promise<void> {
  const hit = await guarded('the quota store', () => takeFromWindow(db.relaxed, `minute:${org.id}`, MINUTE_MS, org.limits.perMinute, now.getTime()));
  if (!hit.allowed) {
    throw new Rejection('QUOTA_EXCEEDED', `per-minute budget of ${org.limits.perMinute} requests is used up`, { retryAfterSeconds: secondsUntil(hit.resetAt, now.getTime()) });
  }
}

export async function takePreviewBudget(db: Db, org: Organization, now: Date): Promise<void> {
  const hit = await guarded('the quota store', () => takeFromWindow(db.relaxed, `preview:${org.id}`, HOUR_MS, org.limits.previewPerHour, now.getTime()));
  if (!hit.allowed) {
    throw new Rejection('PREVIEW_RATE_LIMIT_EXCEEDED', `preview limit of ${org.limits.previewPerHour} per hour is used up`, { retryAfterSeconds: secondsUntil(hit.resetAt, now.getTime()) });
  }
}
