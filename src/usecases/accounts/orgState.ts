// Projection rows read as the domain sees them, one mapping each: an organization's rows become its OrgAccount (the
// decider's state and the Organization read model both start from it), a key's row its KeyState (the ApiKeyRecord of
// authentication starts from it). Used by the command runner and authentication (accounts.ts) and the charge batches.
import type { KeyState, OrgAccount, OrgState } from "../../domain/organization.js";
import { parseBillingMode, parseKeyMode, parseOrgLimits, type KeyMode } from "../../domain/events.js";
import type { QueryUsage } from "../../domain/queryQuota.js";
import type { ApiKeyRow } from "./keyTables.js";
import type { OrganizationRow } from "./accountTables.js";

/** An organization with its name and prices: what a request and the operator API read. */
export interface Organization extends OrgAccount {
  id: string;
  name: string;
  /** this organization's prices per physical collection, micro-credits per 1000 tokens */
  priceOverrides: ReadonlyMap<string, bigint>;
}

/** An API key as authentication hands it to a request. */
export interface ApiKeyRecord extends KeyState {
  id: string;
  mode: KeyMode;
  collections: string[] | null;
  /** null: created without a name */
  name: string | null;
}

/** `balanceMicros` is the balance row's decimal string (absent: 0). */
function orgAccountOf(org: OrganizationRow, balanceMicros: string | null | undefined): OrgAccount {
  return {
    orgId: org.org_id,
    billingMode: parseBillingMode(org.billing_mode),
    billingEnabled: org.billing_enabled,
    hideBalance: org.hide_balance,
    trialQueries: org.trial_queries,
    trialUsed: org.trial_used,
    suspended: org.suspended,
    balanceMicros: BigInt(balanceMicros ?? "0"),
    limits: parseOrgLimits(org.limits),
    version: org.version,
  };
}

export function orgStateOf(
  org: OrganizationRow,
  balanceMicros: string | null | undefined,
  usage: QueryUsage,
  now: Date,
): OrgState {
  return { ...orgAccountOf(org, balanceMicros), usage, now };
}

/** `overrides` are [collection, price per 1000 as a decimal string] pairs. */
export function organizationOf(
  org: OrganizationRow,
  balanceMicros: string | null | undefined,
  overrides: readonly (readonly [string, string])[],
): Organization {
  return {
    ...orgAccountOf(org, balanceMicros),
    id: org.org_id,
    name: org.name,
    priceOverrides: new Map(overrides.map(([c, p]) => [c, BigInt(p)])),
  };
}

export function keyStateOf(k: ApiKeyRow): KeyState {
  return {
    keyId: k.key_id,
    orgId: k.org_id,
    revoked: k.revoked,
    spendingCapMicros: k.spending_cap_micros === null ? null : BigInt(k.spending_cap_micros),
    spentMicros: BigInt(k.spent_micros),
  };
}

export function apiKeyRecordOf(k: ApiKeyRow): ApiKeyRecord {
  return {
    ...keyStateOf(k),
    id: k.key_id,
    mode: parseKeyMode(k.mode),
    collections: k.collections,
    name: k.name ?? null,
  };
}
