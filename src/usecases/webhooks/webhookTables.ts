// The webhooks' tables, written by their projection (webhookProjection.ts): an organization's endpoints, each delivery
// of an event to one of them, every attempt of it, and what the organization wants to be told.
import type { TableSpec } from "../../../projections/tables.js";

declare module "../../../projections/tables.js" {
  interface RowOf {
    webhook_endpoints: WebhookEndpointRow;
    webhook_deliveries: WebhookDeliveryRow;
    webhook_attempts: WebhookAttemptRow;
    notification_settings: NotificationSettingsRow;
  }
}

/** An organization's webhook endpoint; its secret is derived (never stored) from the master key and secret_version. */
export interface WebhookEndpointRow {
  endpoint_id: string;
  org_id: string;
  url: string;
  events: string[];
  description: string | null;
  state: "enabled" | "disabled" | "deleted";
  secret_version: number;
  previous_secret_expires_at: string | null;
  created_at: string;
  disabled_at: string | null;
  disabled_reason: string | null;
  /** the first failed attempt since the last success; null while it answers */
  failing_since: string | null;
  last_success_at: string | null;
}
/** One event's delivery to one endpoint. */
export interface WebhookDeliveryRow {
  message_id: string;
  endpoint_id: string;
  org_id: string;
  event_type: string;
  created_at: string;
  state: "pending" | "delivered" | "failed" | "cancelled";
  attempts: number;
  last_status: number | null;
  last_attempt_at: string | null;
  ended_at: string | null;
}
export interface WebhookAttemptRow {
  position: number;
  message_id: string;
  endpoint_id: string;
  org_id: string;
  attempt: number;
  time: string;
  status: number | null;
  latency_ms: number;
  excerpt: string;
  error: string | null;
}

interface NotificationSettingsRow {
  org_id: string;
  balance_low_micros: string | null;
}

export const WEBHOOK_ENDPOINTS: TableSpec<"webhook_endpoints"> = {
  name: "webhook_endpoints",
  columns: {
    endpoint_id: "text",
    org_id: "text",
    url: "text",
    events: "jsonb",
    description: "text",
    state: "text",
    secret_version: "integer",
    previous_secret_expires_at: "timestamptz",
    created_at: "timestamptz",
    disabled_at: "timestamptz",
    disabled_reason: "text",
    failing_since: "timestamptz",
    last_success_at: "timestamptz",
  },
  primaryKey: ["endpoint_id"],
  ddl: (
    p,
  ) => `-- webhooks: an organization's endpoints, each delivery of an event to one of them, and every attempt of it
CREATE TABLE IF NOT EXISTS ${p}webhook_endpoints (
  endpoint_id TEXT PRIMARY KEY, org_id TEXT NOT NULL, url TEXT NOT NULL, events JSONB NOT NULL, description TEXT,
  state TEXT NOT NULL,
  secret_version INTEGER NOT NULL, previous_secret_expires_at TIMESTAMPTZ, created_at TIMESTAMPTZ NOT NULL,
  disabled_at TIMESTAMPTZ,
  disabled_reason TEXT, failing_since TIMESTAMPTZ, last_success_at TIMESTAMPTZ);
CREATE INDEX IF NOT EXISTS ${p}webhook_endpoints_org ON ${p}webhook_endpoints (org_id);
`,
};

export const WEBHOOK_DELIVERIES: TableSpec<"webhook_deliveries"> = {
  name: "webhook_deliveries",
  columns: {
    message_id: "text",
    endpoint_id: "text",
    org_id: "text",
    event_type: "text",
    created_at: "timestamptz",
    state: "text",
    attempts: "integer",
    last_status: "integer",
    last_attempt_at: "timestamptz",
    ended_at: "timestamptz",
  },
  primaryKey: ["message_id", "endpoint_id"],
  ddl: (p) => `CREATE TABLE IF NOT EXISTS ${p}webhook_deliveries (
  message_id TEXT NOT NULL, endpoint_id TEXT NOT NULL, org_id TEXT NOT NULL, event_type TEXT NOT NULL,
  created_at TIMESTAMPTZ NOT NULL,
  state TEXT NOT NULL, attempts INTEGER NOT NULL, last_status INTEGER, last_attempt_at TIMESTAMPTZ,
  ended_at TIMESTAMPTZ,
  PRIMARY KEY (message_id, endpoint_id));
CREATE INDEX IF NOT EXISTS ${p}webhook_deliveries_endpoint ON ${p}webhook_deliveries (endpoint_id, created_at);
`,
};

export const WEBHOOK_ATTEMPTS: TableSpec<"webhook_attempts"> = {
  name: "webhook_attempts",
  columns: {
    position: "bigint",
    message_id: "text",
    endpoint_id: "text",
    org_id: "text",
    attempt: "integer",
    time: "timestamptz",
    status: "integer",
    latency_ms: "integer",
    excerpt: "text",
    error: "text",
  },
  primaryKey: ["position"],
  ddl: (p) => `CREATE TABLE IF NOT EXISTS ${p}webhook_attempts (
  position BIGINT PRIMARY KEY, message_id TEXT NOT NULL, endpoint_id TEXT NOT NULL, org_id TEXT NOT NULL,
  attempt INTEGER NOT NULL,
  time TIMESTAMPTZ NOT NULL, status INTEGER, latency_ms INTEGER NOT NULL, excerpt TEXT NOT NULL, error TEXT);
CREATE INDEX IF NOT EXISTS ${p}webhook_attempts_delivery ON ${p}webhook_attempts (message_id, endpoint_id, attempt);
`,
};

export const NOTIFICATION_SETTINGS: TableSpec<"notification_settings"> = {
  name: "notification_settings",
  columns: { org_id: "text", balance_low_micros: "bigint" },
  primaryKey: ["org_id"],
  ddl: (p) => `-- what an organization wants to be told: below balance_low_micros, balance.low (null: never)
CREATE TABLE IF NOT EXISTS ${p}notification_settings (org_id TEXT PRIMARY KEY, balance_low_micros BIGINT);
`,
};
