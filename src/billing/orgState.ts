// The decider's view of an organization and a key, built from their projection rows: one mapping for the command
// runner (accounts.ts) and the charge batches (chargeBatch.ts).
import type { KeyState, OrgState } from '../domain/organization.js';
import type { BillingMode, OrgLimits } from '../domain/events.js';
import type { QueryUsage } from '../domain/queryQuota.js';
import type { ApiKeyRow, OrganizationRow } from '../../projections/tables.js';

export function keyStateOf(k: ApiKeyRow): KeyState {
  return {
    keyId: k.key_id,
    orgId: k.org_id,
    revoked: k.revoked,
    spendingCapMicros: k.spending_cap_micros === null ? null : BigInt(k.spending_cap_micros),
    spentMicros: BigInt(k.spent_micros),
  };
}

/** `balanceMicros` is the balance row's decimal string (absent: 0); `version` is the stream's version in the log. */
export function orgStateOf(org: OrganizationRow, balanceMicros: string | null | undefined, usage: QueryUsage, now: Date, version: number): OrgState {
  return {
    orgId: org.org_id,
    billingMode: org.billing_mode as BillingMode,
    billingEnabled: org.billing_enabled,
    hideBalance: org.hide_balance,
    trialQueries: org.trial_queries,
    trialUsed: org.trial_used,
    suspended: org.suspended,
    balanceMicros: BigInt(balanceMicros ?? '0'),
    limits: org.limits as unknown as OrgLimits,
    usage,
    now,
    version,
  };
}
