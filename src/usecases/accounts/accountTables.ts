// The accounts' tables, written by their projection (accountProjection.ts): organizations, balances and the ledger,
// usage by period and by collection and day, price overrides, and the keys' last use.
import type { TableSpec } from "../../../projections/tables.js";

declare module "../../../projections/tables.js" {
  interface RowOf {
    organizations: OrganizationRow;
    balances: BalanceRow;
    ledger: LedgerRow;
    usage: UsageRow;
    collection_usage: CollectionUsageRow;
    price_overrides: PriceOverrideRow;
    key_last_used: KeyLastUsedRow;
  }
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
interface CollectionUsageRow {
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

export const ORGANIZATIONS: TableSpec<"organizations"> = {
  name: "organizations",
  columns: {
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
  },
  primaryKey: ["org_id"],
  ddl: (p) => `CREATE TABLE IF NOT EXISTS ${p}organizations (
  org_id TEXT PRIMARY KEY, name TEXT NOT NULL, billing_mode TEXT NOT NULL, limits JSONB NOT NULL,
  hide_balance BOOLEAN NOT NULL, suspended BOOLEAN NOT NULL, version INTEGER NOT NULL);
-- columns added after the first release; ADD COLUMN keeps older live tables usable
ALTER TABLE ${p}organizations ADD COLUMN IF NOT EXISTS billing_enabled BOOLEAN NOT NULL DEFAULT true;
ALTER TABLE ${p}organizations ADD COLUMN IF NOT EXISTS trial_queries INTEGER NOT NULL DEFAULT 0;
ALTER TABLE ${p}organizations ADD COLUMN IF NOT EXISTS trial_used INTEGER NOT NULL DEFAULT 0;
`,
};

export const BALANCES: TableSpec<"balances"> = {
  name: "balances",
  columns: {
    org_id: "text",
    balance_micros: "bigint",
    credited_micros: "bigint",
    charged_micros: "bigint",
    refunded_micros: "bigint",
  },
  primaryKey: ["org_id"],
  ddl: (p) => `CREATE TABLE IF NOT EXISTS ${p}balances (
  org_id TEXT PRIMARY KEY, balance_micros BIGINT NOT NULL, credited_micros BIGINT NOT NULL,
  charged_micros BIGINT NOT NULL, refunded_micros BIGINT NOT NULL);
`,
};

export const LEDGER: TableSpec<"ledger"> = {
  name: "ledger",
  columns: {
    position: "bigint",
    org_id: "text",
    time: "timestamptz",
    type: "text",
    amount_micros: "bigint",
    balance_after_micros: "bigint",
    key_id: "text",
    query_id: "text",
    reference: "text",
  },
  primaryKey: ["position"],
  ddl: (p) => `CREATE TABLE IF NOT EXISTS ${p}ledger (
  position BIGINT PRIMARY KEY, org_id TEXT NOT NULL, time TIMESTAMPTZ NOT NULL, type TEXT NOT NULL,
  amount_micros BIGINT NOT NULL, balance_after_micros BIGINT NOT NULL, key_id TEXT, query_id TEXT, reference TEXT);
CREATE INDEX IF NOT EXISTS ${p}ledger_org ON ${p}ledger (org_id, position);
`,
};

export const USAGE: TableSpec<"usage"> = {
  name: "usage",
  columns: {
    org_id: "text",
    period: "text",
    queries: "integer",
    tokens: "bigint",
    amount_micros: "bigint",
    catalogue_answers: "integer",
  },
  primaryKey: ["org_id", "period"],
  ddl: (p) => `CREATE TABLE IF NOT EXISTS ${p}usage (
  org_id TEXT NOT NULL, period TEXT NOT NULL, queries INTEGER NOT NULL, tokens BIGINT NOT NULL,
  amount_micros BIGINT NOT NULL,
  PRIMARY KEY (org_id, period));
ALTER TABLE ${p}usage ADD COLUMN IF NOT EXISTS catalogue_answers INTEGER NOT NULL DEFAULT 0;
`,
};

export const COLLECTION_USAGE: TableSpec<"collection_usage"> = {
  name: "collection_usage",
  columns: {
    org_id: "text",
    day: "text",
    collection: "text",
    queries: "integer",
    unlocked_results: "integer",
    tokens: "bigint",
    charged_micros: "bigint",
    unlocked_micros: "bigint",
  },
  primaryKey: ["org_id", "day", "collection"],
  ddl: (p) => `CREATE TABLE IF NOT EXISTS ${p}collection_usage (
  org_id TEXT NOT NULL, day TEXT NOT NULL, collection TEXT NOT NULL, queries INTEGER NOT NULL,
  unlocked_results INTEGER NOT NULL,
  tokens BIGINT NOT NULL, charged_micros BIGINT NOT NULL, unlocked_micros BIGINT NOT NULL,
  PRIMARY KEY (org_id, day, collection));
`,
};

export const PRICE_OVERRIDES: TableSpec<"price_overrides"> = {
  name: "price_overrides",
  columns: { org_id: "text", collection: "text", price_per_1000_micros: "bigint", position: "bigint" },
  primaryKey: ["org_id", "collection"],
  ddl: (p) => `CREATE TABLE IF NOT EXISTS ${p}price_overrides (
  org_id TEXT NOT NULL, collection TEXT NOT NULL, price_per_1000_micros BIGINT, position BIGINT NOT NULL,
  PRIMARY KEY (org_id, collection));
`,
};

export const KEY_LAST_USED: TableSpec<"key_last_used"> = {
  name: "key_last_used",
  columns: { key_id: "text", org_id: "text", used_at: "timestamptz", position: "bigint" },
  primaryKey: ["key_id"],
  ddl: (p) => `-- the last event an API key caused (search, unlock, tool call, catalogue answer, journal request)
CREATE TABLE IF NOT EXISTS ${p}key_last_used (
  key_id TEXT PRIMARY KEY, org_id TEXT NOT NULL, used_at TIMESTAMPTZ NOT NULL, position BIGINT NOT NULL);
`,
};
