// The daily and monthly query quota rule and its calendar: when a quota is used up and when it resets (UTC).
import type { OrgLimits } from "./events.js";
import { Rejection } from "./rejection.js";

export interface QueryUsage {
  dailyUsed: number;
  monthlyUsed: number;
}

export function nextUtcMidnight(now: Date): Date {
  return new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate() + 1));
}

function nextUtcMonth(now: Date): Date {
  return new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() + 1, 1));
}

/** Whole seconds from now until t, at least 1 (a Retry-After of 0 invites a busy loop). */
export const secondsUntil = (t: number, now: number) => Math.max(1, Math.ceil((t - now) / 1000));

/** Usage periods as the usage projection keys them. */
export const dayPeriod = (iso: string) => `d:${iso.slice(0, 10)}`;
export const monthPeriod = (iso: string) => `m:${iso.slice(0, 7)}`;

/** 429 QUOTA_EXCEEDED when one more query would pass the daily or monthly quota; Retry-After runs to the reset. */
export function assertQuotaLeft(limits: OrgLimits, usage: QueryUsage, now: Date): void {
  if (usage.dailyUsed >= limits.daily) {
    throw new Rejection(
      "QUOTA_EXCEEDED",
      `daily query quota of ${limits.daily} is used up; it resets at the next UTC midnight`,
      {
        retryAfterSeconds: secondsUntil(nextUtcMidnight(now).getTime(), now.getTime()),
      },
    );
  }
  if (usage.monthlyUsed >= limits.monthly) {
    throw new Rejection(
      "QUOTA_EXCEEDED",
      `monthly query quota of ${limits.monthly} is used up; it resets on the first day of next month (UTC)`,
      {
        retryAfterSeconds: secondsUntil(nextUtcMonth(now).getTime(), now.getTime()),
      },
    );
  }
}
