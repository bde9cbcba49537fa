// The event catalogue: every credit, charge, refund, unlock, key change, limit change and suspension.
// Amounts travel as decimal strings of micro-credits (JSON has no bigint).

export type BillingMode = 'live' | 'trial' | 'exempt';
export type KeyMode = 'live' | 'test';

export interface OrgLimits {
  perMinute: number;
  daily: number;
  monthly: number;
  previewPerHour: number;
}

export const DEFAULT_LIMITS: OrgLimits = { perMinute: 60, daily: 1000, monthly: 25000, previewPerHour: 50 };

/** Tokens and money billed for one collection within a request (rounded once per collection). */
export interface CollectionCharge {
  collection: string;
  tokens: number;
  pricePer1000Micros: string;
  amountMicros: string;
}

export interface Actor {
  /** 'operator' for the admin API and CLI, 'key' for API-key traffic, 'workflow' for Temporal activities */
  kind: 'operator' | 'key' | 'workflow';
  id: string;
}

export type DomainEvent =
  | { type: 'OrganizationCreated'; data: { orgId: string; name: string; billingMode: BillingMode; limits: OrgLimits; hideBalance: boolean } }
  | { type: 'CreditsAdded'; data: { orgId: string; amountMicros: string; reference: string } }
  | {
      type: 'SearchCharged';
      data: {
        orgId: string;
        keyId: string;
        queryId: string;
        endpoint: string;
        billingMode: BillingMode;
        tokens: number;
        amountMicros: string;
        collections: CollectionCharge[];
      };
    }
  | {
      type: 'ResultsUnlocked';
      data: {
        orgId: string;
        keyId: string;
        queryId: string;
        billingMode: BillingMode;
        resultIds: string[];
        tokens: number;
        amountMicros: string;
        collections: CollectionCharge[];
        workflowId: string;
      };
    }
  | { type: 'RefundIssued'; data: { orgId: string; amountMicros: string; reference: string; queryId: string | null } }
  | {
      type: 'ApiKeyCreated';
      data: {
        keyId: string;
        orgId: string;
        mode: KeyMode;
        keyHash: string;
        keyPrefix: string;
        collections: string[] | null;
        spendingCapMicros: string | null;
      };
    }
  | { type: 'ApiKeyRevoked'; data: { keyId: string; orgId: string } }
  | { type: 'LimitsChanged'; data: { orgId: string; limits: OrgLimits } }
  | { type: 'BillingSuspended'; data: { orgId: string; reason: string } }
  | { type: 'BillingResumed'; data: { orgId: string } };

export type EventType = DomainEvent['type'];

export interface EventMetadata {
  actor: Actor;
  requestId?: string;
}

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
