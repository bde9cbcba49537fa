// Projection tables: their DDL under a name prefix (live "proj_", rebuilt "replay_") and row types.
import type { AlertDefinitionData, AlertPausedReason, AlertRunOutcome, IngestionCounts } from "../src/domain/events.js";

export type TablePrefix = "proj_" | "replay_";

export const PROJECTION_TABLES = [
  "organizations",
  "balances",
  "ledger",
  "api_keys",
  "unlocks",
  "usage",
  "collection_usage",
  "price_overrides",
  "key_last_used",
  "members",
  "invites",
  "sessions",
  "ingestions",
  "webhook_endpoints",
  "webhook_deliveries",
  "webhook_attempts",
  "notification_settings",
  "alerts",
  "alert_runs",
] as const;
export type ProjectionTable = (typeof PROJECTION_TABLES)[number];

/** Primary-key columns, used for upserts and for ordering digests. */
export const PRIMARY_KEYS: Record<ProjectionTable, string[]> = {
  organizations: ["org_id"],
  balances: ["org_id"],
  ledger: ["position"],
  api_keys: ["key_id"],
  unlocks: ["query_id", "result_id"],
  usage: ["org_id", "period"],
  collection_usage: ["org_id", "day", "collection"],
  price_overrides: ["org_id", "collection"],
  key_last_used: ["key_id"],
  members: ["member_id"],
  invites: ["invite_id"],
  sessions: ["session_id"],
  ingestions: ["ingestion_id"],
  webhook_endpoints: ["endpoint_id"],
  webhook_deliveries: ["message_id", "endpoint_id"],
  webhook_attempts: ["position"],
  notification_settings: ["org_id"],
  alerts: ["alert_id"],
  alert_runs: ["query_id"],
};

/** Columns in a fixed order; money and counters as bigint, kept as decimal strings in TypeScript. */
export const COLUMNS: Record<ProjectionTable, string[]> = {
  organizations: [
    "org_id",
    "name",
    "billing_mode",
    "limits",
    "hide_balance",
    "suspended",
    "version",
    "billing_enabled",
    "trial_queries",
    "trial_used",
  ],
  balances: ["org_id", "balance_micros", "credited_micros", "charged_micros", "refunded_micros"],
  ledger: [
    "position",
    "org_id",
    "time",
    "type",
    "amount_micros",
    "balance_after_micros",
    "key_id",
    "query_id",
    "reference",
  ],
  api_keys: [
    "key_id",
    "org_id",
    "mode",
    "key_hash",
    "key_prefix",
    "collections",
    "spending_cap_micros",
    "spent_micros",
    "revoked",
    "version",
    "name",
  ],
  unlocks: ["query_id", "result_id", "org_id", "key_id", "position"],
  usage: ["org_id", "period", "queries", "tokens", "amount_micros", "catalogue_answers"],
  collection_usage: [
    "org_id",
    "day",
    "collection",
    "queries",
    "unlocked_results",
    "tokens",
    "charged_micros",
    "unlocked_micros",
  ],
  price_overrides: ["org_id", "collection", "price_per_1000_micros", "position"],
  key_last_used: ["key_id", "org_id", "used_at", "position"],
  members: ["member_id", "org_id", "email", "role", "password_hash", "invite_id", "joined_at", "removed_at"],
  invites: [
    "invite_id",
    "org_id",
    "email",
    "role",
    "token_hash",
    "expires_at",
    "invited_at",
    "accepted_by",
    "accepted_at",
    "cancelled_at",
  ],
  sessions: ["session_id", "org_id", "member_id", "started_at", "expires_at", "ended_at", "end_reason"],
  ingestions: ["ingestion_id", "collection", "mode", "files", "state", "started_at", "finished_at", "error", "counts"],
  webhook_endpoints: [
    "endpoint_id",
    "org_id",
    "url",
    "events",
    "description",
    "state",
    "secret_version",
    "previous_secret_expires_at",
    "created_at",
    "disabled_at",
    "disabled_reason",
    "failing_since",
    "last_success_at",
  ],
  webhook_deliveries: [
    "message_id",
    "endpoint_id",
    "org_id",
    "event_type",
    "created_at",
    "state",
    "attempts",
    "last_status",
    "last_attempt_at",
    "ended_at",
  ],
  webhook_attempts: [
    "position",
    "message_id",
    "endpoint_id",
    "org_id",
    "attempt",
    "time",
    "status",
    "latency_ms",
    "excerpt",
    "error",
  ],
  notification_settings: ["org_id", "balance_low_micros"],
  alerts: [
    "alert_id",
    "org_id",
    "key_id",
    "definition",
    "state",
    "created_at",
    "seen",
    "runs",
    "last_run_at",
    "paused_reason",
  ],
  alert_runs: [
    "query_id",
    "alert_id",
    "org_id",
    "created_at",
    "trigger",
    "result_ids",
    "works",
    "cost_micros",
    "state",
    "ended_at",
    "amount_micros",
  ],
};

/** SQL type of every column, for bulk inserts that pass one array per column (unnest). */
export const COLUMN_TYPES: Record<string, string> = {
  org_id: "text",
  name: "text",
  billing_mode: "text",
  limits: "jsonb",
  hide_balance: "boolean",
  suspended: "boolean",
  version: "integer",
  billing_enabled: "boolean",
  trial_queries: "integer",
  trial_used: "integer",
  balance_micros: "bigint",
  credited_micros: "bigint",
  charged_micros: "bigint",
  refunded_micros: "bigint",
  position: "bigint",
  time: "timestamptz",
  type: "text",
  amount_micros: "bigint",
  balance_after_micros: "bigint",
  key_id: "text",
  query_id: "text",
  reference: "text",
  mode: "text",
  key_hash: "text",
  key_prefix: "text",
  collections: "jsonb",
  spending_cap_micros: "bigint",
  spent_micros: "bigint",
  revoked: "boolean",
  result_id: "text",
  period: "text",
  queries: "integer",
  tokens: "bigint",
  catalogue_answers: "integer",
  day: "text",
  collection: "text",
  unlocked_results: "integer",
  unlocked_micros: "bigint",
  price_per_1000_micros: "bigint",
  used_at: "timestamptz",
  member_id: "text",
  email: "text",
  role: "text",
  password_hash: "text",
  invite_id: "text",
  joined_at: "timestamptz",
  token_hash: "text",
  expires_at: "timestamptz",
  invited_at: "timestamptz",
  accepted_by: "text",
  accepted_at: "timestamptz",
  removed_at: "timestamptz",
  cancelled_at: "timestamptz",
  session_id: "text",
  started_at: "timestamptz",
  ended_at: "timestamptz",
  end_reason: "text",
  ingestion_id: "text",
  files: "jsonb",
  state: "text",
  finished_at: "timestamptz",
  error: "text",
  counts: "jsonb",
  endpoint_id: "text",
  url: "text",
  events: "jsonb",
  description: "text",
  secret_version: "integer",
  previous_secret_expires_at: "timestamptz",
  created_at: "timestamptz",
  disabled_at: "timestamptz",
  disabled_reason: "text",
  failing_since: "timestamptz",
  last_success_at: "timestamptz",
  message_id: "text",
  event_type: "text",
  attempts: "integer",
  last_status: "integer",
  last_attempt_at: "timestamptz",
  attempt: "integer",
  status: "integer",
  latency_ms: "integer",
  excerpt: "text",
  balance_low_micros: "bigint",
  alert_id: "text",
  definition: "jsonb",
  seen: "jsonb",
  paused_reason: "jsonb",
  runs: "integer",
  last_run_at: "timestamptz",
  trigger: "text",
  result_ids: "jsonb",
  works: "jsonb",
  cost_micros: "bigint",
};

/** timestamptz columns: selected as ISO text in UTC with milliseconds, like the ledger's time */
export const TIME_COLUMNS: ReadonlySet<string> = new Set(
  Object.entries(COLUMN_TYPES)
    .filter(([, t]) => t === "timestamptz")
    .map(([c]) => c),
);

export function projectionDdl(p: TablePrefix): string {
  return `
CREATE TABLE IF NOT EXISTS ${p}organizations (
  org_id TEXT PRIMARY KEY, name TEXT NOT NULL, billing_mode TEXT NOT NULL, limits JSONB NOT NULL,
  hide_balance BOOLEAN NOT NULL, suspended BOOLEAN NOT NULL, version INTEGER NOT NULL);
-- columns added after the first release; ADD COLUMN keeps older live tables usable
ALTER TABLE ${p}organizations ADD COLUMN IF NOT EXISTS billing_enabled BOOLEAN NOT NULL DEFAULT true;
ALTER TABLE ${p}organizations ADD COLUMN IF NOT EXISTS trial_queries INTEGER NOT NULL DEFAULT 0;
ALTER TABLE ${p}organizations ADD COLUMN IF NOT EXISTS trial_used INTEGER NOT NULL DEFAULT 0;
CREATE TABLE IF NOT EXISTS ${p}balances (
  org_id TEXT PRIMARY KEY, balance_micros BIGINT NOT NULL, credited_micros BIGINT NOT NULL,
  charged_micros BIGINT NOT NULL, refunded_micros BIGINT NOT NULL);
CREATE TABLE IF NOT EXISTS ${p}ledger (
  position BIGINT PRIMARY KEY, org_id TEXT NOT NULL, time TIMESTAMPTZ NOT NULL, type TEXT NOT NULL,
  amount_micros BIGINT NOT NULL, balance_after_micros BIGINT NOT NULL, key_id TEXT, query_id TEXT, reference TEXT);
CREATE INDEX IF NOT EXISTS ${p}ledger_org ON ${p}ledger (org_id, position);
CREATE TABLE IF NOT EXISTS ${p}api_keys (
  key_id TEXT PRIMARY KEY, org_id TEXT NOT NULL, mode TEXT NOT NULL, key_hash TEXT NOT NULL UNIQUE,
  key_prefix TEXT NOT NULL,
  collections JSONB, spending_cap_micros BIGINT, spent_micros BIGINT NOT NULL, revoked BOOLEAN NOT NULL,
  version INTEGER NOT NULL);
-- keys created before names existed have none (null)
ALTER TABLE ${p}api_keys ADD COLUMN IF NOT EXISTS name TEXT;
CREATE TABLE IF NOT EXISTS ${p}unlocks (
  query_id TEXT NOT NULL, result_id TEXT NOT NULL, org_id TEXT NOT NULL, key_id TEXT NOT NULL, position BIGINT NOT NULL,
  PRIMARY KEY (query_id, result_id));
CREATE TABLE IF NOT EXISTS ${p}usage (
  org_id TEXT NOT NULL, period TEXT NOT NULL, queries INTEGER NOT NULL, tokens BIGINT NOT NULL,
  amount_micros BIGINT NOT NULL,
  PRIMARY KEY (org_id, period));
ALTER TABLE ${p}usage ADD COLUMN IF NOT EXISTS catalogue_answers INTEGER NOT NULL DEFAULT 0;
CREATE TABLE IF NOT EXISTS ${p}collection_usage (
  org_id TEXT NOT NULL, day TEXT NOT NULL, collection TEXT NOT NULL, queries INTEGER NOT NULL,
  unlocked_results INTEGER NOT NULL,
  tokens BIGINT NOT NULL, charged_micros BIGINT NOT NULL, unlocked_micros BIGINT NOT NULL,
  PRIMARY KEY (org_id, day, collection));
CREATE TABLE IF NOT EXISTS ${p}price_overrides (
  org_id TEXT NOT NULL, collection TEXT NOT NULL, price_per_1000_micros BIGINT, position BIGINT NOT NULL,
  PRIMARY KEY (org_id, collection));
-- the last event an API key caused (search, unlock, tool call, catalogue answer, journal request)
CREATE TABLE IF NOT EXISTS ${p}key_last_used (
  key_id TEXT PRIMARY KEY, org_id TEXT NOT NULL, used_at TIMESTAMPTZ NOT NULL, position BIGINT NOT NULL);
CREATE TABLE IF NOT EXISTS ${p}members (
  member_id TEXT PRIMARY KEY, org_id TEXT NOT NULL, email TEXT NOT NULL, role TEXT NOT NULL,
  password_hash TEXT NOT NULL,
  invite_id TEXT NOT NULL, joined_at TIMESTAMPTZ NOT NULL);
CREATE INDEX IF NOT EXISTS ${p}members_org ON ${p}members (org_id);
-- a removed member stays, for the history; an address belongs to one member at a time (the first release had email
-- UNIQUE)
ALTER TABLE ${p}members ADD COLUMN IF NOT EXISTS removed_at TIMESTAMPTZ;
ALTER TABLE ${p}members DROP CONSTRAINT IF EXISTS ${p}members_email_key;
CREATE UNIQUE INDEX IF NOT EXISTS ${p}members_current_email ON ${p}members (email) WHERE removed_at IS NULL;
CREATE TABLE IF NOT EXISTS ${p}invites (
  invite_id TEXT PRIMARY KEY, org_id TEXT NOT NULL, email TEXT NOT NULL, role TEXT NOT NULL,
  token_hash TEXT NOT NULL UNIQUE,
  expires_at TIMESTAMPTZ NOT NULL, invited_at TIMESTAMPTZ NOT NULL, accepted_by TEXT, accepted_at TIMESTAMPTZ);
ALTER TABLE ${p}invites ADD COLUMN IF NOT EXISTS cancelled_at TIMESTAMPTZ;
CREATE TABLE IF NOT EXISTS ${p}sessions (
  session_id TEXT PRIMARY KEY, org_id TEXT, member_id TEXT, started_at TIMESTAMPTZ NOT NULL,
  expires_at TIMESTAMPTZ NOT NULL,
  ended_at TIMESTAMPTZ, end_reason TEXT);
CREATE INDEX IF NOT EXISTS ${p}sessions_member ON ${p}sessions (member_id);
-- one row per ingestion (GET /admin/v1/ingestions/{id} after it ended, a collection's latest, whether one completed)
CREATE TABLE IF NOT EXISTS ${p}ingestions (
  ingestion_id TEXT PRIMARY KEY, collection TEXT NOT NULL, mode TEXT NOT NULL, files JSONB NOT NULL,
  state TEXT NOT NULL,
  started_at TIMESTAMPTZ NOT NULL, finished_at TIMESTAMPTZ, error TEXT, counts JSONB);
CREATE INDEX IF NOT EXISTS ${p}ingestions_collection ON ${p}ingestions (collection, started_at);
-- webhooks: an organization's endpoints, each delivery of an event to one of them, and every attempt of it
CREATE TABLE IF NOT EXISTS ${p}webhook_endpoints (
  endpoint_id TEXT PRIMARY KEY, org_id TEXT NOT NULL, url TEXT NOT NULL, events JSONB NOT NULL, description TEXT,
  state TEXT NOT NULL,
  secret_version INTEGER NOT NULL, previous_secret_expires_at TIMESTAMPTZ, created_at TIMESTAMPTZ NOT NULL,
  disabled_at TIMESTAMPTZ,
  disabled_reason TEXT, failing_since TIMESTAMPTZ, last_success_at TIMESTAMPTZ);
CREATE INDEX IF NOT EXISTS ${p}webhook_endpoints_org ON ${p}webhook_endpoints (org_id);
CREATE TABLE IF NOT EXISTS ${p}webhook_deliveries (
  message_id TEXT NOT NULL, endpoint_id TEXT NOT NULL, org_id TEXT NOT NULL, event_type TEXT NOT NULL,
  created_at TIMESTAMPTZ NOT NULL,
  state TEXT NOT NULL, attempts INTEGER NOT NULL, last_status INTEGER, last_attempt_at TIMESTAMPTZ,
  ended_at TIMESTAMPTZ,
  PRIMARY KEY (message_id, endpoint_id));
CREATE INDEX IF NOT EXISTS ${p}webhook_deliveries_endpoint ON ${p}webhook_deliveries (endpoint_id, created_at);
CREATE TABLE IF NOT EXISTS ${p}webhook_attempts (
  position BIGINT PRIMARY KEY, message_id TEXT NOT NULL, endpoint_id TEXT NOT NULL, org_id TEXT NOT NULL,
  attempt INTEGER NOT NULL,
  time TIMESTAMPTZ NOT NULL, status INTEGER, latency_ms INTEGER NOT NULL, excerpt TEXT NOT NULL, error TEXT);
CREATE INDEX IF NOT EXISTS ${p}webhook_attempts_delivery ON ${p}webhook_attempts (message_id, endpoint_id, attempt);
-- what an organization wants to be told: below balance_low_micros, balance.low (null: never)
CREATE TABLE IF NOT EXISTS ${p}notification_settings (org_id TEXT PRIMARY KEY, balance_low_micros BIGINT);
-- alerts on a saved search: each with the works it has seen, and each run with the works it delivered
CREATE TABLE IF NOT EXISTS ${p}alerts (
  alert_id TEXT PRIMARY KEY, org_id TEXT NOT NULL, key_id TEXT NOT NULL, definition JSONB NOT NULL, state TEXT NOT NULL,
  created_at TIMESTAMPTZ NOT NULL, seen JSONB NOT NULL, runs INTEGER NOT NULL, last_run_at TIMESTAMPTZ);
CREATE INDEX IF NOT EXISTS ${p}alerts_org ON ${p}alerts (org_id, created_at);
-- why the service paused an alert (its collection retired); null when it runs or its organization paused it
ALTER TABLE ${p}alerts ADD COLUMN IF NOT EXISTS paused_reason JSONB;
CREATE TABLE IF NOT EXISTS ${p}alert_runs (
  query_id TEXT PRIMARY KEY, alert_id TEXT NOT NULL, org_id TEXT NOT NULL, created_at TIMESTAMPTZ NOT NULL,
  trigger TEXT NOT NULL,
  result_ids JSONB NOT NULL, works JSONB NOT NULL, cost_micros BIGINT NOT NULL, state TEXT NOT NULL,
  ended_at TIMESTAMPTZ,
  amount_micros BIGINT NOT NULL);
CREATE INDEX IF NOT EXISTS ${p}alert_runs_alert ON ${p}alert_runs (alert_id, created_at);
`;
}

/**
 * Scratch tables for a rebuild: the live tables' columns, unlogged and without keys or indexes, so the bulk load writes
 * no WAL and maintains no index (the digests sort by primary key themselves).
 */
export function scratchProjectionDdl(): string {
  return PROJECTION_TABLES.map(
    (t) => `DROP TABLE IF EXISTS replay_${t}; CREATE UNLOGGED TABLE replay_${t} (LIKE proj_${t});`,
  ).join("\n");
}

export interface OrganizationRow {
  org_id: string;
  name: string;
  billing_mode: string;
  limits: Record<string, number>;
  hide_balance: boolean;
  suspended: boolean;
  version: number;
  billing_enabled: boolean;
  trial_queries: number;
  trial_used: number;
}
export interface BalanceRow {
  org_id: string;
  balance_micros: string;
  credited_micros: string;
  charged_micros: string;
  refunded_micros: string;
}
export interface LedgerRow {
  position: number;
  org_id: string;
  time: string;
  type: "credit" | "charge" | "unlock" | "refund";
  amount_micros: string;
  balance_after_micros: string;
  key_id: string | null;
  query_id: string | null;
  reference: string | null;
}
export interface ApiKeyRow {
  key_id: string;
  org_id: string;
  mode: string;
  key_hash: string;
  key_prefix: string;
  collections: string[] | null;
  spending_cap_micros: string | null;
  spent_micros: string;
  revoked: boolean;
  version: number;
  /** null: created without a name (or before keys had names) */
  name: string | null;
}
interface UnlockRow {
  query_id: string;
  result_id: string;
  org_id: string;
  key_id: string;
  position: number;
}
export interface UsageRow {
  org_id: string;
  period: string;
  queries: number;
  tokens: string;
  amount_micros: string;
  /** catalogue questions answered (free; not queries) */
  catalogue_answers: number;
}

/** Per organization, UTC day and requested collection: what searches and unlocks delivered and cost. */
export interface CollectionUsageRow {
  org_id: string;
  /** YYYY-MM-DD (UTC) */
  day: string;
  collection: string;
  queries: number;
  unlocked_results: number;
  tokens: string;
  charged_micros: string;
  unlocked_micros: string;
}
/** An organization's price for one physical collection; null once the override was removed. */
interface PriceOverrideRow {
  org_id: string;
  collection: string;
  price_per_1000_micros: string | null;
  position: number;
}

interface KeyLastUsedRow {
  key_id: string;
  org_id: string;
  used_at: string;
  position: number;
}
export interface MemberRow {
  member_id: string;
  org_id: string;
  email: string;
  role: string;
  /** scrypt parameters, salt and hash (src/usecases/auth/passwords.ts) */
  password_hash: string;
  invite_id: string;
  joined_at: string;
  /** set when an owner or the operator removed the member: their sessions stop, the address is free again */
  removed_at: string | null;
}
export interface InviteRow {
  invite_id: string;
  org_id: string;
  email: string;
  role: string;
  /** SHA-256 of the one-use token in the invite link */
  token_hash: string;
  expires_at: string;
  invited_at: string;
  accepted_by: string | null;
  accepted_at: string | null;
  /** set when the invite was withdrawn before use: its link reads as unknown */
  cancelled_at: string | null;
}
export interface SessionRow {
  /** SHA-256 of the cookie's token */
  session_id: string;
  /** null for an operator session */
  org_id: string | null;
  member_id: string | null;
  started_at: string;
  expires_at: string;
  ended_at: string | null;
  end_reason: string | null;
}

/** One ingestion: running until its completed or failed event, then its counts (IngestionCounts) and end. */
export interface IngestionRow {
  ingestion_id: string;
  collection: string;
  mode: string;
  files: string[];
  state: "running" | "completed" | "failed";
  started_at: string;
  finished_at: string | null;
  error: string | null;
  counts: IngestionCounts | null;
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

/**
 * An alert on a saved search; `seen`: the identities of the works it counts as seen
 * (src/usecases/alerts/alertRules.ts).
 */
export interface AlertRow {
  alert_id: string;
  org_id: string;
  key_id: string;
  definition: AlertDefinitionData;
  state: "active" | "paused" | "deleted";
  created_at: string;
  seen: string[];
  runs: number;
  last_run_at: string | null;
  paused_reason: AlertPausedReason | null;
}
/**
 * One run of an alert: its cached query, the rows and works it delivers, and how it ended (amount: what it charged).
 */
export interface AlertRunRow {
  query_id: string;
  alert_id: string;
  org_id: string;
  created_at: string;
  trigger: string;
  result_ids: string[];
  works: string[];
  cost_micros: string;
  state: "pending" | AlertRunOutcome;
  ended_at: string | null;
  amount_micros: string;
}

export interface RowOf {
  organizations: OrganizationRow;
  balances: BalanceRow;
  ledger: LedgerRow;
  api_keys: ApiKeyRow;
  unlocks: UnlockRow;
  usage: UsageRow;
  collection_usage: CollectionUsageRow;
  price_overrides: PriceOverrideRow;
  key_last_used: KeyLastUsedRow;
  members: MemberRow;
  invites: InviteRow;
  sessions: SessionRow;
  ingestions: IngestionRow;
  webhook_endpoints: WebhookEndpointRow;
  webhook_deliveries: WebhookDeliveryRow;
  webhook_attempts: WebhookAttemptRow;
  notification_settings: NotificationSettingsRow;
  alerts: AlertRow;
  alert_runs: AlertRunRow;
}
