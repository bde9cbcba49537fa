// The operator's and the dashboard's organization commands: create, billing settings, price overrides, credits,
// refunds, limits, suspension.
import type { Queryable } from "../../eventstore/db.js";
import type { SqlPart } from "../../eventstore/eventStore.js";
import {
  DEFAULT_TRIAL_QUERIES,
  type Actor,
  type BillingMode,
  type BillingSettings,
  type OrgLimits,
} from "../../domain/events.js";
import { newId } from "./apiKeys.js";
import type { AccountReads } from "./accountReads.js";
import type { Organization } from "./orgState.js";
import type { RunOrgCommand } from "./orgCommand.js";

/**
 * What the organization paid for a query (its charge and unlocks, from the ledger) less its refunds; null when it paid
 * nothing for it.
 */
async function refundableOf(tx: Queryable, orgId: string, queryId: string): Promise<bigint | null> {
  const [row] = await tx.query<{ charges: number; paid: string; refunded: string }>(
    `SELECT count(*) FILTER (WHERE type IN ('charge', 'unlock'))::int AS charges,
            coalesce(-sum(amount_micros) FILTER (WHERE type IN ('charge', 'unlock')), 0)::text AS paid,
            coalesce(sum(amount_micros) FILTER (WHERE type = 'refund'), 0)::text AS refunded
       FROM proj_ledger WHERE org_id = $1 AND query_id = $2`,
    [orgId, queryId],
  );
  if (!row || row.charges === 0) return null;
  return BigInt(row.paid) - BigInt(row.refunded);
}

export function createOrganizationCommands(
  runOrgCommand: RunOrgCommand,
  { getOrganization }: Pick<AccountReads, "getOrganization">,
) {
  return {
    async createOrganization(
      input: {
        name: string;
        billingMode: BillingMode;
        limits: OrgLimits;
        hideBalance?: boolean;
        billingEnabled?: boolean;
        trialQueries?: number;
      },
      actor: Actor,
    ): Promise<Organization> {
      const orgId = newId("org");
      await runOrgCommand(orgId, actor, async () => ({
        type: "CreateOrganization",
        orgId,
        name: input.name,
        billingMode: input.billingMode,
        limits: input.limits,
        hideBalance: input.hideBalance ?? false,
        billingEnabled: input.billingEnabled ?? true,
        trialQueries: input.trialQueries ?? (input.billingMode === "trial" ? DEFAULT_TRIAL_QUERIES : 0),
      }));
      return (await getOrganization(orgId))!;
    },

    async changeBillingSettings(orgId: string, settings: BillingSettings, actor: Actor): Promise<void> {
      await runOrgCommand(orgId, actor, async () => ({ type: "ChangeBillingSettings", settings }));
    },

    /** null removes the override; the collection name is checked against the catalogue by the caller */
    async setPriceOverride(
      orgId: string,
      collection: string,
      pricePer1000Micros: bigint | null,
      actor: Actor,
    ): Promise<void> {
      await runOrgCommand(orgId, actor, async () => ({ type: "SetPriceOverride", collection, pricePer1000Micros }));
    },

    async addCredits(
      orgId: string,
      amountMicros: bigint,
      reference: string,
      actor: Actor,
      idempotencyKey?: string,
    ): Promise<bigint> {
      await runOrgCommand(orgId, actor, async () => ({ type: "AddCredits", amountMicros, reference }), {
        idempotencyKey,
      });
      return (await getOrganization(orgId))!.balanceMicros;
    },

    /**
     * A refund, at most what its query cost less earlier refunds when it names one. `idempotencyKey` makes a retried
     * refund (a workflow's) append once; `alsoWrite` commits with it (the query record that says it was refunded).
     */
    async issueRefund(
      orgId: string,
      amountMicros: bigint,
      reference: string,
      queryId: string | null,
      actor: Actor,
      options: { idempotencyKey?: string; alsoWrite?: SqlPart } = {},
    ): Promise<bigint> {
      await runOrgCommand(
        orgId,
        actor,
        async (tx) => ({
          type: "IssueRefund",
          amountMicros,
          reference,
          queryId,
          refundableMicros: queryId === null ? null : await refundableOf(tx, orgId, queryId),
        }),
        options,
      );
      return (await getOrganization(orgId))!.balanceMicros;
    },

    async changeLimits(orgId: string, limits: OrgLimits, actor: Actor): Promise<void> {
      await runOrgCommand(orgId, actor, async () => ({ type: "ChangeLimits", limits }));
    },

    async setSuspended(orgId: string, suspended: boolean, reason: string, actor: Actor): Promise<void> {
      await runOrgCommand(orgId, actor, async () =>
        suspended ? { type: "SuspendBilling", reason } : { type: "ResumeBilling" },
      );
    },
  };
}
