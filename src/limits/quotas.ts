// Per-minute budget, daily/monthly query quotas and the preview hour, answered from the shared database.
import type { Queryable } from '../eventstore/db.js';
import type { Organization } from '../billing/accounts.js';
import { Rejection } from '../domain/rejection.js';
import { takeFromWindow } from './rateWindows.js';
import { dayPeriod, monthPeriod } from '../../projections/project.js';

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

export function nextUtcMidnight(now: Date): Date {
  return new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate() + 1));
}

export function nextUtcMonth(now: Date): Date {
  return new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() + 1, 1));
}

const secondsUntil = (t: number, now: number) => Math.max(1, Math.ceil((t - now) / 1000));

/** A dependency that cannot answer becomes 503 with nothing charged. */
async function guarded<T>(what: string, fn: () => Promise<T>): Promise<T> {
  try {
    return await fn();
  } catch (err) {
    if (err instanceof Rejection) throw err;
    throw new Rejection('SERVICE_UNAVAILABLE', `${what} is unreachable; nothing was charged, retry with backoff`);
  }
}

export async function quotaStatus(db: Queryable, org: Organization, now: Date): Promise<QuotaStatus> {
  const iso = now.toISOString();
  const rows = await guarded('the quota store', () =>
    db.query<{ period: string; queries: number }>('SELECT period, queries FROM proj_usage WHERE org_id = $1 AND period = ANY($2)', [org.id, [dayPeriod(iso), monthPeriod(iso)]]),
  );
  const used = (p: string) => Number(rows.find((r) => r.period === p)?.queries ?? 0);
  const dailyUsed = used(dayPeriod(iso));
  const monthlyUsed = used(monthPeriod(iso));
  return {
    dailyLimit: org.limits.daily,
    dailyUsed,
    dailyRemaining: Math.max(0, org.limits.daily - dailyUsed),
    monthlyLimit: org.limits.monthly,
    monthlyUsed,
    monthlyRemaining: Math.max(0, org.limits.monthly - monthlyUsed),
    dailyResetAt: Math.floor(nextUtcMidnight(now).getTime() / 1000),
  };
}

/** Throws 429 QUOTA_EXCEEDED when the daily or monthly query quota is used up. */
export async function assertQueryQuota(db: Queryable, org: Organization, now: Date): Promise<QuotaStatus> {
  const q = await quotaStatus(db, org, now);
  if (q.dailyRemaining <= 0) {
    throw new Rejection('QUOTA_EXCEEDED', `daily query quota of ${q.dailyLimit} is used up`, { retryAfterSeconds: secondsUntil(nextUtcMidnight(now).getTime(), now.getTime()) });
  }
  if (q.monthlyRemaining <= 0) {
    throw new Rejection('QUOTA_EXCEEDED', `monthly query quota of ${q.monthlyLimit} is used up`, { retryAfterSeconds: secondsUntil(nextUtcMonth(now).getTime(), now.getTime()) });
  }
  return q;
}

/** Takes one request from the per-minute budget shared by search and tool calls. */
export async function takeMinuteBudget(db: Queryable, org: Organization, now: Date): Promise<void> {
  const hit = await guarded('the quota store', () => takeFromWindow(db, `minute:${org.id}`, MINUTE_MS, org.limits.perMinute, now.getTime()));
  if (!hit.allowed) {
    throw new Rejection('QUOTA_EXCEEDED', `per-minute budget of ${org.limits.perMinute} requests is used up`, { retryAfterSeconds: secondsUntil(hit.resetAt, now.getTime()) });
  }
}

export async function takePreviewBudget(db: Queryable, org: Organization, now: Date): Promise<void> {
  const hit = await guarded('the quota store', () => takeFromWindow(db, `preview:${org.id}`, HOUR_MS, org.limits.previewPerHour, now.getTime()));
  if (!hit.allowed) {
    throw new Rejection('PREVIEW_RATE_LIMIT_EXCEEDED', `preview limit of ${org.limits.previewPerHour} per hour is used up`, { retryAfterSeconds: secondsUntil(hit.resetAt, now.getTime()) });
  }
}
