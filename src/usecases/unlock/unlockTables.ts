// The unlocked rows' table, written by their projection (unlockProjection.ts).
import type { TableSpec } from "../../../projections/tables.js";

declare module "../../../projections/tables.js" {
  interface RowOf {
    unlocks: UnlockRow;
  }
}

interface UnlockRow {
  query_id: string;
  result_id: string;
  org_id: string;
  key_id: string;
  position: number;
}

export const UNLOCKS: TableSpec<"unlocks"> = {
  name: "unlocks",
  columns: { query_id: "text", result_id: "text", org_id: "text", key_id: "text", position: "bigint" },
  primaryKey: ["query_id", "result_id"],
  ddl: (p) => `CREATE TABLE IF NOT EXISTS ${p}unlocks (
  query_id TEXT NOT NULL, result_id TEXT NOT NULL, org_id TEXT NOT NULL, key_id TEXT NOT NULL, position BIGINT NOT NULL,
  PRIMARY KEY (query_id, result_id));
`,
};
