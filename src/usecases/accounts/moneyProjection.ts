// The money's projection, shared by the events that move it: an organization's version, its balance and ledger lines,
// its usage per period and per requested collection, a key's spend and its last use. The accounts' own events
// (accountProjection.ts) and an unlock (src/usecases/unlock/unlockProjection.ts) build their changes from these.
// The same handlers feed the inline projector and replay; they update the rows the reader hands out in place and
// return them as the changes (replay folds millions of events, where a copy per change is most of the cost).
import type { CollectionCharge, ProjectableEvent } from "../../domain/events.js";
import { dayPeriod, monthPeriod } from "../../domain/queryQuota.js";
import type { BalanceRow, OrganizationRow, UsageRow } from "./accountTables.js";
import type { Change, ProjectionReader } from "../../../projections/projectionReader.js";

const add = (a: string, b: bigint) => (BigInt(a) + b).toString();

function requireBalance(read: ProjectionReader, orgId: string): BalanceRow {
  const row = read.balance(orgId);
  if (!row) throw new Error(`projection: no balance row for organization ${orgId}`);
  return row;
}

export function bumpOrgVersion(
  read: ProjectionReader,
  e: ProjectableEvent,
  orgId: string,
  patch: Partial<OrganizationRow> | ((org: OrganizationRow) => Partial<OrganizationRow>),
): Change {
  const org = read.organization(orgId);
  if (!org) throw new Error(`projection: no organization ${orgId}`);
  return {
    table: "organizations",
    row: Object.assign(org, typeof patch === "function" ? patch(org) : patch, { version: e.streamVersion }),
  };
}

const emptyUsage = (orgId: string, period: string): UsageRow => ({
  org_id: orgId,
  period,
  queries: 0,
  tokens: "0",
  amount_micros: "0",
  catalogue_answers: 0,
});

/** A free catalogue answer: counted per day and month beside the queries, never as one. */
export function catalogueAnswerChanges(read: ProjectionReader, e: ProjectableEvent, orgId: string): Change[] {
  return [dayPeriod(e.recordedAt), monthPeriod(e.recordedAt)].map((period) => {
    const row = read.usage(orgId, period) ?? emptyUsage(orgId, period);
    return { table: "usage", row: Object.assign(row, { catalogue_answers: row.catalogue_answers + 1 }) };
  });
}

export function usageChanges(
  read: ProjectionReader,
  e: ProjectableEvent,
  orgId: string,
  queries: number,
  tokens: number,
  amount: bigint,
): Change[] {
  const out: Change[] = [];
  for (const period of [dayPeriod(e.recordedAt), monthPeriod(e.recordedAt)]) {
    const row = read.usage(orgId, period) ?? emptyUsage(orgId, period);
    out.push({
      table: "usage",
      row: Object.assign(row, {
        queries: row.queries + queries,
        tokens: add(row.tokens, BigInt(tokens)),
        amount_micros: add(row.amount_micros, amount),
      }),
    });
  }
  return out;
}

/**
 * Per day and requested collection: a search counts one query on each of its collections; an unlock counts its rows.
 */
export function collectionUsageChanges(
  read: ProjectionReader,
  e: ProjectableEvent,
  orgId: string,
  lines: CollectionCharge[],
  kind: "search" | "unlock",
  rowsByCollection: Map<string, number>,
): Change[] {
  const day = e.recordedAt.slice(0, 10);
  const out: Change[] = [];
  for (const line of lines) {
    const row = read.collectionUsage(orgId, day, line.collection) ?? {
      org_id: orgId,
      day,
      collection: line.collection,
      queries: 0,
      unlocked_results: 0,
      tokens: "0",
      charged_micros: "0",
      unlocked_micros: "0",
    };
    const amount = BigInt(line.amountMicros);
    out.push({
      table: "collection_usage",
      row:
        kind === "search"
          ? Object.assign(row, {
              queries: row.queries + 1,
              tokens: add(row.tokens, BigInt(line.tokens)),
              charged_micros: add(row.charged_micros, amount),
            })
          : Object.assign(row, {
              unlocked_results: row.unlocked_results + (rowsByCollection.get(line.collection) ?? 0),
              tokens: add(row.tokens, BigInt(line.tokens)),
              unlocked_micros: add(row.unlocked_micros, amount),
            }),
    });
  }
  return out;
}

/**
 * Money leaving an organization's balance for a search charge or an unlock, with the key's spend and the ledger line.
 */
export function debit(
  read: ProjectionReader,
  e: ProjectableEvent,
  orgId: string,
  keyId: string,
  queryId: string,
  amount: bigint,
  type: "charge" | "unlock",
  reference: string | null = null,
): Change[] {
  if (amount === 0n) return [];
  const bal = requireBalance(read, orgId);
  const next = BigInt(bal.balance_micros) - amount;
  const out: Change[] = [
    {
      table: "balances",
      row: Object.assign(bal, { balance_micros: next.toString(), charged_micros: add(bal.charged_micros, amount) }),
    },
    {
      table: "ledger",
      row: {
        position: e.position,
        org_id: orgId,
        time: e.recordedAt,
        type,
        amount_micros: (-amount).toString(),
        balance_after_micros: next.toString(),
        key_id: keyId,
        query_id: queryId,
        reference,
      },
    },
  ];
  const key = read.apiKey(keyId);
  if (key) out.push({ table: "api_keys", row: Object.assign(key, { spent_micros: add(key.spent_micros, amount) }) });
  return out;
}

/** Money entering a balance: a credit or a refund, with its ledger line and its running total. */
export function moneyIn(
  read: ProjectionReader,
  e: ProjectableEvent,
  orgId: string,
  amount: bigint,
  type: "credit" | "refund",
  queryId: string | null,
  reference: string,
): Change[] {
  const bal = requireBalance(read, orgId);
  const next = BigInt(bal.balance_micros) + amount;
  const total =
    type === "credit"
      ? { credited_micros: add(bal.credited_micros, amount) }
      : { refunded_micros: add(bal.refunded_micros, amount) };
  return [
    bumpOrgVersion(read, e, orgId, {}),
    { table: "balances", row: Object.assign(bal, { balance_micros: next.toString(), ...total }) },
    {
      table: "ledger",
      row: {
        position: e.position,
        org_id: orgId,
        time: e.recordedAt,
        type,
        amount_micros: amount.toString(),
        balance_after_micros: next.toString(),
        key_id: null,
        query_id: queryId,
        reference,
      },
    },
  ];
}

/**
 * The key an event was caused by, as of this event (the dashboard's "last used"): the whole row follows from the event.
 */
export const keyUsed = (e: ProjectableEvent, orgId: string, keyId: string): Change => ({
  table: "key_last_used",
  row: { key_id: keyId, org_id: orgId, used_at: e.recordedAt, position: e.position },
});
