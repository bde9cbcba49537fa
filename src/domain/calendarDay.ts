// A day of the calendar as clients write it, YYYY-MM-DD (UTC). Pure.

/**
 * Whether `text` names a day that exists: 2026-02-31 and 2026-13-01 match the pattern and name none (a Date would roll
 * the first into March and find no time for the second).
 */
export function isCalendarDay(text: string): boolean {
  if (!/^\d{4}-\d{2}-\d{2}$/.test(text)) return false;
  const at = new Date(`${text}T00:00:00Z`);
  return !Number.isNaN(at.getTime()) && at.toISOString().slice(0, 10) === text;
}
