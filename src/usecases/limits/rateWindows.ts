// Fixed-window counters in the shared database, so limits hold across several API processes.
import type { Queryable } from "../../eventstore/db.js";

interface WindowHit {
  allowed: boolean;
  count: number;
  limit: number;
  /** epoch ms when the window ends */
  resetAt: number;
}

export function windowStart(nowMs: number, windowMs: number): number {
  return Math.floor(nowMs / windowMs) * windowMs;
}

/**
 * Counts one hit in the scope's current window when the limit allows it; a refused hit is not counted.
 * Atomic: one statement, so concurrent requests from several processes cannot both take the last slot.
 */
export async function takeFromWindow(
  db: Queryable,
  scope: string,
  windowMs: number,
  limit: number,
  nowMs: number,
): Promise<WindowHit> {
  const start = windowStart(nowMs, windowMs);
  const resetAt = start + windowMs;
  const rows = await db.query<{ count: number }>(
    `INSERT INTO rate_windows (scope, window_start, count) VALUES ($1, $2, 1)
     ON CONFLICT (scope, window_start) DO UPDATE SET count = rate_windows.count + 1 WHERE rate_windows.count < $3
     RETURNING count`,
    [scope, start, limit],
  );
  if (rows.length === 0 || limit <= 0) {
    return { allowed: false, count: limit, limit, resetAt };
  }
  return { allowed: true, count: Number(rows[0]!.count), limit, resetAt };
}

/** Counts a hit unconditionally (for guards that count failures) and returns the new count. */
export async function countInWindow(
  db: Queryable,
  scope: string,
  windowMs: number,
  nowMs: number,
): Promise<{ count: number; resetAt: number }> {
  const start = windowStart(nowMs, windowMs);
  const rows = await db.query<{ count: number }>(
    `INSERT INTO rate_windows (scope, window_start, count) VALUES ($1, $2, 1)
     ON CONFLICT (scope, window_start) DO UPDATE SET count = rate_windows.count + 1 RETURNING count`,
    [scope, start],
  );
  return { count: Number(rows[0]!.count), resetAt: start + windowMs };
}

export async function readWindow(db: Queryable, scope: string, windowMs: number, nowMs: number): Promise<number> {
  const rows = await db.query<{ count: number }>(
    "SELECT count FROM rate_windows WHERE scope = $1 AND window_start = $2",
    [scope, windowStart(nowMs, windowMs)],
  );
  return rows[0] ? Number(rows[0].count) : 0;
}
