// Filter dates: validation of the accepted shapes and the day/month/year each one stands for.

/** A validated filter date: the instant it starts at and the instant the next period starts at. */
export interface FilterDatePeriod {
  /** "YYYY-MM-DD" for whole days, months and years; "YYYY-MM-DDTHH:MM:SS" for a time */
  start: string;
  /** start of the following period, same format as `start`; a time is a point, so its `next` equals `start` */
  next: string;
  precision: "year" | "month" | "day" | "second";
}

const DATE_PATTERN = /^(\d{4})(?:-(\d{2})(?:-(\d{2})(?:T(\d{2}):(\d{2}):(\d{2}))?)?)?$/;

function pad(value: number, width: number): string {
  return String(value).padStart(width, "0");
}

function isoDay(year: number, month: number, day: number): string {
  return `${pad(year, 4)}-${pad(month, 2)}-${pad(day, 2)}`;
}

function daysInMonth(year: number, month: number): number {
  return new Date(Date.UTC(year, month, 0)).getUTCDate();
}

function dayAfter(year: number, month: number, day: number): string {
  const next = new Date(Date.UTC(year, month - 1, day + 1));
  return isoDay(next.getUTCFullYear(), next.getUTCMonth() + 1, next.getUTCDate());
}

/**
 * Parses YYYY, YYYY-MM, YYYY-MM-DD or YYYY-MM-DDTHH:MM:SS; `allowPartial` admits the first two.
 * Returns null for any other shape, for non-calendar dates (2021-02-30, month 13, hour 24), and for a day, month or
 * year that ends with year 9999 (9999, 9999-12, 9999-12-31): its end would be year 10000, which neither engine reads
 * as a date.
 */
export function parseFilterDate(raw: string, allowPartial: boolean): FilterDatePeriod | null {
  const match = DATE_PATTERN.exec(raw);
  if (!match) return null;
  const [, yearText, monthText, dayText, hourText, minuteText, secondText] = match;
  const year = Number(yearText);
  if (year < 1) return null;
  if (monthText === undefined) {
    if (!allowPartial) return null;
    if (year >= 9999) return null;
    return { start: isoDay(year, 1, 1), next: isoDay(year + 1, 1, 1), precision: "year" };
  }
  const month = Number(monthText);
  if (month < 1 || month > 12) return null;
  if (dayText === undefined) {
    if (!allowPartial) return null;
    if (year >= 9999 && month === 12) return null;
    const next = month === 12 ? isoDay(year + 1, 1, 1) : isoDay(year, month + 1, 1);
    return { start: isoDay(year, month, 1), next, precision: "month" };
  }
  const day = Number(dayText);
  if (day < 1 || day > daysInMonth(year, month)) return null;
  if (hourText === undefined) {
    if (year === 9999 && month === 12 && day === 31) return null;
    return { start: isoDay(year, month, day), next: dayAfter(year, month, day), precision: "day" };
  }
  const hour = Number(hourText);
  const minute = Number(minuteText);
  const second = Number(secondText);
  if (hour > 23 || minute > 59 || second > 59) return null;
  return { start: raw, next: raw, precision: "second" };
}
