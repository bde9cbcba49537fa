// The usage page's figures for a date range: per day, key and collection, folded from the organization's charge
// events (the same events the ledger lists), so the per-key and per-collection totals add up to the ledger's charges
// for the range. The range's rules (dates, order, length, quick choices) are pure functions here.
import { isCalendarDay } from "../../domain/calendarDay.js";
import type { Db } from "../../eventstore/db.js";
import type { RowOf } from "../../../projections/tables.js";
import { orgStream, type DomainEvent } from "../../domain/events.js";
import { dayPeriod } from "../../domain/queryQuota.js";

/** The quick choices the page offers: the last 7, 30 or 90 days. */
export const USAGE_QUICK_DAYS = [7, 30, 90] as const;
export const DEFAULT_USAGE_DAYS = 30;
/** The longest range the page draws: a year and a day (a leap year's whole). */
const MAX_USAGE_RANGE_DAYS = 366;
/** Tool calls belong to no collection: their spend shows on this line. */
const TOOLS_COLLECTION = "(tools)";

/** First and last UTC day, both inclusive (YYYY-MM-DD). */
export interface UsageRange {
  from: string;
  to: string;
}

/** What the range form sent: the fields as typed, kept for the form when they are refused. */
export interface UsageRangeInput {
  from?: string;
  to?: string;
  days?: string;
}

type UsageRangeResult = { ok: true; range: UsageRange } | { ok: false; error: string };

const MS_PER_DAY = 86_400_000;

/** The day `n` days after `day` (negative: before). */
function addDays(day: string, n: number): string {
  return new Date(Date.parse(`${day}T00:00:00Z`) + n * MS_PER_DAY).toISOString().slice(0, 10);
}

/** Every day of the range, oldest first. */
function daysOf(range: UsageRange): string[] {
  const out: string[] = [];
  for (let d = range.from; d <= range.to; d = addDays(d, 1)) out.push(d);
  return out;
}

/**
 * The range a request asks for, or why it cannot be drawn (each message names the fix): `days` (7, 30 or 90) ends
 * today; `from` and `to` are UTC days, `to` today when empty; nothing at all is the last 30 days.
 */
export function parseUsageRange(input: UsageRangeInput, today: string): UsageRangeResult {
  const from = input.from?.trim() ?? "";
  const to = input.to?.trim() ?? "";
  const days = input.days?.trim() ?? "";
  if (days !== "") {
    const n = Number(days);
    if (!USAGE_QUICK_DAYS.includes(n as (typeof USAGE_QUICK_DAYS)[number]))
      return { ok: false, error: `days must be 7, 30 or 90 (got "${days.slice(0, 20)}"); or give from and to` };
    return { ok: true, range: { from: addDays(today, 1 - n), to: today } };
  }
  if (from === "" && to === "") return { ok: true, range: { from: addDays(today, 1 - DEFAULT_USAGE_DAYS), to: today } };
  if (from === "") return { ok: false, error: "from is empty: give the first day, as YYYY-MM-DD (2026-11-01)" };
  for (const [name, value] of [
    ["from", from],
    ["to", to],
  ] as const)
    if (value !== "" && !isCalendarDay(value))
      return { ok: false, error: `${name} must be a day as YYYY-MM-DD (2026-11-01), not "${value.slice(0, 20)}"` };
  const last = to === "" ? today : to;
  if (last > today) return { ok: false, error: `to (${last}) is in the future: the last day with usage is ${today}` };
  if (from > last) return { ok: false, error: `from (${from}) is after to (${last}): swap them` };
  const span = daysOf({ from, to: last }).length;
  if (span > MAX_USAGE_RANGE_DAYS)
    return {
      ok: false,
      error: `the range holds ${span} days; choose at most ${MAX_USAGE_RANGE_DAYS} (download the CSV per year)`,
    };
  return { ok: true, range: { from, to: last } };
}

/** One day's usage of one collection by one key. */
export interface UsageLine {
  day: string;
  keyId: string;
  collection: string;
  searches: number;
  unlockedResults: number;
  tokens: bigint;
  spendMicros: bigint;
}

type ChargeEvent = Extract<DomainEvent, { type: "SearchCharged" | "ResultsUnlocked" | "ToolCallCharged" }>;
export type DatedCharge = ChargeEvent & { recordedAt: string };

/**
 * Folds charge events into lines: a search counts once on each collection it searched, an unlock counts its rows, a
 * tool call's spend goes on the "(tools)" line. The spend of each line is the event's per-collection amount, which
 * add up to the event's amount (what the ledger shows).
 */
export function foldUsage(events: DatedCharge[]): UsageLine[] {
  const lines = new Map<string, UsageLine>();
  const line = (day: string, keyId: string, collection: string) => {
    const k = `${day}\u0000${keyId}\u0000${collection}`;
    let l = lines.get(k);
    if (!l) {
      l = { day, keyId, collection, searches: 0, unlockedResults: 0, tokens: 0n, spendMicros: 0n };
      lines.set(k, l);
    }
    return l;
  };
  for (const e of events) {
    const day = e.recordedAt.slice(0, 10);
    if (e.type === "ToolCallCharged") {
      line(day, e.data.keyId, TOOLS_COLLECTION).spendMicros += BigInt(e.data.amountMicros);
      continue;
    }
    for (const c of e.data.collections) {
      const l = line(day, e.data.keyId, c.collection);
      l.tokens += BigInt(c.tokens);
      l.spendMicros += BigInt(c.amountMicros);
      if (e.type === "SearchCharged") l.searches += 1;
      else l.unlockedResults += c.results ?? 0;
    }
  }
  return [...lines.values()].sort(
    (a, b) => a.day.localeCompare(b.day) || a.collection.localeCompare(b.collection) || a.keyId.localeCompare(b.keyId),
  );
}

/** The totals of some lines, grouped by `by` (a key id or a collection), largest spend first. */
export function usageTotals(lines: UsageLine[], by: (l: UsageLine) => string) {
  const groups = new Map<string, Omit<UsageLine, "day" | "keyId" | "collection"> & { name: string }>();
  for (const l of lines) {
    const name = by(l);
    const g = groups.get(name) ?? { name, searches: 0, unlockedResults: 0, tokens: 0n, spendMicros: 0n };
    g.searches += l.searches;
    g.unlockedResults += l.unlockedResults;
    g.tokens += l.tokens;
    g.spendMicros += l.spendMicros;
    groups.set(name, g);
  }
  return [...groups.values()].sort((a, b) =>
    a.spendMicros === b.spendMicros ? a.name.localeCompare(b.name) : a.spendMicros > b.spendMicros ? -1 : 1,
  );
}

/** Per day and collection (every key together), oldest first. */
export function dailyUsage(report: Pick<UsageReport, "lines">) {
  return usageTotals(report.lines, (l) => `${l.day}\u0000${l.collection}`)
    .map((g) => {
      const [day, collection] = g.name.split("\u0000") as [string, string];
      const { searches, unlockedResults, tokens, spendMicros } = g;
      return { day, collection, searches, unlockedResults, tokens, spendMicros };
    })
    .sort((a, b) => a.day.localeCompare(b.day) || a.collection.localeCompare(b.collection));
}

/** A day's row of proj_collection_usage: one collection's searches, unlocked rows, tokens and spend. */
type CollectionDayRow = Omit<RowOf["collection_usage"], "org_id">;

/**
 * Per day and collection from the projections, what dailyUsage folds from the events: the collections' rows, and a
 * day's "(tools)" line as what the day's usage row spent beyond them (a tool call's charge reaches no collection;
 * every other charge's collection lines add up to its amount).
 */
export function dailyUsageOfProjections(
  collectionDays: readonly CollectionDayRow[],
  daySpend: ReadonlyMap<string, bigint>,
): ReturnType<typeof dailyUsage> {
  const rows = collectionDays.map((r) => ({
    day: r.day,
    collection: r.collection,
    searches: Number(r.queries),
    unlockedResults: Number(r.unlocked_results),
    tokens: BigInt(r.tokens),
    spendMicros: BigInt(r.charged_micros) + BigInt(r.unlocked_micros),
  }));
  for (const [day, spend] of daySpend) {
    const tools = spend - rows.filter((r) => r.day === day).reduce((s, r) => s + r.spendMicros, 0n);
    if (tools > 0n)
      rows.push({ day, collection: TOOLS_COLLECTION, searches: 0, unlockedResults: 0, tokens: 0n, spendMicros: tools });
  }
  return rows
    .filter((r) => r.searches > 0 || r.unlockedResults > 0 || r.tokens > 0n || r.spendMicros > 0n)
    .sort((a, b) => a.day.localeCompare(b.day) || a.collection.localeCompare(b.collection));
}

/** The organization's usage per day and collection over some days, read from the projections (no event scan). */
export async function readDailyUsage(db: Db, orgId: string, days: readonly string[]) {
  const [collectionDays, usageDays] = await Promise.all([
    db.query<CollectionDayRow>(
      `SELECT day, collection, queries, unlocked_results, tokens::text AS tokens,
         charged_micros::text AS charged_micros, unlocked_micros::text AS unlocked_micros
       FROM proj_collection_usage WHERE org_id = $1 AND day = ANY($2)`,
      [orgId, days],
    ),
    db.query<{ period: string; amount_micros: string }>(
      "SELECT period, amount_micros::text AS amount_micros FROM proj_usage WHERE org_id = $1 AND period = ANY($2)",
      [orgId, days.map((d) => dayPeriod(`${d}T00:00:00.000Z`))],
    ),
  ]);
  const byPeriod = new Map(usageDays.map((u) => [u.period, BigInt(u.amount_micros)]));
  const daySpend = new Map(
    days.flatMap((d) => {
      const spend = byPeriod.get(dayPeriod(`${d}T00:00:00.000Z`));
      return spend === undefined ? [] : [[d, spend] as const];
    }),
  );
  return dailyUsageOfProjections(collectionDays, daySpend);
}

export interface UsageReport {
  range: UsageRange;
  days: string[];
  lines: UsageLine[];
  /** the keys the lines name, by id (a key's name and prefix) */
  keys: ReadonlyMap<string, { prefix: string; name: string | null }>;
}

/** The organization's usage in a range, from its charge events, with the names of the keys they name. */
export async function readUsageReport(db: Db, orgId: string, range: UsageRange): Promise<UsageReport> {
  const events = await db.query<{ type: ChargeEvent["type"]; data: ChargeEvent["data"]; recorded_at: Date | string }>(
    `SELECT type, data, recorded_at FROM events WHERE stream_id = $1
       AND type IN ('SearchCharged', 'ResultsUnlocked', 'ToolCallCharged')
       AND recorded_at >= $2::timestamptz AND recorded_at < $3::timestamptz ORDER BY stream_version`,
    [orgStream(orgId), `${range.from}T00:00:00Z`, `${addDays(range.to, 1)}T00:00:00Z`],
  );
  const keys = await db.query<{ key_id: string; key_prefix: string; name: string | null }>(
    "SELECT key_id, key_prefix, name FROM proj_api_keys WHERE org_id = $1",
    [orgId],
  );
  const lines = foldUsage(
    events.map(
      (e) => ({ type: e.type, data: e.data, recordedAt: new Date(e.recorded_at).toISOString() }) as DatedCharge,
    ),
  );
  return {
    range,
    days: daysOf(range),
    lines,
    keys: new Map(keys.map((k) => [k.key_id, { prefix: k.key_prefix, name: k.name }])),
  };
}
