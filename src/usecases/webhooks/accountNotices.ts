// Follows the event log for what an organization asked to be told about its account: its balance falling below the
// threshold it set (`balance.low`, once per crossing) and a key reaching its spending cap (`key.budget_exhausted`, once
// per cap). Publishing is idempotent by the fact's source, so every API process may follow the log at once.
import type { Db } from "../../eventstore/db.js";
import { formatCredits } from "../../domain/money.js";
import type { WebhookEventType } from "../../domain/webhooks.js";

interface AccountNoticeDeps {
  db: Db;
  publish: (orgId: string, type: WebhookEventType, data: Record<string, unknown>, source: string) => Promise<unknown>;
  intervalMs?: number;
  onError?: (err: unknown) => void;
}

/** The events after which a balance or a key's spend may have crossed a line. */
const WATCHED = ["SearchCharged", "ResultsUnlocked", "ToolCallCharged", "ApiKeySpendingCapChanged"];

/** Whether a balance went from at or above the threshold to below it. */
export function crossedBelow(balanceAfter: bigint, amount: bigint, threshold: bigint): boolean {
  const before = balanceAfter - amount;
  return before >= threshold && balanceAfter < threshold;
}

export function followAccountNotices(deps: AccountNoticeDeps) {
  const { db } = deps;
  // from the log's head when the process started: what happened before was told by the process running then
  let last: number | undefined;
  let timer: NodeJS.Timeout | undefined;
  let running: Promise<void> | undefined;

  async function balanceNotice(position: number): Promise<void> {
    const [row] = await db.query<{ org_id: string; amount: string; after: string; threshold: string }>(
      `SELECT l.org_id, l.amount_micros::text AS amount, l.balance_after_micros::text AS after,
        n.balance_low_micros::text AS threshold
         FROM proj_ledger l JOIN proj_notification_settings n ON n.org_id = l.org_id
        WHERE l.position = $1 AND n.balance_low_micros IS NOT NULL`,
      [position],
    );
    if (!row || !crossedBelow(BigInt(row.after), BigInt(row.amount), BigInt(row.threshold))) return;
    await deps.publish(
      row.org_id,
      "balance.low",
      { balance: formatCredits(BigInt(row.after)), threshold: formatCredits(BigInt(row.threshold)) },
      `balance-low:${row.org_id}:${position}`,
    );
  }

  async function budgetNotice(keyId: string): Promise<void> {
    const [key] = await db.query<{ org_id: string; spent: string; cap: string | null }>(
      `SELECT org_id, spent_micros::text AS spent, spending_cap_micros::text AS cap FROM proj_api_keys WHERE ` +
        `key_id = $1`,
      [keyId],
    );
    if (!key || key.cap === null || BigInt(key.spent) < BigInt(key.cap)) return;
    await deps.publish(
      key.org_id,
      "key.budget_exhausted",
      { keyId, spendingCap: formatCredits(BigInt(key.cap)), spent: formatCredits(BigInt(key.spent)) },
      `key-budget:${keyId}:${key.cap}`,
    );
  }

  async function check(): Promise<void> {
    if (last === undefined) {
      const [head] = await db.query<{ p: string }>("SELECT coalesce(max(position), 0)::text AS p FROM events");
      last = Number(head?.p ?? 0);
      return;
    }
    const rows = await db.query<{ position: string; type: string; key_id: string | null }>(
      `SELECT position::text AS position, type, data->>'keyId' AS key_id FROM events WHERE position > $1 AND ` +
        `type = ANY($2) ORDER BY position LIMIT 500`,
      [last, WATCHED],
    );
    for (const r of rows) {
      if (r.type !== "ApiKeySpendingCapChanged") await balanceNotice(Number(r.position));
      if (r.key_id) await budgetNotice(r.key_id);
      last = Number(r.position);
    }
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
