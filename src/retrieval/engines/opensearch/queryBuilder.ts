// The query DSL of the OpenSearch adapter's BM25 side and the shapes of the answers it reads: search bodies, what a
// retriever's hit brings, the filter paths, the term vectors request of the BM25 ceiling. The dense side's queries are
// in denseScoring.ts.
import type { OpenSearchQuery } from "../../../filters/compileToOpenSearch.js";
import type { ChunkDocument } from "./chunkDocuments.js";
import { FIELD } from "./indexMapping.js";

export interface SearchResponseHit {
  /** absent when the search asked for no stored field (IDS_ONLY) */
  _id?: string;
  fields?: Record<string, unknown[] | undefined>;
  _score: number | null;
  _source?: ChunkDocument;
  /** with include_named_queries_score: the score of each named clause the hit matched */
  matched_queries?: Record<string, number> | string[];
  sort?: unknown[];
}

export interface SearchResponseBody {
  hits: { hits: SearchResponseHit[] };
}

/** The term vectors API's answer for an artificial document: the index's statistics of its analyzed terms. */
export interface TermVectorsBody {
  term_vectors?: Record<
    string,
    { field_statistics?: { doc_count: number }; terms?: Record<string, { doc_freq?: number }> }
  >;
}

/**
 * What a retriever's hit brings when only its id and score are needed: the chunk id from doc values and no stored
 * field. Even the _id is a stored field, read by decompressing the block of stored fields its chunk sits in, which made
 * the fetch of 100 hits ids most of a search's time (SciFact: a BM25 search 2.7 times, a k-NN search 1.7 times faster
 * without it).
 */
export const IDS_ONLY = { stored_fields: "_none_", docvalue_fields: [FIELD.chunkId] };

/** The document of a chunk as a doc value (lower-cased by the keyword normalizer; absent past ignore_above). */
const DOCUMENT_FIELD = `${FIELD.metadata}.doc_id`;

/** IDS_ONLY and each hit's document: what SearchRequest.keep needs to know which rows can reach the caller's. */
export const IDS_AND_DOCUMENTS = { stored_fields: "_none_", docvalue_fields: [FIELD.chunkId, DOCUMENT_FIELD] };

/** The document of a hit fetched with IDS_AND_DOCUMENTS, lower-cased; undefined when it has no doc value. */
export function documentOfHit(hit: SearchResponseHit): string | undefined {
  const doc = hit.fields?.[DOCUMENT_FIELD]?.[0];
  return typeof doc === "string" ? doc : undefined;
}

/** The chunk id of a hit fetched with IDS_ONLY (or with its _id). */
export function idOf(hit: SearchResponseHit): string {
  const id = hit._id ?? hit.fields?.[FIELD.chunkId]?.[0];
  if (typeof id !== "string") throw new Error("opensearch engine: a search hit came without its chunk id");
  return id;
}

/**
 * What a retriever's response carries (see runSearch): per hit, its id (absent with IDS_ONLY), score, fetched fields,
 * source and named scores; and an error's description, which a filter_path would otherwise drop as well.
 */
export const SEARCH_FILTER_PATH = [
  ...["_id", "_score", "fields", "_source", "matched_queries"].map((field) => `hits.hits.${field}`),
  "error",
].join(",");

/** What the ceiling reads of the term vectors API's answer: the document count and each term's document frequency. */
export const TERM_VECTORS_FILTER_PATH =
  `term_vectors.${FIELD.sparse}` +
  `.field_statistics.doc_count,term_vectors.${FIELD.sparse}` +
  ".terms.*.doc_freq,error";

/** A search body: hits by score, ties broken by chunk id as in the embedded engine, and no hit count. */
export function searchBody(
  query: OpenSearchQuery,
  size: number,
  fetch: Record<string, unknown>,
): Record<string, unknown> {
  return {
    size,
    query,
    ...fetch,
    track_scores: true,
    // no hit count is ever used: counting every match would only stop Lucene from skipping non-competitive ones
    track_total_hits: false,
    sort: [{ _score: "desc" }, { [FIELD.chunkId]: "asc" }],
  };
}

export function sparseQuery(text: string, filters: OpenSearchQuery[]): OpenSearchQuery {
  return { bool: { must: [{ match: { [FIELD.sparse]: { query: text } } }], filter: filters } };
}

/**
 * How many BM25 hits to ask, sorted by score alone, for the `size` best ordered by chunk id among ties: a quarter more,
 * at least 3 (see the engine's bestByBm25).
 */
export function bm25HitsAsked(size: number): number {
  return size + Math.max(3, Math.ceil(size / 4));
}

/** The term vectors request of the query text as an artificial document: the statistics of its analyzed terms. */
export function termVectorsBody(text: string): Record<string, unknown> {
  return {
    doc: { [FIELD.sparse]: text },
    fields: [FIELD.sparse],
    term_statistics: true,
    field_statistics: true,
    positions: false,
    offsets: false,
    payloads: false,
  };
}
