// Cursors: a search or preview names the page after it by an opaque token (src/domain/cursors.ts) bound to its query
// record (the caller's organization, the same request), and that next page excludes every row delivered on earlier
// pages. Pure.
import { createHash } from "node:crypto";
import { Rejection } from "../../domain/rejection.js";
import { unknownSearchCursor } from "../../domain/cursors.js";
import { documentKeysOf, type DocumentRow } from "../../retrieval/rowSelection.js";

/**
 * How deep a list goes: a cursor continues a ranked list while fewer than this many of its chunks were read, and a
 * sorted request orders the relevant chunks among this many best by relevance. Every page searches this deep at most.
 */
export const MAX_LIST_DEPTH = 500;

/** What a query record keeps to continue its list (payload.page). */
export interface PageState {
  /** the request the list belongs to: a cursor is honoured only for the same one (requestFingerprint) */
  fingerprint: string;
  /** 1 for a request without a cursor */
  number: number;
  /** ids of the rows delivered on the pages before this one */
  earlierIds: string[];
  /**
   * the works (each by every key and its title and year, documentKeysOf) delivered on the pages before this one, kept
   * when one per document
   */
  earlierDocuments?: string[];
  /** whether this page's response offered a cursor */
  continues: boolean;
}

/** What a page leaves out: everything delivered before it. */
export interface PageExclusion {
  ids: ReadonlySet<string>;
  documents: ReadonlySet<string>;
  /** the 1-based number of the page being made */
  number: number;
}

/**
 * The parts of a request a cursor is bound to: what decides the list, not the page's size, price cap or presentation.
 */
export interface ListIdentity {
  collections: readonly string[];
  query?: string;
  like?: string;
  filters: unknown;
  constraints?: unknown;
  minRelevance: number;
  onePerDocument: boolean;
  sort: string;
}

/** A stable digest of the list a request asks for: key order and collection name case do not matter. */
export function requestFingerprint(identity: ListIdentity): string {
  const canonical = (value: unknown): unknown => {
    if (Array.isArray(value)) return value.map(canonical);
    if (value && typeof value === "object")
      return Object.fromEntries(
        Object.keys(value)
          .sort()
          .map((k) => [k, canonical((value as Record<string, unknown>)[k])]),
      );
    return value ?? null;
  };
  const body = canonical({ ...identity, collections: identity.collections.map((c) => c.toLowerCase()) });
  return createHash("sha256").update(JSON.stringify(body)).digest("base64url").slice(0, 32);
}

/**
 * The query id of the page a cursor asks for, derived from the page before it and the key asking (a page belongs to
 * the key that made it, as any query record does). A key continues a cursor once: the same cursor sent again, with
 * the same or another `limit` or `max_cost`, answers the page it made, charged once (the charge is idempotent by query
 * id), so no row of one list is sold to the key twice; the next page starts from that page's own cursor.
 */
export function nextPageQueryId(previousQueryId: string, keyId: string): string {
  const h = createHash("sha256").update(`${previousQueryId}\u0000${keyId}`).digest("hex");
  // UUID layout, version 8 (custom), RFC 4122 variant
  return (
    `${h.slice(0, 8)}-${h.slice(8, 12)}-8${h.slice(13, 16)}-${((parseInt(h[16]!, 16) & 0x3) | 0x8).toString(16)}` +
    `${h.slice(17, 20)}-${h.slice(20, 32)}`
  );
}

/** What the previous page's record must satisfy for its cursor to be honoured here. */
interface PreviousPage {
  orgId: string;
  kind: string;
  page?: PageState;
  fresh: boolean;
}

/**
 * The checks of a cursor against the page it continues: the caller's organization (another's is as unknown), the
 * kind of call (a preview's cursor continues previews), the same request, a list that goes on. 4xx naming the fix.
 */
export function assertContinues(
  previous: PreviousPage | undefined,
  orgId: string,
  kind: "search" | "preview",
  fingerprint: string,
): PageState {
  if (!previous || previous.orgId !== orgId || !previous.page) throw unknownSearchCursor();
  if (!previous.fresh)
    throw new Rejection(
      "CACHED_RESULT_EXPIRED",
      "cursor: the list it continues is older than 7 days; run the search again without cursor",
    );
  if (previous.kind !== kind) {
    throw new Rejection(
      "VALIDATION_ERROR",
      previous.kind === "preview"
        ? "cursor: it continues a preview; send it to POST /api/v1/search/preview"
        : "cursor: it continues a paid search; send it to POST /api/v1/search/query or /{collection}",
      { field: "cursor" },
    );
  }
  if (previous.page.fingerprint !== fingerprint) {
    throw new Rejection(
      "VALIDATION_ERROR",
      "cursor: it belongs to another request; send the same query (or like), collections, filters, sort, " +
        "min_relevance and one_per_document as the call that returned it (limit and max_cost may change), or " +
        "drop cursor to start a new list",
      { field: "cursor" },
    );
  }
  if (!previous.page.continues)
    throw new Rejection("VALIDATION_ERROR", "cursor: the list it belongs to has no further page", { field: "cursor" });
  return previous.page;
}

/** What the next page leaves out: the earlier pages' rows and those of the page the cursor came from. */
export function exclusionAfter(
  page: PageState,
  rows: readonly (DocumentRow & { id: string; metadata: { title?: unknown; publication_date?: unknown } })[],
  onePerDocument: boolean,
): PageExclusion {
  return {
    ids: new Set([...page.earlierIds, ...rows.map((r) => r.id)]),
    documents: new Set(onePerDocument ? [...(page.earlierDocuments ?? []), ...rows.flatMap(documentKeysOf)] : []),
    number: page.number + 1,
  };
}

/** The page state a record keeps for the page it holds. */
export function pageStateOf(
  fingerprint: string,
  exclusion: PageExclusion | undefined,
  continues: boolean,
  onePerDocument: boolean,
): PageState {
  return {
    fingerprint,
    number: exclusion?.number ?? 1,
    earlierIds: exclusion ? [...exclusion.ids] : [],
    ...(onePerDocument && exclusion ? { earlierDocuments: [...exclusion.documents] } : {}),
    continues,
  };
}
