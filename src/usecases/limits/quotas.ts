// Per-minute budget, daily/monthly query quotas and the preview hour, answered from the shared database.
// A store that cannot answer is 503 SERVICE_UNAVAILABLE with nothing charged.
import type { Db, Queryable } from "../../eventstore/db.js";
import type { Organization } from "../accounts/accounts.js";
import { Rejection } from "../../domain/rejection.js";
import { takeFromWindow, windowStart } from "./rateWindows.js";
import { groupCalls } from "../../eventstore/groupCalls.js";
import {
  assertQuotaLeft,
  dayPeriod,
  monthPeriod,
  nextUtcMidnight,
  secondsUntil,
  type QueryUsage,
} from "../../domain/queryQuota.js";

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
    throw new Rejection("SERVICE_UNAVAILABLE", `${what} is unreachable; nothing was charged, retry with backoff`);
  }
}

/** The quota object for given usage counts. */
export function quotaFromUsage(org: Pick<Organization, "limits">, usage: QueryUsage, now: Date): QuotaStatus {
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

async function queryUsage(db: Queryable, orgId: string, now: Date): Promise<QueryUsage> {
  const iso = now.toISOString();
  const rows = await guarded("the quota store", () =>
    db.query<{ period: string; queries: number }>(
      "SELECT period, queries FROM proj_usage WHERE org_id = $1 AND period = ANY($2)",
      [orgId, [dayPeriod(iso), monthPeriod(iso)]],
    ),
  );
  const used = (p: string) => Number(rows.find((r) => r.period === p)?.queries ?? 0);
  return { dailyUsed: used(dayPeriod(iso)), monthlyUsed: used(monthPeriod(iso)) };
}

/** Today's and this month's queries as select-list items `daily_used` and `monthly_used` (usageOfRow reads them). */
export function usageColumns(orgId: string, now: Date, param: (value: unknown) => string): string {
  const iso = now.toISOString();
  const org = param(orgId);
  return `(SELECT queries FROM proj_usage WHERE org_id = ${org} AND period = ${param(dayPeriod(iso))}) AS daily_used,
    (SELECT queries FROM proj_usage WHERE org_id = ${org} AND period = ${param(monthPeriod(iso))}) AS monthly_used`;
}

/** The usage a row selected with usageColumns carries (no row: nothing used). */
export const usageOfRow = (row: { daily_used?: unknown; monthly_used?: unknown }): QueryUsage => ({
  dailyUsed: Number(row.daily_used ?? 0),
  monthlyUsed: Number(row.monthly_used ?? 0),
});

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

interface SearchAdmission {
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
 * On the embedded store, admissions that arrive together share one statement (admitGroup).
 */
export async function admitSearchRequest(
  db: Db,
  org: Organization,
  invalidScope: string,
  invalidLimit: number,
  now: Date,
): Promise<SearchAdmission> {
  if (db.kind === "pglite")
    return guarded("the quota store", () => groupedAdmission(db)({ org, invalidScope, invalidLimit, now }));
  const iso = now.toISOString();
  const minute = windowStart(now.getTime(), MINUTE_MS);
  const [row] = await guarded("the quota store", () =>
    db.relaxed.query<{ invalid: number; taken: number | null; daily: number | null; monthly: number | null }>(
      `WITH guard AS (SELECT coalesce((SELECT count FROM rate_windows WHERE scope = $4
        AND window_start = $2), 0) AS invalid),
       hit AS (
         INSERT INTO rate_windows (scope, window_start, count) SELECT $1, $2, 1 FROM guard WHERE guard.invalid <= $5
           AND $3 > 0
         ON CONFLICT (scope, window_start) DO UPDATE SET count = rate_windows.count + 1 WHERE rate_windows.count < $3
         RETURNING count)
       SELECT (SELECT invalid FROM guard) AS invalid, (SELECT count FROM hit) AS taken,
         (SELECT queries FROM proj_usage WHERE org_id = $6 AND period = $7) AS daily,
         (SELECT queries FROM proj_usage WHERE org_id = $6 AND period = $8) AS monthly`,
      [
        `minute:${org.id}`,
        minute,
        org.limits.perMinute,
        invalidScope,
        invalidLimit,
        org.id,
        dayPeriod(iso),
        monthPeriod(iso),
      ],
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

interface AdmissionRequest {
  org: Organization;
  invalidScope: string;
  invalidLimit: number;
  now: Date;
}

/**
 * Many admissions in one statement, in arrival order: each takes the next slot of its minute window while the window
 * has one and its guard has not tripped. The new counts are computed from what the statement read, so this is only
 * for the embedded store, whose one connection runs nothing in between; PostgreSQL takes each slot atomically.
 */
async function admitGroup(db: Db, requests: AdmissionRequest[]): Promise<SearchAdmission[]> {
  const column = <T>(f: (r: AdmissionRequest) => T) => requests.map(f);
  const rows = await db.relaxed.query<{
    invalid: number;
    taken: boolean;
    daily: number | null;
    monthly: number | null;
  }>(
    `WITH req AS (
       SELECT * FROM unnest($1::text[], $2::int[], $3::text[], $4::int[], $5::text[], $6::bigint[], $7::text[],
         $8::text[])
         WITH ORDINALITY AS r(scope, lim, guard_scope, guard_lim, org_id, window_start, day_period, month_period, i)),
     seen AS (
       SELECT r.*, coalesce((SELECT count FROM rate_windows w WHERE w.scope = r.guard_scope
         AND w.window_start = r.window_start), 0) AS invalid,
         coalesce((SELECT count FROM rate_windows w WHERE w.scope = r.scope
           AND w.window_start = r.window_start), 0) AS used
       FROM req r),
     ranked AS (
       SELECT s.*, (invalid <= guard_lim AND lim > 0) AS eligible,
         count(*) FILTER (WHERE invalid <= guard_lim AND lim > 0) OVER (PARTITION BY scope, window_start
           ORDER BY i) AS nth
       FROM seen s),
     granted AS (SELECT g.*, (eligible AND used + nth <= lim) AS taken FROM ranked g),
     hit AS (
       INSERT INTO rate_windows (scope, window_start, count)
       SELECT scope, window_start, max(used) + count(*) FILTER (WHERE taken) FROM granted GROUP BY scope, window_start
       HAVING count(*) FILTER (WHERE taken) > 0
       ON CONFLICT (scope, window_start) DO UPDATE SET count = EXCLUDED.count)
     SELECT invalid, taken,
       (SELECT queries FROM proj_usage u WHERE u.org_id = g.org_id AND u.period = g.day_period) AS daily,
       (SELECT queries FROM proj_usage u WHERE u.org_id = g.org_id AND u.period = g.month_period) AS monthly
     FROM granted g ORDER BY i`,
    [
      column((r) => `minute:${r.org.id}`),
      column((r) => r.org.limits.perMinute),
      column((r) => r.invalidScope),
      column((r) => r.invalidLimit),
      column((r) => r.org.id),
      column((r) => windowStart(r.now.getTime(), MINUTE_MS)),
      column((r) => dayPeriod(r.now.toISOString())),
      column((r) => monthPeriod(r.now.toISOString())),
    ],
  );
  return requests.map((r, i) => {
    const row = rows[i];
    return {
      invalidQueries: Number(row?.invalid ?? 0),
      minuteTaken: row?.taken === true,
      minuteResetAt: windowStart(r.now.getTime(), MINUTE_MS) + MINUTE_MS,
      usage: { dailyUsed: Number(row?.daily ?? 0), monthlyUsed: Number(row?.monthly ?? 0) },
    };
  });
}

const admissionGroups = new WeakMap<Db, (request: AdmissionRequest) => Promise<SearchAdmission>>();

function groupedAdmission(db: Db): (request: AdmissionRequest) => Promise<SearchAdmission> {
  let admit = admissionGroups.get(db);
  if (!admit) {
    admit = groupCalls((requests: AdmissionRequest[]) => admitGroup(db, requests), 64);
    admissionGroups.set(db, admit);
  }
  return admit;
}

/** 429 for an admission that took no slot of the per-minute budget. */
export function minuteBudgetExceeded(org: Organization, admission: SearchAdmission, now: Date): Rejection {
  return new Rejection("QUOTA_EXCEEDED", `per-minute budget of ${org.limits.perMinute} requests is used up`, {
    retryAfterSeconds: secondsUntil(admission.minuteResetAt, now.getTime()),
  });
}

/** Takes one request from the per-minute budget shared by search and tool calls. */
export async function takeMinuteBudget(db: Db, org: Organization, now: Date): Promise<void> {
  const hit = await guarded("the quota store", () =>
    takeFromWindow(db.relaxed, `minute:${org.id}`, MINUTE_MS, org.limits.perMinute, now.getTime()),
  );
  if (!hit.allowed) {
    throw new Rejection("QUOTA_EXCEEDED", `per-minute budget of ${org.limits.perMinute} requests is used up`, {
      retryAfterSeconds: secondsUntil(hit.resetAt, now.getTime()),
    });
  }
}

/**
 * Who pays a request's slot of the per-minute budget: an API key's organization (REST or MCP). A dashboard member's
 * or the operator's request is unmetered: the per-IP limiter guards both.
 */
export type BudgetPayer = { org: Organization } | "unmetered";

/** The per-minute budget taken in one step, inside the use case that answers the request. */
export async function takeMinuteBudgetOf(db: Db, payer: BudgetPayer, now: Date): Promise<void> {
  if (payer !== "unmetered") await takeMinuteBudget(db, payer.org, now);
}

export async function takePreviewBudget(db: Db, org: Organization, now: Date): Promise<void> {
  const hit = await guarded("the quota store", () =>
    takeFromWindow(db.relaxed, `preview:${org.id}`, HOUR_MS, org.limits.previewPerHour, now.getTime()),
  );
  if (!hit.allowed) {
    throw new Rejection(
      "PREVIEW_RATE_LIMIT_EXCEEDED",
      `preview limit of ${org.limits.previewPerHour} per hour is used up`,
      { retryAfterSeconds: secondsUntil(hit.resetAt, now.getTime()) },
    );
  }
}
