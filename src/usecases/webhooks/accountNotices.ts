// Follows the event log for what an organization asked to be told about its account: its balance falling below the
// threshold it set (`balance.low`, once per crossing) and a key reaching its spending cap (`key.budget_exhausted`, once
// per cap). Publishing is idempotent by the fact's source, so every API process may follow the log at once.
// Each look at the log reads its new events' ledger rows and keys in one query each, whatever their number: two queries
// per event (per search) ran on the HTTP thread beside the searches, and a busy minute's backlog kept it busy for
// seconds after the searches stopped (issue 54's idle CPU).
import type { Db } from "../../eventstore/db.js";
import type { WebhookEventType } from "../../domain/webhooks.js";
import { noticesOf, type CappedKey, type LedgerLine, type WatchedEvent } from "../../domain/accountNotices.js";

interface AccountNoticeDeps {
  db: Db;
  publish: (orgId: string, type: WebhookEventType, data: Record<string, unknown>, source: string) => Promise<unknown>;
  intervalMs?: number;
  onError?: (err: unknown) => void;
}

/** The events after which a balance or a key's spend may have crossed a line. */
const WATCHED = ["SearchCharged", "ResultsUnlocked", "ToolCallCharged", "ApiKeySpendingCapChanged"];

/** Events read in one look at the log. */
const BATCH = 500;

/** The ledger rows of these positions whose organization set a threshold, by position. */
async function ledgerLines(db: Db, events: readonly WatchedEvent[]): Promise<Map<number, LedgerLine>> {
  const positions = events.filter((e) => e.type !== "ApiKeySpendingCapChanged").map((e) => String(e.position));
  if (positions.length === 0) return new Map();
  const rows = await db.query<{ position: string; org_id: string; amount: string; after: string; threshold: string }>(
    `SELECT l.position::text AS position, l.org_id, l.amount_micros::text AS amount,
        l.balance_after_micros::text AS after, n.balance_low_micros::text AS threshold
       FROM proj_ledger l JOIN proj_notification_settings n ON n.org_id = l.org_id
      WHERE l.position = ANY($1::bigint[]) AND n.balance_low_micros IS NOT NULL`,
    [positions],
  );
  return new Map(
    rows.map((r) => [
      Number(r.position),
      { orgId: r.org_id, amount: BigInt(r.amount), balanceAfter: BigInt(r.after), threshold: BigInt(r.threshold) },
    ]),
  );
}

/** The keys these events name that have a spending cap, by id. */
async function cappedKeys(db: Db, events: readonly WatchedEvent[]): Promise<Map<string, CappedKey>> {
  const ids = [...new Set(events.flatMap((e) => (e.keyId === null ? [] : [e.keyId])))];
  if (ids.length === 0) return new Map();
  const rows = await db.query<{ key_id: string; org_id: string; spent: string; cap: string }>(
    `SELECT key_id, org_id, spent_micros::text AS spent, spending_cap_micros::text AS cap FROM proj_api_keys ` +
      `WHERE key_id = ANY($1::text[]) AND spending_cap_micros IS NOT NULL`,
    [ids],
  );
  return new Map(rows.map((r) => [r.key_id, { orgId: r.org_id, spent: BigInt(r.spent), cap: BigInt(r.cap) }]));
}

export function followAccountNotices(deps: AccountNoticeDeps) {
  const { db } = deps;
  // from the log's head when the process started: what happened before was told by the process running then
  let last: number | undefined;
  let timer: NodeJS.Timeout | undefined;
  let running: Promise<void> | undefined;

  async function check(): Promise<void> {
    if (last === undefined) {
      const [head] = await db.query<{ p: string }>("SELECT coalesce(max(position), 0)::text AS p FROM events");
      last = Number(head?.p ?? 0);
      return;
    }
    const rows = await db.query<{ position: string; type: string; key_id: string | null }>(
      `SELECT position::text AS position, type, data->>'keyId' AS key_id FROM events WHERE position > $1 AND ` +
        `type = ANY($2) ORDER BY position LIMIT ${BATCH}`,
      [last, WATCHED],
    );
    if (rows.length === 0) return;
    const events = rows.map((r) => ({ position: Number(r.position), type: r.type, keyId: r.key_id }));
    const [ledger, keys] = [await ledgerLines(db, events), await cappedKeys(db, events)];
    // the batch's notices all told before the log is followed past it: a failed publish is tried again next look
    for (const n of noticesOf(events, ledger, keys)) await deps.publish(n.orgId, n.type, n.data, n.source);
    last = events[events.length - 1]!.position;
  }

  const tick = () => {
    running = check()
      .catch((err: unknown) => deps.onError?.(err))
      .finally(() => {
        if (timer) timer = setTimeout(tick, deps.intervalMs ?? 1000);
      });
  };
  timer = setTimeout(tick, 0);
  return {
    check,
    async stop(): Promise<void> {
      clearTimeout(timer);
      timer = undefined;
      await running;
    },
  };
}
