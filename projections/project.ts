// Projection logic, written once: what each event changes in balances, ledger, unlocks, usage and prices. A
// feature's events have a handler of their own, beside the feature's use cases, that project() calls: keys
// (src/usecases/accounts/keyProjection.ts), members, invites and sessions (src/usecases/members/memberProjection.ts),
// ingestions (src/usecases/collections/ingestionProjection.ts), webhooks (src/usecases/webhooks/webhookProjection.ts)
// and alerts (src/usecases/alerts/alertProjection.ts). This registry knows them only by the events each one takes
// (FeatureProjectors): the event store is opened with them (src/app/projectors.ts lists them for the composition
// root, benchmarks and tests), and the inline projector and replay run the store's (Db.projectors). What they read
// and return: projectionReader.ts.
// The same function feeds the inline projector (SQL, in the append transaction) and replay (memory, then bulk).
// It updates the rows its reader hands out in place and returns them as the changes: both readers give the projector
// rows it owns, and replay folds millions of events, where a copy per change is most of the cost.
import { usesTrialQuery, type CollectionCharge, type ProjectableEvent } from "../src/domain/events.js";
import { dayPeriod, monthPeriod } from "../src/domain/queryQuota.js";
import type { BalanceRow, OrganizationRow, UsageRow } from "./tables.js";
import type { Change, ProjectionReader } from "./projectionReader.js";

export { dayPeriod, monthPeriod };

export type { Change, ProjectionReader } from "./projectionReader.js";

const add = (a: string, b: bigint) => (BigInt(a) + b).toString();

function requireBalance(read: ProjectionReader, orgId: string): BalanceRow {
  const row = read.balance(orgId);
  if (!row) throw new Error(`projection: no balance row for organization ${orgId}`);
  return row;
}

function bumpOrgVersion(
  read: ProjectionReader,
  e: ProjectableEvent,
  orgId: string,
  patch: Partial<OrganizationRow> | ((org: OrganizationRow) => Partial<OrganizationRow>),
): Change {
  const org = read.organization(orgId);
  if (!org) throw new Error(`projection: no organization ${orgId}`);
  return {
    table: "organizations",
    row: Object.assign(org, typeof patch === "function" ? patch(org) : patch, { version: e.streamVersion }),
  };
}

const emptyUsage = (orgId: string, period: string): UsageRow => ({
  org_id: orgId,
  period,
  queries: 0,
  tokens: "0",
  amount_micros: "0",
  catalogue_answers: 0,
});

/** A free catalogue answer: counted per day and month beside the queries, never as one. */
function catalogueAnswerChanges(read: ProjectionReader, e: ProjectableEvent, orgId: string): Change[] {
  return [dayPeriod(e.recordedAt), monthPeriod(e.recordedAt)].map((period) => {
    const row = read.usage(orgId, period) ?? emptyUsage(orgId, period);
    return { table: "usage", row: Object.assign(row, { catalogue_answers: row.catalogue_answers + 1 }) };
  });
}

function usageChanges(
  read: ProjectionReader,
  e: ProjectableEvent,
  orgId: string,
  queries: number,
  tokens: number,
  amount: bigint,
): Change[] {
  const out: Change[] = [];
  for (const period of [dayPeriod(e.recordedAt), monthPeriod(e.recordedAt)]) {
    const row = read.usage(orgId, period) ?? emptyUsage(orgId, period);
    out.push({
      table: "usage",
      row: Object.assign(row, {
        queries: row.queries + queries,
        tokens: add(row.tokens, BigInt(tokens)),
        amount_micros: add(row.amount_micros, amount),
      }),
    });
  }
  return out;
}

/**
 * Per day and requested collection: a search counts one query on each of its collections; an unlock counts its rows.
 */
function collectionUsageChanges(
  read: ProjectionReader,
  e: ProjectableEvent,
  orgId: string,
  lines: CollectionCharge[],
  kind: "search" | "unlock",
  rowsByCollection: Map<string, number>,
): Change[] {
  const day = e.recordedAt.slice(0, 10);
  const out: Change[] = [];
  for (const line of lines) {
    const row = read.collectionUsage(orgId, day, line.collection) ?? {
      org_id: orgId,
      day,
      collection: line.collection,
      queries: 0,
      unlocked_results: 0,
      tokens: "0",
      charged_micros: "0",
      unlocked_micros: "0",
    };
    const amount = BigInt(line.amountMicros);
    out.push({
      table: "collection_usage",
      row:
        kind === "search"
          ? Object.assign(row, {
              queries: row.queries + 1,
              tokens: add(row.tokens, BigInt(line.tokens)),
              charged_micros: add(row.charged_micros, amount),
            })
          : Object.assign(row, {
              unlocked_results: row.unlocked_results + (rowsByCollection.get(line.collection) ?? 0),
              tokens: add(row.tokens, BigInt(line.tokens)),
              unlocked_micros: add(row.unlocked_micros, amount),
            }),
    });
  }
  return out;
}

/**
 * Money leaving an organization's balance for a search charge or an unlock, with the key's spend and the ledger line.
 */
function debit(
  read: ProjectionReader,
  e: ProjectableEvent,
  orgId: string,
  keyId: string,
  queryId: string,
  amount: bigint,
  type: "charge" | "unlock",
  reference: string | null = null,
): Change[] {
  if (amount === 0n) return [];
  const bal = requireBalance(read, orgId);
  const next = BigInt(bal.balance_micros) - amount;
  const out: Change[] = [
    {
      table: "balances",
      row: Object.assign(bal, { balance_micros: next.toString(), charged_micros: add(bal.charged_micros, amount) }),
    },
    {
      table: "ledger",
      row: {
        position: e.position,
        org_id: orgId,
        time: e.recordedAt,
        type,
        amount_micros: (-amount).toString(),
        balance_after_micros: next.toString(),
        key_id: keyId,
        query_id: queryId,
        reference,
      },
    },
  ];
  const key = read.apiKey(keyId);
  if (key) out.push({ table: "api_keys", row: Object.assign(key, { spent_micros: add(key.spent_micros, amount) }) });
  return out;
}

/** Money entering a balance: a credit or a refund, with its ledger line and its running total. */
function moneyIn(
  read: ProjectionReader,
  e: ProjectableEvent,
  orgId: string,
  amount: bigint,
  type: "credit" | "refund",
  queryId: string | null,
  reference: string,
): Change[] {
  const bal = requireBalance(read, orgId);
  const next = BigInt(bal.balance_micros) + amount;
  const total =
    type === "credit"
      ? { credited_micros: add(bal.credited_micros, amount) }
      : { refunded_micros: add(bal.refunded_micros, amount) };
  return [
    bumpOrgVersion(read, e, orgId, {}),
    { table: "balances", row: Object.assign(bal, { balance_micros: next.toString(), ...total }) },
    {
      table: "ledger",
      row: {
        position: e.position,
        org_id: orgId,
        time: e.recordedAt,
        type,
        amount_micros: amount.toString(),
        balance_after_micros: next.toString(),
        key_id: null,
        query_id: queryId,
        reference,
      },
    },
  ];
}

/**
 * The key an event was caused by, as of this event (the dashboard's "last used"): the whole row follows from the event.
 */
const keyUsed = (e: ProjectableEvent, orgId: string, keyId: string): Change => ({
  table: "key_last_used",
  row: { key_id: keyId, org_id: orgId, used_at: e.recordedAt, position: e.position },
});

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

/** An unlock: money, usage, per-collection rows unlocked, and one unlocks row per result. */
function resultsUnlocked(e: Extract<ProjectableEvent, { type: "ResultsUnlocked" }>, read: ProjectionReader): Change[] {
  const d = e.data;
  const amount = BigInt(d.amountMicros);
  const rowsByCollection = new Map(d.collections.map((line) => [line.collection, line.results ?? 0]));
  return [
    bumpOrgVersion(read, e, d.orgId, (org) => (d.billingMode === "trial" ? { trial_used: org.trial_used + 1 } : {})),
    ...debit(read, e, d.orgId, d.keyId, d.queryId, amount, "unlock"),
    ...usageChanges(read, e, d.orgId, 0, d.tokens, amount),
    ...collectionUsageChanges(read, e, d.orgId, d.collections, "unlock", rowsByCollection),
    ...d.resultIds.map((resultId): Change => ({
      table: "unlocks",
      row: { query_id: d.queryId, result_id: resultId, org_id: d.orgId, key_id: d.keyId, position: e.position },
    })),
    keyUsed(e, d.orgId, d.keyId),
  ];
}

type EventsOf<T extends ProjectableEvent["type"]> = Extract<ProjectableEvent, { type: T }>;
type FeatureProjector<T extends ProjectableEvent["type"]> = (e: EventsOf<T>, read: ProjectionReader) => Change[];

/** The features' own projectors, by the events each one takes (every event has one home: project's switch). */
export interface FeatureProjectors {
  keys: FeatureProjector<"ApiKeyCreated" | "ApiKeyRevoked" | "ApiKeySpendingCapChanged">;
  members: FeatureProjector<
    "MemberInvited" | "InviteAccepted" | "MemberRemoved" | "InviteCancelled" | "SessionStarted" | "SessionEnded"
  >;
  ingestions: FeatureProjector<"IngestionStarted" | "IngestionCompleted" | "IngestionFailed">;
  webhooks: FeatureProjector<
    | "WebhookEndpointCreated"
    | "WebhookSecretRotated"
    | "WebhookEndpointDeleted"
    | "WebhookEndpointDisabled"
    | "WebhookEventCreated"
    | "WebhookAttemptRecorded"
    | "WebhookDeliveryEnded"
    | "WebhookRedeliveryRequested"
    | "NotificationSettingsChanged"
  >;
  alerts: FeatureProjector<
    "AlertCreated" | "AlertPaused" | "AlertResumed" | "AlertDeleted" | "AlertRunStarted" | "AlertRunEnded"
  >;
}

// The store carries the projectors it was opened with as this type (src/eventstore/db.ts's StoreProjectors).
declare module "../src/eventstore/db.js" {
  // eslint-disable-next-line @typescript-eslint/no-empty-object-type
  interface StoreProjectors extends FeatureProjectors {}
}

/** What one event changes, through the feature projectors given (a store's: Db.projectors). */
export function project(f: FeatureProjectors, e: ProjectableEvent, read: ProjectionReader): Change[] {
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
    case "ResultsUnlocked":
      return resultsUnlocked(e, read);
    case "ApiKeyCreated":
    case "ApiKeyRevoked":
    case "ApiKeySpendingCapChanged":
      return f.keys(e, read);
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
    case "MemberInvited":
    case "InviteAccepted":
    case "MemberRemoved":
    case "InviteCancelled":
    case "SessionStarted":
    case "SessionEnded":
      return f.members(e, read);
    case "IngestionStarted":
    case "IngestionCompleted":
    case "IngestionFailed":
      return f.ingestions(e, read);
    case "WebhookEndpointCreated":
    case "WebhookSecretRotated":
    case "WebhookEndpointDeleted":
    case "WebhookEndpointDisabled":
    case "WebhookEventCreated":
    case "WebhookAttemptRecorded":
    case "WebhookDeliveryEnded":
    case "WebhookRedeliveryRequested":
    case "NotificationSettingsChanged":
      return f.webhooks(e, read);
    case "AlertCreated":
    case "AlertPaused":
    case "AlertResumed":
    case "AlertDeleted":
    case "AlertRunStarted":
    case "AlertRunEnded":
      return f.alerts(e, read);
    case "RetractionsLoaded":
      // the list in force is read from the retractions stream itself (src/ingest/liveRetractions.ts)
      return [];
    case "CollectionDefined":
    case "CollectionChanged":
    case "CollectionRetired":
    case "MetaCollectionDefined":
      // no table: the catalogue in force is read from its stream (src/usecases/collections/catalogueInForce.ts)
      return [];
    default: {
      const unknownEvent: never = e;
      throw new Error(`projection: unknown event ${JSON.stringify(unknownEvent)}`);
    }
  }
}
