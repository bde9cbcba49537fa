// The organization's money rules: decide(command, state) -> events. Pure; state comes from the projections.
import {
  countsAgainstTrial,
  type BillingSettings,
  type ChargeMode,
  type CollectionCharge,
  type DomainEvent,
  type OrgLimits,
} from "./events.js";
import { formatCredits } from "./money.js";
import { Rejection } from "./rejection.js";
import { assertQuotaLeft, type QueryUsage } from "./queryQuota.js";

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
export const LOW_BALANCE_MICROS = 1_000_000n;

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
  | { type: "AddCredits"; amountMicros: bigint; reference: string }
  /**
   * `refundableMicros`, for a refund tied to a query: what the organization paid for it (charge and unlocks) less what
   * was refunded for it already, or null when the organization paid nothing for that query
   */
  | {
      type: "IssueRefund";
      amountMicros: bigint;
      reference: string;
      queryId: string | null;
      refundableMicros: bigint | null;
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
export type Payer = Pick<
  OrgAccount,
  "suspended" | "balanceMicros" | "billingEnabled" | "billingMode" | "trialUsed" | "trialQueries"
>;
export type Spender = Pick<KeyState, "revoked" | "spendingCapMicros" | "spentMicros">;

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
    throw new Rejection(
      "INSUFFICIENT_CREDITS",
      org.balanceMicros <= 0n
        ? "Balance is zero; add credits to search. Nothing was charged"
        : "Balance cannot cover this request; nothing was charged",
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
 * The same rules before a search runs, when its cost is not known: a live search is held to the least it can cost
 * (one micro-credit), so a zero balance or a spent cap is refused before any search work, even for a search that
 * would have found nothing. What passes here is decided again, with the real amount, by the charge.
 */
export function assertSearchPayable(org: Payer, key: Spender): void {
  assertPayable(org, key, chargeModeOf(org) === "live" ? 1n : 0n);
}

export function decide(command: OrgCommand, state: OrgState | undefined): DomainEvent[] {
  if (command.type === "CreateOrganization") {
    if (state) throw new Rejection("VALIDATION_ERROR", `organization ${command.orgId} already exists`);
    const { orgId, name, billingMode, limits, hideBalance, billingEnabled, trialQueries } = command;
    return [
      {
        type: "OrganizationCreated",
        data: { orgId, name, billingMode, limits, hideBalance, billingEnabled, trialQueries },
      },
    ];
  }
  if (!state) throw new Rejection("NOT_FOUND", "organization not found");
  const orgId = state.orgId;
  switch (command.type) {
    case "AddCredits":
      if (command.amountMicros <= 0n) throw new Rejection("VALIDATION_ERROR", "amount must be greater than zero");
      return [
        {
          type: "CreditsAdded",
          data: { orgId, amountMicros: command.amountMicros.toString(), reference: command.reference },
        },
      ];
    case "IssueRefund":
      if (command.amountMicros <= 0n) throw new Rejection("VALIDATION_ERROR", "amount must be greater than zero");
      if (command.queryId !== null) {
        // a refund tied to a query gives back what that query cost, at most: the ledger line must be true to its query
        if (command.refundableMicros === null)
          throw new Rejection(
            "VALIDATION_ERROR",
            `queryId ${command.queryId} names no charge of this organization; send the refund without ` +
              "queryId, or the id of one of its charged queries",
          );
        if (command.amountMicros > command.refundableMicros) {
          throw new Rejection(
            "VALIDATION_ERROR",
            `query ${command.queryId} has ${formatCredits(command.refundableMicros, 6)} credits left to ` +
              "refund (what it cost less earlier refunds); refund at most that",
          );
        }
      }
      return [
        {
          type: "RefundIssued",
          data: {
            orgId,
            amountMicros: command.amountMicros.toString(),
            reference: command.reference,
            queryId: command.queryId,
          },
        },
      ];
    case "ChargeSearch": {
      const mode = chargeModeOf(state);
      const lines =
        mode === "live" ? command.collections : command.collections.map((l) => ({ ...l, amountMicros: "0" }));
      const amount = totalMicros(lines);
      // quota first: a search over quota is refused whatever the money says
      assertQuotaLeft(state.limits, state.usage, state.now);
      // an assisted search that delivered nothing uses no trial query, so it needs none left
      assertPayable(
        state,
        command.key,
        amount,
        countsAgainstTrial({ endpoint: command.endpoint, resultIds: command.resultIds ?? [] }),
      );
      return [
        {
          type: "SearchCharged",
          data: {
            orgId,
            keyId: command.key.keyId,
            queryId: command.queryId,
            endpoint: command.endpoint,
            billingMode: mode,
            resultIds: command.resultIds ?? [],
            tokens: totalTokens(lines),
            amountMicros: amount.toString(),
            collections: lines,
          },
        },
      ];
    }
    case "UnlockResults": {
      // a result id is paid for once per queryId, however many rows of the record carry it
      const fresh = [
        ...new Map(
          command.rows.filter((r) => !command.alreadyUnlocked.has(r.id)).map((r) => [r.id, r] as const),
        ).values(),
      ];
      if (fresh.length === 0) return [];
      const mode = chargeModeOf(state);
      const lines = chargeLines(fresh).map((l) => (mode === "live" ? l : { ...l, amountMicros: "0" }));
      const amount = totalMicros(lines);
      // an unlock of new rows needs quota left but does not count as a query
      assertQuotaLeft(state.limits, state.usage, state.now);
      assertPayable(state, command.key, amount);
      return [
        {
          type: "ResultsUnlocked",
          data: {
            orgId,
            keyId: command.key.keyId,
            queryId: command.queryId,
            billingMode: mode,
            resultIds: fresh.map((r) => r.id),
            tokens: totalTokens(lines),
            amountMicros: amount.toString(),
            collections: lines,
            workflowId: command.workflowId,
          },
        },
      ];
    }
    case "ChargeToolCall": {
      if (command.priceMicros < 0n) throw new Error("a tool price cannot be negative");
      // only a live organization pays; a tool call is no query, so neither the quota nor the trial allowance applies
      const mode = chargeModeOf(state);
      const amount = mode === "live" ? command.priceMicros : 0n;
      assertPayable(state, command.key, amount, false);
      return [
        {
          type: "ToolCallCharged",
          data: {
            orgId,
            keyId: command.key.keyId,
            callId: command.callId,
            tool: command.tool,
            billingMode: mode,
            amountMicros: amount.toString(),
          },
        },
      ];
    }
    case "ChangeLimits":
      return [{ type: "LimitsChanged", data: { orgId, limits: command.limits, previous: state.limits } }];
    case "ChangeBillingSettings": {
      const s = command.settings;
      if (!Number.isInteger(s.trialQueries) || s.trialQueries < 0)
        throw new Rejection("VALIDATION_ERROR", "trialQueries must be a non-negative integer");
      const unchanged =
        s.billingMode === state.billingMode &&
        s.billingEnabled === state.billingEnabled &&
        s.hideBalance === state.hideBalance &&
        s.trialQueries === state.trialQueries;
      return unchanged ? [] : [{ type: "BillingSettingsChanged", data: { orgId, ...s } }];
    }
    case "SetPriceOverride":
      if (command.pricePer1000Micros !== null && command.pricePer1000Micros < 0n)
        throw new Rejection("VALIDATION_ERROR", "a price cannot be negative");
      return [
        {
          type: "PriceOverrideSet",
          data: {
            orgId,
            collection: command.collection,
            pricePer1000Micros: command.pricePer1000Micros?.toString() ?? null,
          },
        },
      ];
    case "SuspendBilling":
      return state.suspended ? [] : [{ type: "BillingSuspended", data: { orgId, reason: command.reason } }];
    case "ResumeBilling":
      return state.suspended ? [{ type: "BillingResumed", data: { orgId } }] : [];
    default: {
      const unhandled: never = command;
      throw new Error(`unhandled command ${JSON.stringify(unhandled)}`);
    }
  }
}
