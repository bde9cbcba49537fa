// The operator's and the dashboard's organization commands: create, billing settings, price overrides, credits,
// refunds, limits, suspension.
import type { Queryable } from "../../eventstore/db.js";
import { readByIdempotencyKey, type SqlPart } from "../../eventstore/eventStore.js";
import type { EarlierMoneyEvent } from "../../domain/organization.js";
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

/**
 * What the organization paid in all (charges and unlocks) less every refund: the most a refund tied to no query gives.
 */
async function netPaidOf(tx: Queryable, orgId: string): Promise<bigint> {
  const [row] = await tx.query<{ net: string }>(
    "SELECT (charged_micros - refunded_micros)::text AS net FROM proj_balances WHERE org_id = $1",
    [orgId],
  );
  return row ? BigInt(row.net) : 0n;
}

/** The credit or refund appended under `idempotencyKey` before, read in the command's transaction; null: none. */
async function earlierMoneyEvent(tx: Queryable, idempotencyKey: string | undefined): Promise<EarlierMoneyEvent | null> {
  if (idempotencyKey === undefined) return null;
  for (const e of await readByIdempotencyKey(tx, idempotencyKey)) {
    if (e.type === "CreditsAdded")
      return { type: e.type, amountMicros: e.data.amountMicros, reference: e.data.reference, queryId: null };
    if (e.type === "RefundIssued")
      return { type: e.type, amountMicros: e.data.amountMicros, reference: e.data.reference, queryId: e.data.queryId };
  }
  return null;
}

/** A credit's or refund's outcome: the balance after it, and whether it was made before under its key (a retry). */
interface MoneyOutcome {
  balanceMicros: bigint;
  replayed: boolean;
}

export function createOrganizationCommands(
  runOrgCommand: RunOrgCommand,
  { getOrganization }: Pick<AccountReads, "getOrganization">,
) {
  /** A credit or refund, and whether it was made before under its key (nothing appended: a retry). */
  const moneyCommand = async (...args: Parameters<RunOrgCommand>): Promise<MoneyOutcome> => {
    const result = await runOrgCommand(...args);
    const replayed = result.duplicate || result.events.length === 0;
    return { balanceMicros: (await getOrganization(args[0]))!.balanceMicros, replayed };
  };

  /**
   * Credits added. `idempotencyKey` makes a retry append nothing (the same credit) and refuses another credit under
   * it (IDEMPOTENCY_KEY_REUSED), whoever retries: an operator's call, a form sent twice.
   */
  const grantCredits = async (
    orgId: string,
    amountMicros: bigint,
    reference: string,
    actor: Actor,
    idempotencyKey?: string,
  ): Promise<MoneyOutcome> =>
    moneyCommand(
      orgId,
      actor,
      async (tx) => ({
        type: "AddCredits",
        amountMicros,
        reference,
        earlier: await earlierMoneyEvent(tx, idempotencyKey),
      }),
      { idempotencyKey },
    );

  /**
   * A refund: at most what its query cost less earlier refunds when it names one, else at most what the organization
   * paid in all less every refund. `idempotencyKey` makes a retried refund (a workflow's, an operator's) append
   * once; `alsoWrite` commits with it (the query record that says it was refunded).
   */
  const refund = async (
    orgId: string,
    amountMicros: bigint,
    reference: string,
    queryId: string | null,
    actor: Actor,
    options: { idempotencyKey?: string; alsoWrite?: SqlPart } = {},
  ): Promise<MoneyOutcome> =>
    moneyCommand(
      orgId,
      actor,
      async (tx) => ({
        type: "IssueRefund",
        amountMicros,
        reference,
        queryId,
        refundableMicros: queryId === null ? await netPaidOf(tx, orgId) : await refundableOf(tx, orgId, queryId),
        earlier: await earlierMoneyEvent(tx, options.idempotencyKey),
      }),
      options,
    );

  return {
    grantCredits,
    refund,
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
      return (await grantCredits(orgId, amountMicros, reference, actor, idempotencyKey)).balanceMicros;
    },

    async issueRefund(
      orgId: string,
      amountMicros: bigint,
      reference: string,
      queryId: string | null,
      actor: Actor,
      options: { idempotencyKey?: string; alsoWrite?: SqlPart } = {},
    ): Promise<bigint> {
      return (await refund(orgId, amountMicros, reference, queryId, actor, options)).balanceMicros;
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
