// What the account notices tell (src/usecases/webhooks/accountNotices.ts follows the event log for them): a balance
// falling below the threshold its organization set (`balance.low`, once per crossing) and a key reaching its spending
// cap (`key.budget_exhausted`, once per cap), decided for a batch of the log's events from their ledger rows and keys.
import { formatCredits } from "./money.js";
import type { WebhookEventType } from "./webhooks.js";

/** Whether a balance went from at or above the threshold to below it. */
function crossedBelow(balanceAfter: bigint, amount: bigint, threshold: bigint): boolean {
  const before = balanceAfter - amount;
  return before >= threshold && balanceAfter < threshold;
}

/** A watched event of the log. */
export interface WatchedEvent {
  position: number;
  type: string;
  keyId: string | null;
}

/** An event's ledger row, for an organization that set a threshold. */
export interface LedgerLine {
  orgId: string;
  amount: bigint;
  balanceAfter: bigint;
  threshold: bigint;
}

/** A key with a spending cap, as it stands. */
export interface CappedKey {
  orgId: string;
  spent: bigint;
  cap: bigint;
}

interface AccountNotice {
  orgId: string;
  type: WebhookEventType;
  data: Record<string, unknown>;
  source: string;
}

/**
 * The notices a batch of events calls for, in the log's order (pure): a balance crossing for each event whose ledger
 * row took its organization's balance below the threshold, and each capped key at or past its cap once.
 */
export function noticesOf(
  events: readonly WatchedEvent[],
  ledger: ReadonlyMap<number, LedgerLine>,
  keys: ReadonlyMap<string, CappedKey>,
): AccountNotice[] {
  const notices: AccountNotice[] = [];
  const keysTold = new Set<string>();
  for (const { position, type, keyId } of events) {
    const line = type === "ApiKeySpendingCapChanged" ? undefined : ledger.get(position);
    if (line && crossedBelow(line.balanceAfter, line.amount, line.threshold))
      notices.push({
        orgId: line.orgId,
        type: "balance.low",
        data: { balance: formatCredits(line.balanceAfter), threshold: formatCredits(line.threshold) },
        source: `balance-low:${line.orgId}:${position}`,
      });
    const key = keyId === null ? undefined : keys.get(keyId);
    if (!key || keyId === null || keysTold.has(keyId) || key.spent < key.cap) continue;
    keysTold.add(keyId);
    notices.push({
      orgId: key.orgId,
      type: "key.budget_exhausted",
      data: { keyId, spendingCap: formatCredits(key.cap), spent: formatCredits(key.spent) },
      source: `key-budget:${keyId}:${key.cap}`,
    });
  }
  return notices;
}
