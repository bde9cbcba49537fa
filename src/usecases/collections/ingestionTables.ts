// The ingestions' table, written by their projection (ingestionProjection.ts).
import type { TableSpec } from "../../../projections/tables.js";
import type { IngestionCounts } from "../../domain/events.js";

declare module "../../../projections/tables.js" {
  interface RowOf {
    ingestions: IngestionRow;
  }
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

export const INGESTIONS: TableSpec<"ingestions"> = {
  name: "ingestions",
  columns: {
    ingestion_id: "text",
    collection: "text",
    mode: "text",
    files: "jsonb",
    state: "text",
    started_at: "timestamptz",
    finished_at: "timestamptz",
    error: "text",
    counts: "jsonb",
  },
  primaryKey: ["ingestion_id"],
  ddl: (p) =>
    // the comment is part of the DDL, written as it always was (its length folds it here)
    "-- one row per ingestion (GET /admin/v1/ingestions/{id} after it ended, a collection's latest, " +
    `whether one completed)
CREATE TABLE IF NOT EXISTS ${p}ingestions (
  ingestion_id TEXT PRIMARY KEY, collection TEXT NOT NULL, mode TEXT NOT NULL, files JSONB NOT NULL,
  state TEXT NOT NULL,
  started_at TIMESTAMPTZ NOT NULL, finished_at TIMESTAMPTZ, error TEXT, counts JSONB);
CREATE INDEX IF NOT EXISTS ${p}ingestions_collection ON ${p}ingestions (collection, started_at);
`,
};
