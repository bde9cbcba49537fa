// The organization's money rules and its commands; decide(command, state) -> events is orgDecider.ts, by command
// family in orgCredits.ts, orgCharges.ts and orgSettings.ts. Pure; state comes from the projections.
import type { BillingSettings, ChargeMode, CollectionCharge, OrgLimits } from "./events.js";
import { formatCredits } from "./money.js";
import { Rejection } from "./rejection.js";
import type { QueryUsage } from "./queryQuota.js";

/** An organization as its projection rows stand: what every money rule reads. */
export interface OrgAccount extends BillingSettings {
  orgId: string;
  suspended: boolean;
  balanceMicros: bigint;
  limits: OrgLimits;
  /** trial searches and unlocks used so far */
  trialUsed: number;
  /** the stream's version */
  version: number;
}

/** A balance below this (1 credit) is low: the MCP instructions and the dashboard say so. */
const LOW_BALANCE_MICROS = 1_000_000n;

/** A live balance under 1 credit; a hidden balance is never told, not even as low. */
export function isLowBalance(
  org: Pick<OrgAccount, "hideBalance" | "billingMode" | "billingEnabled" | "balanceMicros">,
): boolean {
  return !org.hideBalance && org.billingMode === "live" && org.billingEnabled && org.balanceMicros < LOW_BALANCE_MICROS;
}

/** The decider's state: the account, and the quota usage and time the decision is made at. */
export interface OrgState extends OrgAccount {
  /** queries counted today and this month, at the time of the decision */
  usage: QueryUsage;
  /** the time of the decision (quota periods and Retry-After are computed from it) */
  now: Date;
}

export interface KeyState {
  keyId: string;
  orgId: string;
  revoked: boolean;
  spendingCapMicros: bigint | null;
  spentMicros: bigint;
}

export interface UnlockRowPrice {
  id: string;
  collection: string;
  tokens: number;
  pricePer1000Micros: bigint;
}

export type OrgCommand =
  | ({ type: "CreateOrganization"; orgId: string; name: string; limits: OrgLimits } & BillingSettings)
  /** `earlier`: what a credit or refund sent before with the same idempotency key appended (null: none) */
  | { type: "AddCredits"; amountMicros: bigint; reference: string; earlier?: EarlierMoneyEvent | null }
  /**
   * `refundableMicros`: for a refund tied to a query, what the organization paid for it (charge and unlocks) less what
   * was refunded for it already, or null when the organization paid nothing for that query; for a refund tied to none,
   * what the organization paid in all less every refund
   */
  | {
      type: "IssueRefund";
      amountMicros: bigint;
      reference: string;
      queryId: string | null;
      refundableMicros: bigint | null;
      earlier?: EarlierMoneyEvent | null;
    }
  | {
      type: "ChargeSearch";
      key: KeyState;
      queryId: string;
      endpoint: string;
      collections: CollectionCharge[];
      resultIds?: string[];
    }
  | {
      type: "UnlockResults";
      key: KeyState;
      queryId: string;
      rows: UnlockRowPrice[];
      alreadyUnlocked: ReadonlySet<string>;
      workflowId: string;
    }
  | { type: "ChargeToolCall"; key: KeyState; callId: string; tool: string; priceMicros: bigint }
  | { type: "ChangeLimits"; limits: OrgLimits }
  | { type: "ChangeBillingSettings"; settings: BillingSettings }
  | { type: "SetPriceOverride"; collection: string; pricePer1000Micros: bigint | null }
  | { type: "SuspendBilling"; reason: string }
  | { type: "ResumeBilling" };

/** A credit or refund as its event recorded it, to tell a retry (the same command) from another use of its key. */
export interface EarlierMoneyEvent {
  type: "CreditsAdded" | "RefundIssued";
  amountMicros: string;
  reference: string;
  queryId: string | null;
}

/** One command of the union, by its type: what a family's decide function takes. */
export type OrgCommandOf<T extends OrgCommand["type"]> = Extract<OrgCommand, { type: T }>;

/** Sums tokens x price per collection and rounds once per collection, half-up, to whole micro-credits. */
export function chargeLines(
  rows: { collection: string; tokens: number; pricePer1000Micros: bigint }[],
): CollectionCharge[] {
  const byCollection = new Map<string, { results: number; tokens: number; numerator: bigint; prices: Set<bigint> }>();
  for (const r of rows) {
    const acc = byCollection.get(r.collection) ?? { results: 0, tokens: 0, numerator: 0n, prices: new Set<bigint>() };
    acc.results += 1;
    acc.tokens += r.tokens;
    acc.numerator += BigInt(r.tokens) * r.pricePer1000Micros;
    acc.prices.add(r.pricePer1000Micros);
    byCollection.set(r.collection, acc);
  }
  return [...byCollection.entries()].map(([collection, acc]) => ({
    collection,
    results: acc.results,
    tokens: acc.tokens,
    // a meta-collection mixes member prices; the line then records the effective price
    pricePer1000Micros:
      acc.prices.size === 1
        ? [...acc.prices][0]!.toString()
        : acc.tokens > 0
          ? ((acc.numerator + BigInt(acc.tokens) / 2n) / BigInt(acc.tokens)).toString()
          : "0",
    amountMicros: ((acc.numerator + 500n) / 1000n).toString(),
  }));
}

export const totalMicros = (lines: CollectionCharge[]) => lines.reduce((s, l) => s + BigInt(l.amountMicros), 0n);
export const totalTokens = (lines: { tokens: number }[]) => lines.reduce((s, l) => s + l.tokens, 0);

/** How a request of this organization is billed now: only 'live' moves money. */
export function chargeModeOf(state: Pick<OrgState, "billingEnabled" | "billingMode">): ChargeMode {
  return state.billingEnabled ? state.billingMode : "off";
}

/** What the money rules read of an organization and of the key paying. */
type Payer = Pick<
  OrgAccount,
  "suspended" | "balanceMicros" | "billingEnabled" | "billingMode" | "trialUsed" | "trialQueries"
> &
  Partial<Pick<OrgAccount, "hideBalance">>;
type Spender = Pick<KeyState, "revoked" | "spendingCapMicros" | "spentMicros">;

/**
 * 429 API_KEY_BUDGET_EXCEEDED saying what is left of the cap and what the request would cost, so a client can ask for
 * less (fewer results) or have the cap raised. `amount` 1 micro-credit is the early check before a search, whose cost
 * is not known yet: then the cap is used up and no cost is named.
 */
function capRefusal(capMicros: bigint, spentMicros: bigint, amount: bigint): Rejection {
  const left = capMicros > spentMicros ? capMicros - spentMicros : 0n;
  const cap = formatCredits(capMicros, 6);
  const message =
    left === 0n
      ? `This API key's spending cap of ${cap} credits is used up (${formatCredits(spentMicros, 6)} spent); ` +
        "nothing was charged. An owner can raise the cap"
      : `This API key's spending cap of ${cap} credits has ${formatCredits(left, 6)} left and this request ` +
        `would cost ${formatCredits(amount, 6)}; nothing was charged. Ask for fewer results, or have an owner ` +
        "raise the cap";
  return new Rejection("API_KEY_BUDGET_EXCEEDED", message, {
    spendingCap: cap,
    spent: formatCredits(spentMicros, 6),
    capLeft: formatCredits(left, 6),
    ...(left === 0n ? {} : { requestCost: formatCredits(amount, 6) }),
  });
}

/**
 * The money rules of a request that would be charged `amount` (zero unless the organization is billed live), in
 * order: billing not on hold, key not revoked, the balance covers the amount, the key's cap allows it, and a trial
 * organization has free queries left (unless the request is not a query: `countsAsQuery` false, e.g. a tool call).
 */
export function assertPayable(org: Payer, key: Spender, amount: bigint, countsAsQuery = true): void {
  if (org.suspended)
    throw new Rejection("BILLING_SUSPENDED", "Billing for this organization is on hold; contact support");
  if (key.revoked) throw new Rejection("API_KEY_REVOKED", "This API key has been revoked");
  if (amount > 0n && amount > org.balanceMicros) {
    if (org.hideBalance) throw hiddenBalanceRefusal(amount);
    if (org.balanceMicros <= 0n)
      throw new Rejection("INSUFFICIENT_CREDITS", "Balance is zero; add credits to search. Nothing was charged");
    const balance = formatCredits(org.balanceMicros, 6);
    const cost = formatCredits(amount, 6);
    throw new Rejection(
      "INSUFFICIENT_CREDITS",
      `Balance ${balance} cannot cover this request's ${cost}; nothing was charged. Add credits, or send max_cost ` +
        "(maxCost) at most the balance to be given the rows it covers",
      { balance, requestCost: cost },
    );
  }
  if (amount > 0n && key.spendingCapMicros !== null && key.spentMicros + amount > key.spendingCapMicros)
    throw capRefusal(key.spendingCapMicros, key.spentMicros, amount);
  if (countsAsQuery && chargeModeOf(org) === "trial" && org.trialUsed >= org.trialQueries) {
    throw new Rejection(
      "INSUFFICIENT_CREDITS",
      `the trial allowance of ${org.trialQueries} queries is used up; nothing was charged. Ask for a live ` +
        "account to continue",
    );
  }
}

/**
 * 402 INSUFFICIENT_CREDITS for an organization that hides its balance from its keys: the request's cost, never the
 * balance (the 1 micro-credit of the early check is no cost to name).
 */
function hiddenBalanceRefusal(amount: bigint): Rejection {
  if (amount <= 1n)
    return new Rejection("INSUFFICIENT_CREDITS", "The balance cannot cover a search; add credits. Nothing was charged");
  const cost = formatCredits(amount, 6);
  return new Rejection(
    "INSUFFICIENT_CREDITS",
    `The balance cannot cover this request's ${cost}; nothing was charged. Add credits, or send a lower max_cost ` +
      "(maxCost) to be given only the rows it covers",
    { requestCost: cost },
  );
}

/**
 * The same rules before a search runs, when its cost is not known: a live search is held to the least it can cost
 * (one micro-credit), so a zero balance or a spent cap is refused before any search work, even for a search that
 * would have found nothing. What passes here is decided again, with the real amount, by the charge.
 */
export function assertSearchPayable(org: Payer, key: Spender): void {
  assertPayable(org, key, chargeModeOf(org) === "live" ? 1n : 0n);
}
