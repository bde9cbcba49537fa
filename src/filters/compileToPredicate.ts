// Compiles a filter AST into a predicate over chunk metadata for the embedded engine; also home of the
// value semantics both compilers share (case-insensitive strings, date periods), so OpenSearch matches alike.
import type { FilterNode, RangeBounds, ScalarValue } from "./ast.js";
import { lowerCaseLikeLucene } from "../text/englishAnalyzer.js";

type MetadataPredicate = (metadata: Readonly<Record<string, unknown>>) => boolean;

/** Metadata fields holding dates (indexed as `date` in OpenSearch, compared as instants here). */
export const DATE_FIELDS: ReadonlySet<string> = new Set(["publication_date", "last_updated_date"]);

/** A date value read as the span of time it names: "2020" is all of 2020, "2020-05-01" that whole day. */
interface DatePeriod {
  /** first millisecond (UTC) */
  start: number;
  /** last millisecond (UTC) */
  end: number;
}

/** A year, then optionally month, day and a time (minutes, seconds and fraction optional) with an optional zone. */
const DATE_PATTERN = new RegExp(
  String.raw`^(\d{4})(?:-(\d{2})(?:-(\d{2})` +
    String.raw`(?:T(\d{2})(?::(\d{2})(?::(\d{2})(?:\.(\d{1,9}))?)?)?(Z|[+-]\d{2}(?::?\d{2})?)?)?)?)?$`,
);

/**
 * Reads an ISO date (yyyy, yyyy-MM, yyyy-MM-dd, or a date-time with optional offset, as OpenSearch's
 * "yyyy-MM-dd||yyyy-MM||yyyy||strict_date_optional_time" formats accept) as a period; undefined if not a calendar date.
 */
export function parseDatePeriod(value: string): DatePeriod | undefined {
  const match = DATE_PATTERN.exec(value.trim());
  if (!match) return undefined;
  const [, yearText, monthText, dayText, hourText, minuteText, secondText, fractionText, offsetText] = match;
  const year = Number(yearText);
  const month = monthText === undefined ? 1 : Number(monthText);
  const day = dayText === undefined ? 1 : Number(dayText);
  const hour = hourText === undefined ? 0 : Number(hourText);
  const minute = minuteText === undefined ? 0 : Number(minuteText);
  const second = secondText === undefined ? 0 : Number(secondText);
  const millisecond = fractionText === undefined ? 0 : Math.floor(Number(`0.${fractionText}`) * 1000 + 1e-6);
  if (month < 1 || month > 12 || day < 1 || day > daysInMonth(year, month)) return undefined;
  if (hour > 23 || minute > 59 || second > 59) return undefined;
  let offsetMinutes = 0;
  if (offsetText !== undefined && offsetText !== "Z") {
    const sign = offsetText.startsWith("-") ? -1 : 1;
    const digits = offsetText.slice(1).replace(":", "");
    offsetMinutes = sign * (Number(digits.slice(0, 2)) * 60 + Number(digits.slice(2) || "0"));
  }
  const start = Date.UTC(year, month - 1, day, hour, minute, second, millisecond) - offsetMinutes * 60_000;
  let end: number;
  if (monthText === undefined) end = Date.UTC(year + 1, 0, 1) - 1;
  else if (dayText === undefined) end = Date.UTC(year, month, 1) - 1;
  else if (hourText === undefined) end = start + 86_400_000 - 1;
  else if (minuteText === undefined) end = start + 3_600_000 - 1;
  else if (secondText === undefined) end = start + 60_000 - 1;
  else if (fractionText === undefined) end = start + 999;
  else end = start;
  return { start, end };
}

function daysInMonth(year: number, month: number): number {
  return new Date(Date.UTC(year, month, 0)).getUTCDate();
}

/** Period of a filter value on a date field; the parser guarantees validity, so a bad value is a bug. */
export function filterDatePeriod(field: string, value: ScalarValue): DatePeriod {
  const period = parseDatePeriod(String(value));
  if (!period) throw new Error(`filter value ${JSON.stringify(value)} for date field "${field}" is not a date`);
  return period;
}

/**
 * Range bounds on a date field as instants: a lower bound counts from the start of its period (gte) or after
 * its end (gt); an upper bound up to the end of its period (lte) or before its start (lt). So
 * `lte: "2020"` includes 2020-12-31 and `gt: "2020-05"` starts in June.
 */
export function dateRangeMillis(
  field: string,
  bounds: RangeBounds,
): { gt?: number; gte?: number; lt?: number; lte?: number } {
  const millis: { gt?: number; gte?: number; lt?: number; lte?: number } = {};
  if (bounds.gte !== undefined) millis.gte = filterDatePeriod(field, bounds.gte).start;
  if (bounds.gt !== undefined) millis.gt = filterDatePeriod(field, bounds.gt).end;
  if (bounds.lte !== undefined) millis.lte = filterDatePeriod(field, bounds.lte).end;
  if (bounds.lt !== undefined) millis.lt = filterDatePeriod(field, bounds.lt).start;
  return millis;
}

/**
 * Stored text longer than this (UTF-16 code units, as Java counts) is kept but not indexed: OpenSearch's keyword
 * `ignore_above` (Lucene caps a term at 32,766 bytes), so no filter matches it there, and none matches it here.
 */
export const MAX_FILTERABLE_TEXT_LENGTH = 8191;

function filterable(value: unknown): boolean {
  return (
    value !== null && value !== undefined && !(typeof value === "string" && value.length > MAX_FILTERABLE_TEXT_LENGTH)
  );
}

/**
 * Whether any stored value of the field (each element of a multi-valued field) passes `test`; null counts as absent.
 */
function anyStoredValue(
  metadata: Readonly<Record<string, unknown>>,
  field: string,
  test: (value: unknown) => boolean,
): boolean {
  const raw = metadata[field];
  if (!Array.isArray(raw)) return filterable(raw) && test(raw);
  for (const value of raw) if (filterable(value) && test(value)) return true;
  return false;
}

function asNumber(value: unknown): number | undefined {
  if (typeof value === "number") return Number.isFinite(value) ? value : undefined;
  if (typeof value === "string" && value.trim() !== "") {
    const parsed = Number(value);
    return Number.isFinite(parsed) ? parsed : undefined;
  }
  return undefined;
}

function asBoolean(value: unknown): boolean | undefined {
  if (typeof value === "boolean") return value;
  if (value === "true") return true;
  if (value === "false") return false;
  return undefined;
}

type Comparable = number | string;

function compareInRange(
  value: Comparable,
  bounds: { gt?: Comparable; gte?: Comparable; lt?: Comparable; lte?: Comparable },
): boolean {
  if (bounds.gt !== undefined && !(value > bounds.gt)) return false;
  if (bounds.gte !== undefined && !(value >= bounds.gte)) return false;
  if (bounds.lt !== undefined && !(value < bounds.lt)) return false;
  if (bounds.lte !== undefined && !(value <= bounds.lte)) return false;
  return true;
}

/** Instants of stored date strings (NaN when unparseable); dates repeat across chunks and queries. */
const storedInstantByText = new Map<string, number>();
const STORED_INSTANT_CACHE_LIMIT = 200_000;

function storedInstant(value: string): number {
  let instant = storedInstantByText.get(value);
  if (instant === undefined) {
    // a stored date is the instant it names (its period's start), as OpenSearch parses it
    instant = parseDatePeriod(value)?.start ?? Number.NaN;
    if (storedInstantByText.size >= STORED_INSTANT_CACHE_LIMIT) storedInstantByText.clear();
    storedInstantByText.set(value, instant);
  }
  return instant;
}

/** Whether any stored date of the field (read as the instant it names) passes `test`. */
function anyStoredInstant(
  metadata: Readonly<Record<string, unknown>>,
  field: string,
  test: (instant: number) => boolean,
): boolean {
  return anyStoredValue(metadata, field, (value) => {
    if (typeof value !== "string") return false;
    const instant = storedInstant(value);
    return !Number.isNaN(instant) && test(instant);
  });
}

/**
 * Whether an instant falls in any of the periods: the periods merged into disjoint spans, sorted, and searched by
 * bisection, so an `in` list of tens of thousands of dates costs a chunk a few comparisons, not one per date.
 */
function inAnyPeriodOf(periods: ReadonlyArray<{ start: number; end: number }>): (instant: number) => boolean {
  const spans: Array<{ start: number; end: number }> = [];
  for (const p of [...periods].sort((a, b) => a.start - b.start)) {
    const last = spans.at(-1);
    if (last && p.start <= last.end) last.end = Math.max(last.end, p.end);
    else spans.push({ start: p.start, end: p.end });
  }
  return (instant) => {
    let low = 0;
    let high = spans.length - 1;
    // the last span that starts at or before the instant
    while (low <= high) {
      const mid = (low + high) >> 1;
      if (spans[mid]!.start <= instant) low = mid + 1;
      else high = mid - 1;
    }
    return high >= 0 && instant <= spans[high]!.end;
  };
}

/**
 * Equality of a stored value with any of the filter values, typed by the stored value as OpenSearch's mapping types
 * it: a number equals a value that reads as that number, a boolean one that reads as that boolean, a string one whose
 * text is the same up to case (or a boolean the string reads as). The values are folded into sets once: an `in` list
 * may hold 70,000 values (the spec's limit per request), and the embedded engine tests every chunk.
 */
function equalsAnyOf(values: readonly ScalarValue[]): (stored: unknown) => boolean {
  const numbers = new Set<number>();
  const booleans = new Set<boolean>();
  const strings = new Set<string>();
  const booleansForText = new Set<boolean>();
  for (const wanted of values) {
    const n = asNumber(wanted);
    if (n !== undefined) numbers.add(n);
    const b = asBoolean(wanted);
    if (b !== undefined) booleans.add(b);
    if (typeof wanted === "boolean") booleansForText.add(wanted);
    else strings.add(lowerCaseLikeLucene(String(wanted)));
  }
  return (stored) => {
    if (typeof stored === "number") return numbers.has(stored);
    if (typeof stored === "boolean") return booleans.has(stored);
    if (typeof stored !== "string") return false;
    if (strings.has(lowerCaseLikeLucene(stored))) return true;
    if (booleansForText.size === 0) return false;
    const b = asBoolean(stored);
    return b !== undefined && booleansForText.has(b);
  };
}

function compileEquality(field: string, values: readonly ScalarValue[]): MetadataPredicate {
  if (DATE_FIELDS.has(field)) {
    const inAnyPeriod = inAnyPeriodOf(values.map((value) => filterDatePeriod(field, value)));
    return (metadata) => anyStoredInstant(metadata, field, inAnyPeriod);
  }
  const equalsAnyWanted = equalsAnyOf(values);
  return (metadata) => anyStoredValue(metadata, field, equalsAnyWanted);
}

function compileRange(field: string, bounds: RangeBounds): MetadataPredicate {
  if (DATE_FIELDS.has(field)) {
    const millis = dateRangeMillis(field, bounds);
    const inRange = (instant: number) => compareInRange(instant, millis);
    return (metadata) => anyStoredInstant(metadata, field, inRange);
  }
  const boundValues = [bounds.gt, bounds.gte, bounds.lt, bounds.lte].filter((value) => value !== undefined);
  const numeric = boundValues.every((value) => asNumber(value) !== undefined);
  if (numeric) {
    const numericBounds = {
      gt: bounds.gt === undefined ? undefined : asNumber(bounds.gt),
      gte: bounds.gte === undefined ? undefined : asNumber(bounds.gte),
      lt: bounds.lt === undefined ? undefined : asNumber(bounds.lt),
      lte: bounds.lte === undefined ? undefined : asNumber(bounds.lte),
    };
    const inRange = (stored: unknown) => {
      const value = asNumber(stored);
      return value !== undefined && compareInRange(value, numericBounds);
    };
    return (metadata) => anyStoredValue(metadata, field, inRange);
  }
  const fold = (value: ScalarValue | undefined) =>
    value === undefined ? undefined : lowerCaseLikeLucene(String(value));
  const keywordBounds = { gt: fold(bounds.gt), gte: fold(bounds.gte), lt: fold(bounds.lt), lte: fold(bounds.lte) };
  const inRange = (stored: unknown) =>
    typeof stored === "string" && compareInRange(lowerCaseLikeLucene(stored), keywordBounds);
  return (metadata) => anyStoredValue(metadata, field, inRange);
}

function compileExists(field: string): MetadataPredicate {
  if (DATE_FIELDS.has(field)) return (metadata) => anyStoredInstant(metadata, field, () => true);
  return (metadata) => anyStoredValue(metadata, field, () => true);
}

/**
 * A predicate that is true for chunk metadata the filter selects. Multi-valued fields match when any element
 * matches; `not` keeps chunks that lack the field (so an issn exclusion keeps chunks without an ISSN).
 */
export function compileToPredicate(node: FilterNode): MetadataPredicate {
  switch (node.kind) {
    case "all":
      return () => true;
    case "none":
      return () => false;
    case "and": {
      const children = node.children.map(compileToPredicate);
      return (metadata) => children.every((child) => child(metadata));
    }
    case "or": {
      const children = node.children.map(compileToPredicate);
      return (metadata) => children.some((child) => child(metadata));
    }
    case "not": {
      const child = compileToPredicate(node.child);
      return (metadata) => !child(metadata);
    }
    case "eq":
      return compileEquality(node.field, [node.value]);
    case "in":
      return compileEquality(node.field, node.values);
    case "range":
      return compileRange(node.field, node.bounds);
    case "exists":
      return compileExists(node.field);
    default: {
      const unhandled: never = node;
      throw new Error(`unknown filter node ${JSON.stringify(unhandled)}`);
    }
  }
}
