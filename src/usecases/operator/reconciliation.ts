// Reconciliation for finance: per day and collection, what the event log says was charged, credited, refunded and
// unlocked, checked against the projections (ledger, balances, per-collection usage). Every disagreement is reported.
import type { Db, Queryable } from "../../eventstore/db.js";
import { readStream } from "../../eventstore/eventStore.js";
import { orgStream, type StoredEvent } from "../../domain/events.js";
import { selectList, normalizeRow } from "../../../projections/sqlProjection.js";
import { COLLECTION_USAGE, LEDGER } from "../accounts/accountTables.js";
import { isCalendarDay } from "../../domain/calendarDay.js";

interface ReconciliationLine {
  day: string;
  /** null for money that belongs to no collection (credits, a refund tied to no query) */
  collection: string | null;
  searches: number;
  chargesMicros: bigint;
  unlocksMicros: bigint;
  unlockedResults: number;
  creditsMicros: bigint;
  refundsMicros: bigint;
}

type DiscrepancyKind =
  "balance_equation" | "ledger_chain" | "ledger_vs_events" | "usage_vs_events" | "balance_projection";

interface Discrepancy {
  orgId: string;
  kind: DiscrepancyKind;
  day?: string;
  collection?: string | null;
  position?: number;
  expected: string;
  found: string;
  message: string;
}

export interface OrgReconciliation {
  orgId: string;
  from: string;
  to: string;
  openingMicros: bigint;
  creditsMicros: bigint;
  /** search charges, unlock charges and priced tool calls */
  chargesMicros: bigint;
  refundsMicros: bigint;
  closingMicros: bigint;
  lines: ReconciliationLine[];
  discrepancies: Discrepancy[];
}

export interface ReconciliationPeriod {
  /** first UTC day, inclusive (YYYY-MM-DD); null from the beginning */
  from: string | null;
  /** last UTC day, inclusive; null up to now */
  to: string | null;
}

const dayOf = (iso: string) => iso.slice(0, 10);

/**
 * The period a reconciliation covers, or why it covers none: each bound a day of the calendar, `from` not after `to`,
 * and neither after today (UTC), since a day that has not ended has no closing balance to state. The range may be long:
 * the opening balance folds the whole log whatever the range, so a decade costs what a day does.
 */
export function reconciliationPeriod(
  from: string | undefined,
  to: string | undefined,
  today: string,
): { ok: true; period: ReconciliationPeriod } | { ok: false; error: string } {
  for (const [name, value] of [
    ["from", from],
    ["to", to],
  ] as const)
    if (value !== undefined && !isCalendarDay(value))
      return { ok: false, error: `${name} must be a day as YYYY-MM-DD (2026-11-01), not "${value.slice(0, 20)}"` };
  for (const [name, value] of [
    ["from", from],
    ["to", to],
  ] as const)
    if (value !== undefined && value > today)
      return {
        ok: false,
        error:
          `${name} (${value}) is after today (${today}, UTC): the books close at today; ` +
          `give ${today} or an earlier day`,
      };
  if (from !== undefined && to !== undefined && from > to)
    return { ok: false, error: `from (${from}) is after to (${to}): swap them` };
  return { ok: true, period: { from: from ?? null, to: to ?? null } };
}

interface MoneyTotals {
  credits: bigint;
  charges: bigint;
  refunds: bigint;
}

/**
 * A refund of a query split over the collections it charged, in proportion to what each charged (the micro-credits
 * left by rounding down go to the collection that charged most): the shares sum to the refund. None when the query
 * named no collection (the refund stays on the day's null-collection line).
 */
export function refundShares(amount: bigint, charged: ReadonlyMap<string, bigint>): [string, bigint][] {
  const entries = [...charged.entries()].sort((a, b) =>
    b[1] > a[1] ? 1 : b[1] < a[1] ? -1 : a[0].localeCompare(b[0]),
  );
  if (entries.length === 0) return [];
  const total = entries.reduce((s, [, v]) => s + v, 0n);
  if (total === 0n) return [[entries[0]![0], amount]];
  const shares = entries.map(([c, v]): [string, bigint] => [c, (amount * v) / total]);
  shares[0]![1] += amount - shares.reduce((s, [, v]) => s + v, 0n);
  return shares;
}

/** Folds one organization's events: the opening balance before `from` and the lines within the period. */
export function foldOrganizationEvents(events: StoredEvent[], period: ReconciliationPeriod) {
  let opening = 0n;
  const totals: MoneyTotals = { credits: 0n, charges: 0n, refunds: 0n };
  const lines = new Map<string, ReconciliationLine>();
  const perDay = new Map<string, MoneyTotals>();
  const line = (day: string, collection: string | null) => {
    const k = `${day}\u0000${collection ?? ""}`;
    let l = lines.get(k);
    if (!l) {
      l = {
        day,
        collection,
        searches: 0,
        chargesMicros: 0n,
        unlocksMicros: 0n,
        unlockedResults: 0,
        creditsMicros: 0n,
        refundsMicros: 0n,
      };
      lines.set(k, l);
    }
    return l;
  };
  const dayTotals = (day: string) => {
    let t = perDay.get(day);
    if (!t) perDay.set(day, (t = { credits: 0n, charges: 0n, refunds: 0n }));
    return t;
  };
  // what each query charged per collection, before the period too: a refund tied to a query lands on its collections
  const charged = new Map<string, Map<string, bigint>>();
  for (const e of events) {
    const day = dayOf(e.recordedAt);
    if (period.to !== null && day > period.to) break;
    const before = period.from !== null && day < period.from;
    if (e.type === "SearchCharged" || e.type === "ResultsUnlocked") {
      const byCollection = charged.get(e.data.queryId) ?? new Map<string, bigint>();
      for (const l of e.data.collections)
        byCollection.set(l.collection, (byCollection.get(l.collection) ?? 0n) + BigInt(l.amountMicros));
      charged.set(e.data.queryId, byCollection);
    }
    switch (e.type) {
      case "CreditsAdded":
      case "RefundIssued": {
        const a = BigInt(e.data.amountMicros);
        if (before) opening += a;
        else {
          const kind = e.type === "CreditsAdded" ? "credits" : "refunds";
          totals[kind] += a;
          dayTotals(day)[kind] += a;
          const query = e.type === "RefundIssued" && e.data.queryId ? charged.get(e.data.queryId) : undefined;
          const split = query ? refundShares(a, query) : [];
          for (const [collection, share] of split) line(day, collection).refundsMicros += share;
          if (split.length === 0) line(day, null)[`${kind}Micros`] += a;
        }
        break;
      }
      case "ToolCallCharged":
      case "SearchCharged":
      case "ResultsUnlocked": {
        const a = BigInt(e.data.amountMicros);
        if (before) {
          opening -= a;
          break;
        }
        totals.charges += a;
        dayTotals(day).charges += a;
        // a tool call's money belongs to no collection, like credits: on the day's null-collection line
        if (e.type === "ToolCallCharged") line(day, null).chargesMicros += a;
        else {
          for (const l of e.data.collections) {
            const target = line(day, l.collection);
            if (e.type === "SearchCharged") {
              target.searches += 1;
              target.chargesMicros += BigInt(l.amountMicros);
            } else {
              target.unlocksMicros += BigInt(l.amountMicros);
              target.unlockedResults += l.results ?? 0;
            }
          }
        }
        break;
      }
      default:
        break;
    }
  }
  const sorted = [...lines.values()].sort((a, b) =>
    a.day === b.day ? (a.collection ?? "").localeCompare(b.collection ?? "") : a.day < b.day ? -1 : 1,
  );
  return {
    opening,
    totals,
    closing: opening + totals.credits - totals.charges + totals.refunds,
    lines: sorted,
    perDay,
  };
}

const fmt = (v: bigint) => v.toString();

type OrganizationFold = ReturnType<typeof foldOrganizationEvents>;
type Report = (d: Omit<Discrepancy, "orgId">) => void;

/** The ledger projection: its own arithmetic (each balance follows from the one before), then against the events. */
async function checkLedger(
  db: Queryable,
  orgId: string,
  period: ReconciliationPeriod,
  fold: OrganizationFold,
  report: Report,
): Promise<void> {
  const ledger = (
    await db.query(`SELECT ${selectList(LEDGER)} FROM proj_ledger WHERE org_id = $1 ORDER BY proj_ledger.position`, [
      orgId,
    ])
  ).map((r) => normalizeRow(LEDGER, r));
  let running = 0n;
  let ledgerOpening = 0n;
  let ledgerClosing: bigint | undefined;
  const ledgerPerDay = new Map<string, MoneyTotals>();
  for (const row of ledger) {
    const amount = BigInt(row.amount_micros);
    const after = BigInt(row.balance_after_micros);
    if (running + amount !== after) {
      report({
        kind: "ledger_chain",
        position: row.position,
        day: dayOf(row.time),
        expected: fmt(running + amount),
        found: fmt(after),
        message: `ledger entry at position ${row.position}: balance after does not follow from the entry before it`,
      });
    }
    running = after;
    const day = dayOf(row.time);
    if (period.from !== null && day < period.from) {
      ledgerOpening = after;
      continue;
    }
    if (period.to !== null && day > period.to) break;
    ledgerClosing = after;
    const t = ledgerPerDay.get(day) ?? { credits: 0n, charges: 0n, refunds: 0n };
    if (row.type === "credit") t.credits += amount;
    else if (row.type === "refund") t.refunds += amount;
    else t.charges += -amount;
    ledgerPerDay.set(day, t);
  }
  ledgerClosing ??= ledgerOpening;
  const ledgerTotals = [...ledgerPerDay.values()].reduce(
    (s, t) => ({ credits: s.credits + t.credits, charges: s.charges + t.charges, refunds: s.refunds + t.refunds }),
    { credits: 0n, charges: 0n, refunds: 0n },
  );
  const equation = ledgerOpening + ledgerTotals.credits - ledgerTotals.charges + ledgerTotals.refunds;
  if (equation !== ledgerClosing) {
    report({
      kind: "balance_equation",
      expected: fmt(equation),
      found: fmt(ledgerClosing),
      message: "ledger: opening balance + credits - charges + refunds does not equal the closing balance",
    });
  }
  if (ledgerOpening !== fold.opening)
    report({
      kind: "ledger_vs_events",
      expected: fmt(fold.opening),
      found: fmt(ledgerOpening),
      message: "opening balance in the ledger differs from the event log",
    });
  if (ledgerClosing !== fold.closing)
    report({
      kind: "ledger_vs_events",
      expected: fmt(fold.closing),
      found: fmt(ledgerClosing),
      message: "closing balance in the ledger differs from the event log",
    });
  for (const day of new Set([...fold.perDay.keys(), ...ledgerPerDay.keys()])) {
    const e = fold.perDay.get(day) ?? { credits: 0n, charges: 0n, refunds: 0n };
    const l = ledgerPerDay.get(day) ?? { credits: 0n, charges: 0n, refunds: 0n };
    for (const k of ["credits", "charges", "refunds"] as const) {
      if (e[k] !== l[k])
        report({
          kind: "ledger_vs_events",
          day,
          expected: fmt(e[k]),
          found: fmt(l[k]),
          message: `${k} on ${day}: the ledger differs from the event log`,
        });
    }
  }
}

/** The per-collection usage projection against the event lines: every line its row, no row without a line. */
async function checkUsage(
  db: Queryable,
  orgId: string,
  period: ReconciliationPeriod,
  fold: OrganizationFold,
  report: Report,
): Promise<void> {
  const usageRows = (
    await db.query(`SELECT ${selectList(COLLECTION_USAGE)} FROM proj_collection_usage WHERE org_id = $1`, [orgId])
  ).map((r) => normalizeRow(COLLECTION_USAGE, r));
  const usage = new Map(
    usageRows
      .filter((u) => (period.from === null || u.day >= period.from) && (period.to === null || u.day <= period.to))
      .map((u) => [`${u.day}\u0000${u.collection}`, u]),
  );
  for (const l of fold.lines) {
    if (l.collection === null) continue;
    const key = `${l.day}\u0000${l.collection}`;
    const u = usage.get(key);
    usage.delete(key);
    const found = u
      ? `charges=${u.charged_micros} unlocks=${u.unlocked_micros} searches=${u.queries} unlocked=${u.unlocked_results}`
      : "no row";
    const expected =
      `charges=${l.chargesMicros} unlocks=${l.unlocksMicros} ` + `searches=${l.searches} unlocked=${l.unlockedResults}`;
    if (found !== expected)
      report({
        kind: "usage_vs_events",
        day: l.day,
        collection: l.collection,
        expected,
        found,
        message: `usage of ${l.collection} on ${l.day} differs from the event log`,
      });
  }
  for (const u of usage.values()) {
    report({
      kind: "usage_vs_events",
      day: u.day,
      collection: u.collection,
      expected: "no row",
      found:
        `charges=${u.charged_micros} unlocks=${u.unlocked_micros} searches=${u.queries} unlocked=` +
        `${u.unlocked_results}`,
      message: `usage of ${u.collection} on ${u.day} has no events behind it`,
    });
  }
}

/** The balance projection against the events' closing balance, when the period runs up to now. */
async function checkBalance(
  db: Queryable,
  orgId: string,
  period: ReconciliationPeriod,
  today: string,
  fold: OrganizationFold,
  report: Report,
): Promise<void> {
  if (period.to === null || period.to >= today) {
    const [bal] = await db.query<{ b: string }>(
      "SELECT balance_micros::text AS b FROM proj_balances WHERE org_id = $1",
      [orgId],
    );
    const balance = bal ? BigInt(bal.b) : 0n;
    if (balance !== fold.closing)
      report({
        kind: "balance_projection",
        expected: fmt(fold.closing),
        found: fmt(balance),
        message: "the balance projection differs from the event log",
      });
  }
}

/** Reconciles one organization: events against the ledger, the per-collection usage and the balance. */
async function reconcileOrganization(
  db: Queryable,
  orgId: string,
  period: ReconciliationPeriod,
  today: string,
): Promise<OrgReconciliation> {
  const events = await readStream(db, orgStream(orgId));
  const fold = foldOrganizationEvents(events, period);
  const discrepancies: Discrepancy[] = [];
  const report: Report = (d) => {
    discrepancies.push({ orgId, ...d });
  };
  await checkLedger(db, orgId, period, fold, report);
  await checkUsage(db, orgId, period, fold, report);
  await checkBalance(db, orgId, period, today, fold, report);

  return {
    orgId,
    from: period.from ?? (events[0] ? dayOf(events[0].recordedAt) : today),
    to: period.to ?? today,
    openingMicros: fold.opening,
    creditsMicros: fold.totals.credits,
    chargesMicros: fold.totals.charges,
    refundsMicros: fold.totals.refunds,
    closingMicros: fold.closing,
    lines: fold.lines,
    discrepancies,
  };
}

/** Every organization in the log. */
export async function organizationIdsInLog(db: Queryable): Promise<string[]> {
  const rows = await db.query<{ org_id: string }>(
    `SELECT DISTINCT data->>'orgId' AS org_id FROM events WHERE type = 'OrganizationCreated' ORDER BY 1`,
  );
  return rows.map((r) => r.org_id);
}

/**
 * Reconciles one organization reading its events, ledger, usage and balance in one snapshot: charges that land
 * meanwhile are in all of them or in none, so live traffic never shows as a discrepancy.
 */
export function reconcileAtOneCut(
  db: Db,
  orgId: string,
  period: ReconciliationPeriod,
  today: string,
): Promise<OrgReconciliation> {
  return db.transaction((tx) => reconcileOrganization(tx, orgId, period, today), { oneSnapshot: true });
}
