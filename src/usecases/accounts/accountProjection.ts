// What an organization's own events change: its row, its balance and ledger, its usage and prices, and the key each
// charge or free answer was caused by. project() hands these events here; the same handler feeds the inline projector
// and replay. An unlock moves money too: src/usecases/unlock/unlockProjection.ts, with the same helpers.
import { usesTrialQuery, type ProjectableEvent } from "../../domain/events.js";
import type { Change, ProjectionReader } from "../../../projections/projectionReader.js";
import {
  bumpOrgVersion,
  catalogueAnswerChanges,
  collectionUsageChanges,
  debit,
  keyUsed,
  moneyIn,
  usageChanges,
} from "./moneyProjection.js";

type AccountEvent = Extract<
  ProjectableEvent,
  {
    type:
      | "OrganizationCreated"
      | "CreditsAdded"
      | "RefundIssued"
      | "SearchCharged"
      | "ToolCallCharged"
      | "LimitsChanged"
      | "BillingSettingsChanged"
      | "PriceOverrideSet"
      | "BillingSuspended"
      | "BillingResumed"
      | "CatalogueAnswered"
      | "WorksFacetsCounted"
      | "JournalRequested";
  }
>;

/** A new organization: its row and an empty balance. */
function organizationCreated(e: Extract<ProjectableEvent, { type: "OrganizationCreated" }>): Change[] {
  const d = e.data;
  return [
    {
      table: "organizations",
      row: {
        org_id: d.orgId,
        name: d.name,
        billing_mode: d.billingMode,
        limits: { ...d.limits },
        hide_balance: d.hideBalance,
        suspended: false,
        version: e.streamVersion,
        billing_enabled: d.billingEnabled ?? true,
        trial_queries: d.trialQueries ?? 0,
        trial_used: 0,
      },
    },
    {
      table: "balances",
      row: {
        org_id: d.orgId,
        balance_micros: "0",
        credited_micros: "0",
        charged_micros: "0",
        refunded_micros: "0",
      },
    },
  ];
}

/** A search's charge: money, usage, per-collection usage, and a trial query where it used one. */
function searchCharged(e: Extract<ProjectableEvent, { type: "SearchCharged" }>, read: ProjectionReader): Change[] {
  const d = e.data;
  const amount = BigInt(d.amountMicros);
  return [
    bumpOrgVersion(read, e, d.orgId, (org) => (usesTrialQuery(d) ? { trial_used: org.trial_used + 1 } : {})),
    ...debit(read, e, d.orgId, d.keyId, d.queryId, amount, "charge"),
    ...usageChanges(read, e, d.orgId, 1, d.tokens, amount),
    ...collectionUsageChanges(read, e, d.orgId, d.collections, "search", new Map()),
    keyUsed(e, d.orgId, d.keyId),
  ];
}

export function projectAccount(e: AccountEvent, read: ProjectionReader): Change[] {
  switch (e.type) {
    case "OrganizationCreated":
      return organizationCreated(e);
    case "CreditsAdded":
      return moneyIn(read, e, e.data.orgId, BigInt(e.data.amountMicros), "credit", null, e.data.reference);
    case "RefundIssued":
      return moneyIn(read, e, e.data.orgId, BigInt(e.data.amountMicros), "refund", e.data.queryId, e.data.reference);
    case "SearchCharged":
      return searchCharged(e, read);
    case "ToolCallCharged": {
      // a ledger charge named after the tool (query_id is the call's id); usage money, but no query and no collection
      const d = e.data;
      const amount = BigInt(d.amountMicros);
      return [
        bumpOrgVersion(read, e, d.orgId, {}),
        ...debit(read, e, d.orgId, d.keyId, d.callId, amount, "charge", `tool:${d.tool}`),
        ...(amount > 0n ? usageChanges(read, e, d.orgId, 0, 0, amount) : []),
        keyUsed(e, d.orgId, d.keyId),
      ];
    }
    case "LimitsChanged":
      return [bumpOrgVersion(read, e, e.data.orgId, { limits: { ...e.data.limits } })];
    case "BillingSettingsChanged": {
      const d = e.data;
      return [
        bumpOrgVersion(read, e, d.orgId, {
          billing_mode: d.billingMode,
          billing_enabled: d.billingEnabled,
          hide_balance: d.hideBalance,
          trial_queries: d.trialQueries,
        }),
      ];
    }
    case "PriceOverrideSet": {
      const d = e.data;
      return [
        bumpOrgVersion(read, e, d.orgId, {}),
        {
          table: "price_overrides",
          row: {
            org_id: d.orgId,
            collection: d.collection,
            price_per_1000_micros: d.pricePer1000Micros,
            position: e.position,
          },
        },
      ];
    }
    case "BillingSuspended":
      return [bumpOrgVersion(read, e, e.data.orgId, { suspended: true })];
    case "BillingResumed":
      return [bumpOrgVersion(read, e, e.data.orgId, { suspended: false })];
    case "CatalogueAnswered":
      return [...catalogueAnswerChanges(read, e, e.data.orgId), keyUsed(e, e.data.orgId, e.data.keyId)];
    case "WorksFacetsCounted":
      // free: a query of the quota, no tokens, no money, no ledger line
      return [...usageChanges(read, e, e.data.orgId, 1, 0, 0n), keyUsed(e, e.data.orgId, e.data.keyId)];
    case "JournalRequested":
      // operators list requests from the events themselves (GET /admin/v1/journal-requests)
      return [keyUsed(e, e.data.orgId, e.data.keyId)];
  }
}
