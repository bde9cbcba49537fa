// Projection logic, written once: what each event changes in balances, ledger, keys, unlocks, usage, prices, members,
// invites and sessions; an alert's events are projected by alertProjection.ts, what project() reads and returns is
// described in projectionReader.ts.
// The same function feeds the inline projector (SQL, in the append transaction) and replay (memory, then bulk).
// It updates the rows its reader hands out in place and returns them as the changes: both readers give the projector
// rows it owns, and replay folds millions of events, where a copy per change is most of the cost.
import { usesTrialQuery, type CollectionCharge, type ProjectableEvent } from "../src/domain/events.js";
import { dayPeriod, monthPeriod } from "../src/domain/queryQuota.js";
import type { BalanceRow, OrganizationRow, UsageRow, WebhookDeliveryRow, WebhookEndpointRow } from "./tables.js";
import { isDelivered } from "../src/domain/webhooks.js";
import { projectAlert } from "./alertProjection.js";
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

function requireEndpoint(read: ProjectionReader, endpointId: string): WebhookEndpointRow {
  const row = read.webhookEndpoint(endpointId);
  if (!row) throw new Error(`projection: no webhook endpoint ${endpointId}`);
  return row;
}

function requireDelivery(read: ProjectionReader, messageId: string, endpointId: string): WebhookDeliveryRow {
  const row = read.webhookDelivery(messageId, endpointId);
  if (!row) throw new Error(`projection: no webhook delivery of ${messageId} to ${endpointId}`);
  return row;
}

/**
 * The key an event was caused by, as of this event (the dashboard's "last used"): the whole row follows from the event.
 */
const keyUsed = (e: ProjectableEvent, orgId: string, keyId: string): Change => ({
  table: "key_last_used",
  row: { key_id: keyId, org_id: orgId, used_at: e.recordedAt, position: e.position },
});

export function project(e: ProjectableEvent, read: ProjectionReader): Change[] {
  switch (e.type) {
    case "OrganizationCreated": {
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
    case "CreditsAdded":
      return moneyIn(read, e, e.data.orgId, BigInt(e.data.amountMicros), "credit", null, e.data.reference);
    case "RefundIssued":
      return moneyIn(read, e, e.data.orgId, BigInt(e.data.amountMicros), "refund", e.data.queryId, e.data.reference);
    case "SearchCharged": {
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
    case "ResultsUnlocked": {
      const d = e.data;
      const amount = BigInt(d.amountMicros);
      const rowsByCollection = new Map(d.collections.map((line) => [line.collection, line.results ?? 0]));
      return [
        bumpOrgVersion(read, e, d.orgId, (org) =>
          d.billingMode === "trial" ? { trial_used: org.trial_used + 1 } : {},
        ),
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
    case "ApiKeyCreated": {
      const d = e.data;
      return [
        {
          table: "api_keys",
          row: {
            key_id: d.keyId,
            org_id: d.orgId,
            mode: d.mode,
            key_hash: d.keyHash,
            key_prefix: d.keyPrefix,
            collections: d.collections,
            spending_cap_micros: d.spendingCapMicros,
            spent_micros: "0",
            revoked: false,
            version: e.streamVersion,
            name: d.name ?? null,
          },
        },
      ];
    }
    case "ApiKeyRevoked": {
      const key = read.apiKey(e.data.keyId);
      if (!key) throw new Error(`projection: no api key ${e.data.keyId}`);
      return [{ table: "api_keys", row: Object.assign(key, { revoked: true, version: e.streamVersion }) }];
    }
    case "ApiKeySpendingCapChanged": {
      const key = read.apiKey(e.data.keyId);
      if (!key) throw new Error(`projection: no api key ${e.data.keyId}`);
      return [
        {
          table: "api_keys",
          row: Object.assign(key, { spending_cap_micros: e.data.spendingCapMicros, version: e.streamVersion }),
        },
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
    case "MemberInvited": {
      const d = e.data;
      return [
        {
          table: "invites",
          row: {
            invite_id: d.inviteId,
            org_id: d.orgId,
            email: d.email,
            role: d.role,
            token_hash: d.tokenHash,
            expires_at: d.expiresAt,
            invited_at: e.recordedAt,
            accepted_by: null,
            accepted_at: null,
            cancelled_at: null,
          },
        },
      ];
    }
    case "InviteAccepted": {
      const d = e.data;
      const invite = read.invite(d.inviteId);
      if (!invite) throw new Error(`projection: no invite ${d.inviteId}`);
      return [
        { table: "invites", row: Object.assign(invite, { accepted_by: d.memberId, accepted_at: e.recordedAt }) },
        {
          table: "members",
          row: {
            member_id: d.memberId,
            org_id: d.orgId,
            email: d.email,
            role: d.role,
            password_hash: d.passwordHash,
            invite_id: d.inviteId,
            joined_at: e.recordedAt,
            removed_at: null,
          },
        },
      ];
    }
    case "MemberRemoved": {
      const member = read.member(e.data.memberId);
      if (!member) throw new Error(`projection: no member ${e.data.memberId}`);
      return [{ table: "members", row: Object.assign(member, { removed_at: e.recordedAt }) }];
    }
    case "InviteCancelled": {
      const invite = read.invite(e.data.inviteId);
      if (!invite) throw new Error(`projection: no invite ${e.data.inviteId}`);
      return [{ table: "invites", row: Object.assign(invite, { cancelled_at: e.recordedAt }) }];
    }
    case "SessionStarted": {
      const d = e.data;
      return [
        {
          table: "sessions",
          row: {
            session_id: d.sessionId,
            org_id: d.orgId,
            member_id: d.memberId,
            started_at: e.recordedAt,
            expires_at: d.expiresAt,
            ended_at: null,
            end_reason: null,
          },
        },
      ];
    }
    case "IngestionStarted": {
      const d = e.data;
      return [
        {
          table: "ingestions",
          row: {
            ingestion_id: d.ingestionId,
            collection: d.collection,
            mode: d.mode,
            files: [...d.files],
            state: "running",
            started_at: e.recordedAt,
            finished_at: null,
            error: null,
            counts: null,
          },
        },
      ];
    }
    case "IngestionCompleted":
    case "IngestionFailed": {
      const row = read.ingestion(e.data.ingestionId);
      if (!row) throw new Error(`projection: no ingestion ${e.data.ingestionId}`);
      const failed = e.type === "IngestionFailed";
      return [
        {
          table: "ingestions",
          row: Object.assign(row, {
            state: failed ? "failed" : "completed",
            finished_at: e.recordedAt,
            error: failed ? e.data.error : null,
            counts: e.data.counts,
          }),
        },
      ];
    }
    case "SessionEnded": {
      const session = read.session(e.data.sessionId);
      if (!session) throw new Error(`projection: no session ${e.data.sessionId}`);
      return [
        { table: "sessions", row: Object.assign(session, { ended_at: e.recordedAt, end_reason: e.data.reason }) },
      ];
    }
    case "WebhookEndpointCreated": {
      const d = e.data;
      return [
        {
          table: "webhook_endpoints",
          row: {
            endpoint_id: d.endpointId,
            org_id: d.orgId,
            url: d.url,
            events: [...d.events],
            description: d.description,
            state: "enabled",
            secret_version: 1,
            previous_secret_expires_at: null,
            created_at: e.recordedAt,
            disabled_at: null,
            disabled_reason: null,
            failing_since: null,
            last_success_at: null,
          },
        },
      ];
    }
    case "WebhookSecretRotated":
      return [
        {
          table: "webhook_endpoints",
          row: Object.assign(requireEndpoint(read, e.data.endpointId), {
            secret_version: e.data.secretVersion,
            previous_secret_expires_at: e.data.previousSecretExpiresAt,
          }),
        },
      ];
    case "WebhookEndpointDeleted":
      return [
        {
          table: "webhook_endpoints",
          row: Object.assign(requireEndpoint(read, e.data.endpointId), { state: "deleted" }),
        },
      ];
    case "WebhookEndpointDisabled":
      return [
        {
          table: "webhook_endpoints",
          row: Object.assign(requireEndpoint(read, e.data.endpointId), {
            state: "disabled",
            disabled_at: e.recordedAt,
            disabled_reason: e.data.reason,
          }),
        },
      ];
    case "WebhookEventCreated": {
      const d = e.data;
      return d.endpointIds.map((endpointId): Change => ({
        table: "webhook_deliveries",
        row: {
          message_id: d.messageId,
          endpoint_id: endpointId,
          org_id: d.orgId,
          event_type: d.eventType,
          created_at: e.recordedAt,
          state: "pending",
          attempts: 0,
          last_status: null,
          last_attempt_at: null,
          ended_at: null,
        },
      }));
    }
    case "WebhookAttemptRecorded": {
      const d = e.data;
      const delivery = requireDelivery(read, d.messageId, d.endpointId);
      const endpoint = requireEndpoint(read, d.endpointId);
      const ok = isDelivered(d.status);
      return [
        {
          table: "webhook_attempts",
          row: {
            position: e.position,
            message_id: d.messageId,
            endpoint_id: d.endpointId,
            org_id: d.orgId,
            attempt: d.attempt,
            time: e.recordedAt,
            status: d.status,
            latency_ms: d.latencyMs,
            excerpt: d.excerpt,
            error: d.error,
          },
        },
        {
          table: "webhook_deliveries",
          row: Object.assign(delivery, {
            attempts: Math.max(delivery.attempts, d.attempt),
            last_status: d.status,
            last_attempt_at: e.recordedAt,
          }),
        },
        {
          table: "webhook_endpoints",
          row: Object.assign(
            endpoint,
            ok
              ? { failing_since: null, last_success_at: e.recordedAt }
              : { failing_since: endpoint.failing_since ?? e.recordedAt },
          ),
        },
      ];
    }
    case "WebhookDeliveryEnded":
      return [
        {
          table: "webhook_deliveries",
          row: Object.assign(requireDelivery(read, e.data.messageId, e.data.endpointId), {
            state: e.data.outcome,
            ended_at: e.recordedAt,
          }),
        },
      ];
    case "WebhookRedeliveryRequested":
      return [
        {
          table: "webhook_deliveries",
          row: Object.assign(requireDelivery(read, e.data.messageId, e.data.endpointId), {
            state: "pending",
            ended_at: null,
          }),
        },
      ];
    case "NotificationSettingsChanged":
      return [
        {
          table: "notification_settings",
          row: { org_id: e.data.orgId, balance_low_micros: e.data.balanceLowThresholdMicros },
        },
      ];
    case "AlertCreated":
    case "AlertPaused":
    case "AlertResumed":
    case "AlertDeleted":
    case "AlertRunStarted":
    case "AlertRunEnded":
      return projectAlert(e, read);
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
