// Which of a search's ranked rows are delivered: at most one row per document when asked (the rule assisted search
// delivers by, workflows/deliverableRows.ts), and none below the caller's relevance threshold. Pure.
import type { ChunkMetadata } from "./port.js";
import { meetsMinRelevance } from "../domain/relevance.js";

/** What a row says about the work it belongs to. */
export interface DocumentRow {
  /** the physical collection holding the chunk */
  physical: string;
  metadata: Pick<ChunkMetadata, "doc_id" | "doi">;
}

/**
 * A work is one document wherever it is held: by its DOI when it has one (two collections may hold the same article),
 * else by its collection's id.
 */
export function documentOf(row: DocumentRow): string {
  const doi = row.metadata.doi;
  return typeof doi === "string" && doi !== ""
    ? `doi\u0000${doi.toLowerCase()}`
    : `${row.physical}\u0000${row.metadata.doc_id}`;
}

/** The first item of each document in the order given (best first, so each document's best chunk), at most `limit`. */
export function firstPerDocument<T>(items: readonly T[], rowOf: (item: T) => DocumentRow, limit: number): T[] {
  const seen = new Set<string>();
  const out: T[] = [];
  for (const item of items) {
    if (out.length >= limit) break;
    const doc = documentOf(rowOf(item));
    if (seen.has(doc)) continue;
    seen.add(doc);
    out.push(item);
  }
  return out;
}

/**
 * The caller's choice of rows (min_relevance, one_per_document); the defaults deliver every row, as before either
 * existed.
 */
export interface RowSelection {
  /** 0 to 1: rows whose relevance is below it are neither returned nor charged */
  minRelevance: number;
  /** at most one row per document, the list filled from the next documents */
  onePerDocument: boolean;
}

export const EVERY_ROW: RowSelection = { minRelevance: 0, onePerDocument: false };

/**
 * The rows delivered from `ranked` (best first): the first `limit`, one per document when asked; then those whose
 * relevance is below the threshold are held back and counted. A row without a score passes no threshold above 0.
 */
export function selectRows<T extends DocumentRow & { relevance: number | null }>(
  ranked: readonly T[],
  selection: RowSelection,
  limit: number,
): { rows: T[]; belowMinRelevance: number } {
  const listed = selection.onePerDocument ? firstPerDocument(ranked, (row) => row, limit) : ranked.slice(0, limit);
  if (selection.minRelevance <= 0) return { rows: listed, belowMinRelevance: 0 };
  const rows = listed.filter((row) => meetsMinRelevance(row.relevance, selection.minRelevance));
  return { rows, belowMinRelevance: listed.length - rows.length };
}
