// The event catalogue: every credit, charge, refund, unlock, key change, limit change, suspension and member action.
// Amounts travel as decimal strings of micro-credits (JSON has no bigint).
import type { RetractionNotice } from "./retraction.js";
import type { IntegrityNotice } from "./integrity.js";
import type { WebhookPayload } from "./webhooks.js";

export type BillingMode = "live" | "trial" | "exempt";
/** How one request was billed: the organization's mode, or 'off' when billing is switched off for it. */
export type ChargeMode = BillingMode | "off";
export type KeyMode = "live" | "test";

/** Free searches (and unlocks of new rows) a trial organization gets unless the operator sets another allowance. */
export const DEFAULT_TRIAL_QUERIES = 100;

/** The organization's billing switches, changed together by the operator. */
export interface BillingSettings {
  billingMode: BillingMode;
  /** false: nothing is charged and no billing header is sent (internal or partner organizations) */
  billingEnabled: boolean;
  /** true: X-Credits-Remaining is left out of responses */
  hideBalance: boolean;
  /** trial allowance: searches and unlock calls that unlock new rows, free while the allowance lasts */
  trialQueries: number;
}

export interface OrgLimits {
  perMinute: number;
  daily: number;
  monthly: number;
  previewPerHour: number;
}

export const DEFAULT_LIMITS: OrgLimits = { perMinute: 60, daily: 1000, monthly: 25000, previewPerHour: 50 };

const BILLING_MODES: readonly BillingMode[] = ["live", "trial", "exempt"];
const KEY_MODES: readonly KeyMode[] = ["live", "test"];

/** A stored billing mode; anything else is a corrupt row, not a mode to guess. */
export function parseBillingMode(value: unknown): BillingMode {
  if (!BILLING_MODES.includes(value as BillingMode)) throw new Error(`not a billing mode: ${JSON.stringify(value)}`);
  return value as BillingMode;
}

export function parseKeyMode(value: unknown): KeyMode {
  if (!KEY_MODES.includes(value as KeyMode)) throw new Error(`not a key mode: ${JSON.stringify(value)}`);
  return value as KeyMode;
}

/** Stored limits (JSON): each a non-negative integer; a limit the record predates takes its default. */
export function parseOrgLimits(value: unknown): OrgLimits {
  if (value === null || typeof value !== "object" || Array.isArray(value))
    throw new Error(`not organization limits: ${JSON.stringify(value)}`);
  const stored = value as Record<string, unknown>;
  const limit = (name: keyof OrgLimits): number => {
    const v = stored[name] ?? DEFAULT_LIMITS[name];
    if (typeof v !== "number" || !Number.isInteger(v) || v < 0)
      throw new Error(`organization limit ${name} is not a non-negative integer: ${JSON.stringify(v)}`);
    return v;
  };
  return {
    perMinute: limit("perMinute"),
    daily: limit("daily"),
    monthly: limit("monthly"),
    previewPerHour: limit("previewPerHour"),
  };
}

/** Tokens and money billed for one collection within a request (rounded once per collection). */
export interface CollectionCharge {
  collection: string;
  /** result rows billed on this line (absent in older logs) */
  results?: number;
  tokens: number;
  pricePer1000Micros: string;
  amountMicros: string;
}

export interface Actor {
  /** 'operator' for the admin API, CLI and operator dashboard, 'key' for API-key traffic, 'workflow' for Temporal
   *  activities, 'member' for a signed-in member of an organization (id: the member id) */
  kind: "operator" | "key" | "workflow" | "member";
  id: string;
}

/** A member's role in their organization: owners also invite, set spending caps and revoke any key. */
export type MemberRole = "owner" | "member";
const MEMBER_ROLES: readonly MemberRole[] = ["owner", "member"];

export function parseMemberRole(value: unknown): MemberRole {
  if (!MEMBER_ROLES.includes(value as MemberRole)) throw new Error(`not a member role: ${JSON.stringify(value)}`);
  return value as MemberRole;
}

export type DomainEvent =
  | {
      type: "OrganizationCreated";
      // billingEnabled and trialQueries arrived later: absent in older logs means enabled and no trial allowance
      data: {
        orgId: string;
        name: string;
        billingMode: BillingMode;
        limits: OrgLimits;
        hideBalance: boolean;
        billingEnabled?: boolean;
        trialQueries?: number;
      };
    }
  | { type: "CreditsAdded"; data: { orgId: string; amountMicros: string; reference: string } }
  | {
      type: "SearchCharged";
      data: {
        orgId: string;
        keyId: string;
        queryId: string;
        endpoint: string;
        billingMode: ChargeMode;
        /** the rows delivered (absent in older logs) */
        resultIds?: string[];
        tokens: number;
        amountMicros: string;
        collections: CollectionCharge[];
      };
    }
  | {
      type: "ResultsUnlocked";
      data: {
        orgId: string;
        keyId: string;
        queryId: string;
        billingMode: ChargeMode;
        resultIds: string[];
        tokens: number;
        amountMicros: string;
        collections: CollectionCharge[];
        workflowId: string;
      };
    }
  /**
   * a priced gateway tool answered (POST /api/v1/tools/{prefix}/{tool}); not a query: no quota, no trial allowance, no
   * collection
   */
  | {
      type: "ToolCallCharged";
      data: {
        orgId: string;
        keyId: string;
        callId: string;
        tool: string;
        billingMode: ChargeMode;
        amountMicros: string;
      };
    }
  | { type: "RefundIssued"; data: { orgId: string; amountMicros: string; reference: string; queryId: string | null } }
  | {
      type: "ApiKeyCreated";
      data: {
        keyId: string;
        orgId: string;
        mode: KeyMode;
        keyHash: string;
        keyPrefix: string;
        collections: string[] | null;
        spendingCapMicros: string | null;
        /** what people call the key on the dashboard, the ledger and the recent queries (absent in older logs) */
        name?: string;
      };
    }
  | { type: "ApiKeyRevoked"; data: { keyId: string; orgId: string } }
  /** spendingCapMicros null: no cap; previous is the cap it replaced */
  | {
      type: "ApiKeySpendingCapChanged";
      data: { keyId: string; orgId: string; spendingCapMicros: string | null; previous: string | null };
    }
  | { type: "LimitsChanged"; data: { orgId: string; limits: OrgLimits; previous?: OrgLimits } }
  | { type: "BillingSettingsChanged"; data: { orgId: string } & BillingSettings }
  /** pricePer1000Micros null removes the override: the collection's catalogue price applies again */
  | { type: "PriceOverrideSet"; data: { orgId: string; collection: string; pricePer1000Micros: string | null } }
  | { type: "BillingSuspended"; data: { orgId: string; reason: string } }
  | { type: "BillingResumed"; data: { orgId: string } }
  /** a catalogue question answered from the catalogue: free, recorded so operators see catalogue questions in usage */
  | {
      type: "CatalogueAnswered";
      data: {
        orgId: string;
        keyId: string;
        queryId: string;
        endpoint: string;
        intent: "sources" | "publishers" | "journals";
        topic: string | null;
        collections: string[];
      };
    }
  /**
   * a works facets request answered (POST /api/v1/works/facets): free, and one query of the daily and monthly quota;
   * `query`: whether a query chose the works counted (else the collections under the filters)
   */
  | {
      type: "WorksFacetsCounted";
      data: {
        orgId: string;
        keyId: string;
        facetsId: string;
        collections: string[];
        facets: string[];
        query: boolean;
      };
    }
  /** a client asked for a journal the service does not hold (free) */
  | {
      type: "JournalRequested";
      data: {
        orgId: string;
        keyId: string;
        requestId: string;
        title: string | null;
        issn: string | null;
        note: string | null;
      };
    }
  /** an operator or an owner invited someone by email; only the SHA-256 of the one-use token is kept */
  | {
      type: "MemberInvited";
      data: { orgId: string; inviteId: string; email: string; role: MemberRole; tokenHash: string; expiresAt: string };
    }
  /** the invite was used: the member exists from here on, with their scrypt password hash */
  | {
      type: "InviteAccepted";
      data: {
        orgId: string;
        inviteId: string;
        memberId: string;
        email: string;
        role: MemberRole;
        passwordHash: string;
      };
    }
  /**
   * an owner or the operator took the member out of the organization: their sessions stop and the address is free again
   */
  | { type: "MemberRemoved"; data: { orgId: string; inviteId: string; memberId: string; email: string } }
  /** an owner or the operator withdrew an invite before it was used: its link reads as unknown */
  | { type: "InviteCancelled"; data: { orgId: string; inviteId: string } }
  /**
   * a sign-in: a member (orgId, memberId) or the operator (both null); sessionId is the SHA-256 of the cookie's token
   */
  | {
      type: "SessionStarted";
      data: { sessionId: string; orgId: string | null; memberId: string | null; expiresAt: string };
    }
  | {
      type: "SessionEnded";
      data: { sessionId: string; orgId: string | null; memberId: string | null; reason: SessionEndReason };
    }
  /**
   * An operator loaded retraction lists (POST /admin/v1/retractions): the files as given, how many retracted works they
   * list, and the notices of the works no earlier list had (the list now in force is the shipped lists plus these).
   * `held`: of those works, the DOIs some collection held when the list was loaded, which searches exclude from then on
   * (content ingested later is checked against the whole list at ingestion); absent in older events: all of them.
   * `updates`: the notices of any kind (corrections, expressions of concern, ...) the lists did not hold before, by the
   * updated work's DOI (`work`; `doi` is the notice's): each work's integrity; absent in older events and when there
   * are none.
   */
  | {
      type: "RetractionsLoaded";
      data: {
        files: string[];
        listed: number;
        newlyRetracted: number;
        notices: RetractionNotice[];
        held?: string[];
        /** loads before notices named their source and PMID lack both (see sourceOfFiles) */
        updates?: Array<{ work: string } & Omit<IntegrityNotice, "source" | "pmid"> & Partial<IntegrityNotice>>;
      };
    }
  /**
   * The catalogue as events (CATALOGUE_STREAM; its version is the catalogue's version). A plain collection defined
   * (POST /admin/v1/collections, or seeded from config/collections.json on a first start), changed in place, or retired
   * (its searches answer 404 from then on); a meta-collection defined or changed (PUT
   * /admin/v1/meta-collections/{name}), or retired (DELETE, the same path: its searches answer 404 from then on, its
   * members stay).
   */
  | { type: "CollectionDefined"; data: { collection: CollectionDefinition; seeded: boolean } }
  | { type: "CollectionChanged"; data: { collection: CollectionDefinition } }
  | { type: "CollectionRetired"; data: { name: string } }
  | { type: "MetaCollectionDefined"; data: MetaCollectionDefinition }
  | { type: "MetaCollectionRetired"; data: { name: string } }
  /**
   * One ingestion of source files into a plain collection (its own stream, ingestionStream(id)), started and ended with
   * its counts.
   */
  | {
      type: "IngestionStarted";
      data: { ingestionId: string; collection: string; files: string[]; mode: IngestionMode };
    }
  | { type: "IngestionCompleted"; data: { ingestionId: string; collection: string; counts: IngestionCounts } }
  | {
      type: "IngestionFailed";
      data: { ingestionId: string; collection: string; error: string; counts: IngestionCounts };
    }
  /**
   * Webhook endpoints of an organization (webhookEndpointStream(endpointId)). The signing secret is not in the log: it
   * is derived from the service's master key, the endpoint id and secretVersion (src/domain/webhooks.ts).
   */
  | {
      type: "WebhookEndpointCreated";
      data: { orgId: string; endpointId: string; url: string; events: string[]; description: string | null };
    }
  /** a new secret; the previous one keeps signing beside it until previousSecretExpiresAt */
  | {
      type: "WebhookSecretRotated";
      data: { orgId: string; endpointId: string; secretVersion: number; previousSecretExpiresAt: string };
    }
  | { type: "WebhookEndpointDeleted"; data: { orgId: string; endpointId: string } }
  /** the service stopped sending to an endpoint that kept failing (reason says since when) */
  | { type: "WebhookEndpointDisabled"; data: { orgId: string; endpointId: string; reason: string } }
  /**
   * Something the service tells an organization (webhookMessageStream(messageId)): the payload exactly as every attempt
   * sends it, and the endpoints it goes to (one delivery workflow each); messageId is every attempt's webhook-id.
   */
  | {
      type: "WebhookEventCreated";
      data: { orgId: string; messageId: string; eventType: string; payload: WebhookPayload; endpointIds: string[] };
    }
  /** one HTTP attempt of a delivery (webhookDeliveryStream): status null when no answer came */
  | {
      type: "WebhookAttemptRecorded";
      data: {
        orgId: string;
        messageId: string;
        endpointId: string;
        attempt: number;
        status: number | null;
        latencyMs: number;
        excerpt: string;
        error: string | null;
      };
    }
  /** a delivery ended: a 2xx, every retry failed, or the endpoint was deleted or disabled meanwhile */
  | {
      type: "WebhookDeliveryEnded";
      data: { orgId: string; messageId: string; endpointId: string; outcome: WebhookDeliveryOutcome };
    }
  /** the organization asked for a delivery to be sent again: a new series of attempts, the same webhook-id */
  | { type: "WebhookRedeliveryRequested"; data: { orgId: string; messageId: string; endpointId: string } }
  /**
   * An alert on a saved search (alertStream(alertId)): created with the works its collections already held (its
   * seen-set, by work identity), paused, resumed, deleted; each run recorded with its queryId and the new works it
   * delivers (seen from then on), then ended: delivered (charged by the SearchCharged of its queryId), failed or empty.
   */
  | {
      type: "AlertCreated";
      data: { orgId: string; alertId: string; keyId: string; definition: AlertDefinitionData; seenWorks: string[] };
    }
  /** paused by its organization, or by the service with a reason (a collection it searches was retired) */
  | { type: "AlertPaused"; data: { orgId: string; alertId: string; reason?: AlertPausedReason } }
  | { type: "AlertResumed"; data: { orgId: string; alertId: string } }
  | { type: "AlertDeleted"; data: { orgId: string; alertId: string } }
  | {
      type: "AlertRunStarted";
      data: {
        orgId: string;
        alertId: string;
        queryId: string;
        trigger: string;
        resultIds: string[];
        works: string[];
        costMicros: string;
        /** new works held back (max_cost_per_run, or more than a run sends): the next run searches them again */
        deferredWorks?: string[];
      };
    }
  | {
      type: "AlertRunEnded";
      data: { orgId: string; alertId: string; queryId: string; outcome: AlertRunOutcome; chargedMicros: string };
    }
  /**
   * the organization's notification settings (notificationSettingsStream): below this balance, `balance.low` (null:
   * never)
   */
  | { type: "NotificationSettingsChanged"; data: { orgId: string; balanceLowThresholdMicros: string | null } };

export type WebhookDeliveryOutcome = "delivered" | "failed" | "cancelled";

/**
 * delivered: a 2xx or a re-fetch proved it (and it was charged); failed: no proof in time (nothing charged); empty: no
 * new works
 */
/** Why the service paused an alert: a collection it searches was retired (its name, when). */
export interface AlertPausedReason {
  code: "COLLECTION_RETIRED";
  collection: string;
  retiredAt: string;
}

export type AlertRunOutcome = "delivered" | "failed" | "empty";

/** An alert's definition as its events hold it (src/usecases/alerts/alertRules.ts checks it). */
export interface AlertDefinitionData {
  query: string;
  collections: string[];
  filters: unknown;
  minRelevance: number;
  onePerDocument: boolean;
  schedule: "on_ingest" | "daily" | "weekly";
  maxCostPerRunMicros: string | null;
  webhookEndpointId: string | null;
}

/**
 * A plain collection's definition as the operator gives it: config/collections.json's fields
 * (src/domain/collectionDefinitions.ts validates them).
 */
export interface CollectionDefinition {
  name: string;
  displayName: string;
  description: string | null;
  kind: "scholarly" | "editorial";
  retrieval: "dense" | "sparse" | "hybrid";
  pricePer1000: string;
  openAccessOnly: boolean;
  scanFilterable: boolean;
  excludeRetracted: boolean;
  demoFigures?: boolean;
  source: { reader: string; files: string[] };
}

export interface MetaCollectionDefinition {
  name: string;
  displayName: string;
  description: string | null;
  members: string[];
}

/** upsert: add, change and delete by source identity; replace: the collection becomes exactly the given files. */
export type IngestionMode = "upsert" | "replace";

/**
 * When a dense or hybrid collection's chunks get their vectors: 'at_commit' (each batch embeds before it commits) or
 * 'backfill' (each batch commits its chunks searchable by BM25 at once; the vector backfill embeds them afterwards)
 */
export type VectorTiming = "at_commit" | "backfill";

/**
 * What one ingestion did, by document (a document's identity is its source's: PMID, OpenAlex id, DOI, BEIR or JSONL
 * id).
 */
export interface IngestionCounts {
  documentsRead: number;
  documentsAdded: number;
  documentsUpdated: number;
  documentsDeleted: number;
  documentsUnchanged: number;
  /**
   * new documents the collection's rules left out: no passage long enough to stand alone (4 words and 8 tokens at
   * least), retracted, or not open access where the collection holds open access only (a document indexed before and
   * left out now counts as deleted)
   */
  documentsExcluded: number;
  chunksIndexed: number;
}

/** signed-out: the session's own sign-out; revoked: ended from another session (or by the operator) */
export type SessionEndReason = "signed-out" | "revoked";

export interface EventMetadata {
  actor: Actor;
  requestId?: string;
}

/** What projecting an event needs: the event and its place in the log and its stream, and when. */
export type ProjectableEvent = DomainEvent & { position: number; streamVersion: number; recordedAt: string };

/** An event as stored: its place in the log, its stream, and its link in the hash chain. */
export type StoredEvent = DomainEvent & {
  position: number;
  streamId: string;
  streamVersion: number;
  metadata: EventMetadata;
  recordedAt: string;
  prevHash: string;
  hash: string;
};

export const orgStream = (orgId: string) => `org-${orgId}`;
export const keyStream = (keyId: string) => `key-${keyId}`;
/**
 * One stream per catalogue answer and per journal request: each is its own fact, so appends never contend on a version.
 */
export const catalogueAnswerStream = (queryId: string) => `catalogue-${queryId}`;
export const journalRequestStream = (requestId: string) => `journal-request-${requestId}`;
/** One stream per works facets request: its own fact, as a catalogue answer is. */
export const worksFacetsStream = (facetsId: string) => `works-facets-${facetsId}`;
/** An invite and its acceptance (which creates the member); a session from sign-in to its end. */
export const inviteStream = (inviteId: string) => `invite-${inviteId}`;
export const sessionStream = (sessionId: string) => `session-${sessionId}`;
/** Every retraction-list load, in order: its version is the version of the list in force. */
export const RETRACTIONS_STREAM = "retractions";
/** Every collection and meta-collection definition, change and retirement, in order: its version is the catalogue's. */
export const CATALOGUE_STREAM = "catalogue";
/** One stream per ingestion: started, then completed or failed. */
export const ingestionStream = (ingestionId: string) => `ingestion-${ingestionId}`;

/**
 * A webhook endpoint's life; one event the service tells (its creation); one delivery of it to one endpoint (attempts,
 * end).
 */
export const webhookEndpointStream = (endpointId: string) => `webhook-endpoint-${endpointId}`;
export const webhookMessageStream = (messageId: string) => `webhook-message-${messageId}`;
export const notificationSettingsStream = (orgId: string) => `notifications-${orgId}`;
/** An alert's life and its runs, in order. */
export const alertStream = (alertId: string) => `alert-${alertId}`;
export const webhookDeliveryStream = (messageId: string, endpointId: string) =>
  `webhook-delivery-${messageId}-${endpointId}`;

/** The endpoint an assisted search's charge names (SearchCharged.endpoint). */
export const ASSISTED_SEARCH_ENDPOINT = "/search/assisted";

/**
 * Whether a search counts against a trial allowance: every search does, except an assisted search that delivered
 * nothing (a no-results answer costs nothing, in credits or in trial queries). Older events without resultIds count.
 */
export function countsAgainstTrial(d: { endpoint: string; resultIds?: string[] }): boolean {
  return !(d.endpoint === ASSISTED_SEARCH_ENDPOINT && d.resultIds !== undefined && d.resultIds.length === 0);
}

/** Whether a search charge used one query of a trial allowance (the projection's rule). */
export function usesTrialQuery(d: { billingMode: ChargeMode; endpoint: string; resultIds?: string[] }): boolean {
  return d.billingMode === "trial" && countsAgainstTrial(d);
}
