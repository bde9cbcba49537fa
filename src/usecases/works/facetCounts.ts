// Facets of a set of works (POST /api/v1/works/facets): which works are counted and how their buckets are made and
// ordered. Pure: the use case (workFacets.ts) hands in the documents an engine listed or a ranked list's rows, so both
// engines answer the same counts by construction.
import type { Integrity } from "../../domain/integrity.js";
import type { ChunkMetadata } from "../../retrieval/port.js";
import { addWork, seenWork } from "../../retrieval/rowSelection.js";
import { meetsMinRelevance } from "../../domain/relevance.js";
import { authorBuckets, ENGINE_FACETS, texts, workAuthors, workFacetValues } from "../../retrieval/workFacetValues.js";

/** The facets there are, in the order they are documented: the engines' own, then integrity (counted here). */
export const FACETS = [...ENGINE_FACETS, "integrity"] as const;
export type FacetName = (typeof FACETS)[number];

/** Buckets per facet when `limit` is not sent, and the most a request may ask for. */
export const DEFAULT_FACET_LIMIT = 10;
export const MAX_FACET_LIMIT = 100;

/**
 * With a query: the works counted are the first this many works of the ranked list (each at its best chunk) whose
 * best chunk's relevance is at least the threshold, among the best FACET_QUERY_DEPTH_CHUNKS chunks.
 */
export const FACET_QUERY_MAX_WORKS = 200;
/** chunks of the ranked list read for a query's works: the deepest list a cursor pages through (MAX_LIST_DEPTH) */
export const FACET_QUERY_DEPTH_CHUNKS = 500;

/** The document-level metadata fields the facets read (besides doc_id). */
export const FACET_FIELDS = [
  "doi",
  "pmid",
  "publication_date",
  "journal",
  "issn",
  "keywords",
  "authors",
  "authorships",
  "article_type",
  "open_access",
] as const;

/** One document as counted: the physical collection holding it and its metadata. */
export interface FacetDocument {
  physical: string;
  metadata: Pick<ChunkMetadata, "doc_id"> & Partial<ChunkMetadata>;
}

export interface FacetBucket {
  value: string;
  count: number;
  /** an identifier of the value where the works carry one (a journal's ISSN, an author's OpenAlex id or ORCID) */
  id?: string;
}

export interface FacetCounts {
  /** the works counted */
  total: number;
  facets: Partial<Record<FacetName, FacetBucket[]>>;
}

/** A ranked list's row as the query rule reads it. */
interface RankedFacetRow extends FacetDocument {
  relevance: number | null;
}

/**
 * The works of a ranked list that a query's facets count: each work once, at its best row (the first, the list being
 * best first; a work held by two collections, the same DOI, is one work), kept when that row's relevance is at least
 * `minRelevance`, the first `maxWorks` of them. The list is read to its end: a work below the threshold is left out,
 * and the works after it still count (the list's order is by chunk, and a work's best chunk decides).
 */
export function worksOfRankedList<T extends RankedFacetRow>(
  rows: readonly T[],
  minRelevance: number,
  maxWorks: number = FACET_QUERY_MAX_WORKS,
): T[] {
  const seen = new Set<string>();
  const works: T[] = [];
  for (const row of rows) {
    if (works.length >= maxWorks) break;
    if (seenWork(seen, row)) continue;
    addWork(seen, row);
    if (meetsMinRelevance(row.relevance, minRelevance)) works.push(row);
  }
  return works;
}

/**
 * Whether the works a ranked list cut at each collection's `maxWorks`-th document (SearchRequest.keep) counts are the
 * whole list's: when they reach `maxWorks`, or when each collection's last row is under the threshold (its rows after
 * the cut rank lower still, so none would count). Otherwise (two documents of one work, a DOI, among the first, or a
 * list that ended above the threshold) the caller reads the list to its full depth.
 */
export function cutListCounts<T extends RankedFacetRow>(
  rows: readonly T[],
  counted: number,
  minRelevance: number,
  maxWorks: number = FACET_QUERY_MAX_WORKS,
): boolean {
  if (counted >= maxWorks) return true;
  const lastOf = new Map<string, T>();
  for (const row of rows) lastOf.set(row.physical, row);
  return [...lastOf.values()].every((row) => !meetsMinRelevance(row.relevance, minRelevance));
}

/** The same work held by several collections (the same DOI) counted once, as the first document naming it. */
export function distinctWorks<T extends FacetDocument>(documents: readonly T[]): T[] {
  const seen = new Set<string>();
  return documents.filter((d) => {
    if (seenWork(seen, d)) return false;
    addWork(seen, d);
    return true;
  });
}

/**
 * The values one work has for a facet, each once (a work counts once in a bucket): workFacetValues, as engines index
 * them.
 */
function valuesOf(facet: FacetName, d: FacetDocument, integrity: Integrity | undefined): string[] {
  switch (facet) {
    case "integrity":
      return [integrity?.status ?? "none"];
    default:
      return workFacetValues(d.metadata)[facet];
  }
}

const codeUnitOrder = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);

/**
 * Count desc, then value asc, then id asc (none first), in code-unit order (the same on every machine, whatever its
 * locale): two people of one name are two buckets, ordered by their ids.
 */
function compareBuckets(a: FacetBucket, b: FacetBucket): number {
  return b.count - a.count || codeUnitOrder(a.value, b.value) || codeUnitOrder(a.id ?? "", b.id ?? "");
}

/**
 * The integrity facet's buckets over `total` works counted, from the statuses of the works a notice may name (the
 * rest are none): `limit` buckets ordered as every facet's. Null when those works are more than `total` (they were not
 * all among the works counted), which the caller answers by listing every work.
 */
export function integrityBuckets(named: readonly string[], total: number, limit: number): FacetBucket[] | null {
  const counts = new Map<string, number>();
  for (const status of named) if (status !== "none") counts.set(status, (counts.get(status) ?? 0) + 1);
  const flagged = [...counts.values()].reduce((sum, n) => sum + n, 0);
  if (flagged > total) return null;
  if (total > flagged) counts.set("none", total - flagged);
  return [...counts]
    .map(([value, count]): FacetBucket => ({ value, count }))
    .sort(compareBuckets)
    .slice(0, limit);
}

/**
 * The buckets of each facet asked for over these works (already one per work): a bucket per value, counting the
 * works having it, the `limit` largest by count, ties by value; a work without the field is in no bucket of it.
 * `integrity` gives a work's status (a work it says nothing of is `none`).
 * A journal's `id` is the smallest ISSN its counted works carry; authors are counted by person (authorBuckets).
 */
export function countFacets(
  works: readonly FacetDocument[],
  facets: readonly FacetName[],
  limit: number,
  integrity: (work: FacetDocument) => Integrity | undefined = () => undefined,
): FacetCounts {
  const out: FacetCounts = { total: works.length, facets: {} };
  for (const facet of facets) {
    if (facet === "author") {
      out.facets.author = authorBuckets(works.map((w) => ({ entries: workAuthors(w.metadata) })))
        .sort(compareBuckets)
        .slice(0, limit);
      continue;
    }
    const counts = new Map<string, number>();
    const ids = new Map<string, string>();
    for (const work of works) {
      for (const value of valuesOf(facet, work, facet === "integrity" ? integrity(work) : undefined)) {
        counts.set(value, (counts.get(value) ?? 0) + 1);
        if (facet === "journal")
          for (const issn of texts(work.metadata.issn)) {
            const known = ids.get(value);
            if (known === undefined || issn < known) ids.set(value, issn);
          }
      }
    }
    out.facets[facet] = [...counts]
      .map(([value, count]): FacetBucket => {
        const id = ids.get(value);
        return id === undefined ? { value, count } : { value, count, id };
      })
      .sort(compareBuckets)
      .slice(0, limit);
  }
  return out;
}
