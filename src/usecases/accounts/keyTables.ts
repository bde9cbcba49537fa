// The API keys' table, written by their projection (keyProjection.ts).
import type { TableSpec } from "../../../projections/tables.js";

declare module "../../../projections/tables.js" {
  interface RowOf {
    api_keys: ApiKeyRow;
  }
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

export const API_KEYS: TableSpec<"api_keys"> = {
  name: "api_keys",
  columns: {
    key_id: "text",
    org_id: "text",
    mode: "text",
    key_hash: "text",
    key_prefix: "text",
    collections: "jsonb",
    spending_cap_micros: "bigint",
    spent_micros: "bigint",
    revoked: "boolean",
    version: "integer",
    name: "text",
  },
  primaryKey: ["key_id"],
  ddl: (p) => `CREATE TABLE IF NOT EXISTS ${p}api_keys (
  key_id TEXT PRIMARY KEY, org_id TEXT NOT NULL, mode TEXT NOT NULL, key_hash TEXT NOT NULL UNIQUE,
  key_prefix TEXT NOT NULL,
  collections JSONB, spending_cap_micros BIGINT, spent_micros BIGINT NOT NULL, revoked BOOLEAN NOT NULL,
  version INTEGER NOT NULL);
-- keys created before names existed have none (null)
ALTER TABLE ${p}api_keys ADD COLUMN IF NOT EXISTS name TEXT;
`,
};
