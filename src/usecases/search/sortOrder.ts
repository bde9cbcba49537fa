// The orders a search may ask for: relevance (the ranked list as it is) or a key of the relevant candidates, with
// relevance breaking ties. Pure.
import type { ChunkMetadata } from "../../retrieval/port.js";

export const SORT_ORDERS = ["relevance", "publication_date", "publication_date_asc", "cited_by_count"] as const;
export type SortOrder = (typeof SORT_ORDERS)[number];

/**
 * The relevance threshold of a sorted request that sends no min_relevance: candidates below it are not ordered.
 * Relevance estimates the probability that a row's document is relevant (src/retrieval/rerank.ts), so 0.2 keeps rows
 * with at least about a 1 in 5 chance: without a floor, a date order would put the newest loosely related chunk first.
 */
export const SORTED_DEFAULT_MIN_RELEVANCE = 0.2;

/**
 * The same for a `like` request. A work's likeness reads lower on the relevance scale than a query's match (a whole
 * work compared with passages: the emicizumab trials' closest siblings read 0.14 to 0.28 where a query naming them
 * reads 0.66 to 0.82), so 0.2 left "newest works like this one" with one row of 500; it takes the threshold
 * recommended for paying clients (RECOMMENDED_MIN_RELEVANCE), which holds back rows almost never relevant.
 */
export const SORTED_LIKE_DEFAULT_MIN_RELEVANCE = 0.02;

interface SortableRow {
  metadata: Pick<ChunkMetadata, "publication_date"> & { cited_by_count?: unknown };
  relevance: number | null;
}

const dateOf = (row: SortableRow): string | null =>
  typeof row.metadata.publication_date === "string" && row.metadata.publication_date !== ""
    ? row.metadata.publication_date
    : null;
const citationsOf = (row: SortableRow): number | null =>
  typeof row.metadata.cited_by_count === "number" && Number.isFinite(row.metadata.cited_by_count)
    ? row.metadata.cited_by_count
    : null;

/** a before b (negative) by the key; rows without the key come last whatever the direction */
function byKey<K extends string | number>(a: K | null, b: K | null, descending: boolean): number {
  if (a === b) return 0;
  if (a === null) return 1;
  if (b === null) return -1;
  const order = a < b ? -1 : 1;
  return descending ? -order : order;
}

/**
 * The candidates in the order asked for: by the key, then by relevance (higher first), then as ranked (the sort is
 * stable). ISO dates compare as text ("2020" before "2020-05-01" within a year counts as the earlier).
 */
export function sortRows<T extends SortableRow>(rows: readonly T[], order: SortOrder): T[] {
  if (order === "relevance") return [...rows];
  const key = (a: T, b: T): number => {
    switch (order) {
      case "publication_date":
        return byKey(dateOf(a), dateOf(b), true);
      case "publication_date_asc":
        return byKey(dateOf(a), dateOf(b), false);
      case "cited_by_count":
        return byKey(citationsOf(a), citationsOf(b), true);
    }
  };
  return [...rows].sort((a, b) => key(a, b) || (b.relevance ?? -1) - (a.relevance ?? -1));
}
