// The OpenSearch adapter's reads that a search is made of: a retriever's hits, the best chunks by BM25, a query's BM25
// ceiling, and chunks by id as of the last commit.
import type { OpenSearchQuery } from "../../../filters/compileToOpenSearch.js";
import type { ChunkRecord } from "../../port.js";
import { bm25Ceiling } from "../../../text/luceneBm25.js";
import { fromDocument, WITHOUT_VECTORS, type ChunkDocument, type MgetResponseBody } from "./chunkDocuments.js";
import type { OpenSearchContext } from "./engineContext.js";
import { FIELD } from "./indexMapping.js";
import {
  bm25HitsAsked,
  idOf,
  SEARCH_FILTER_PATH,
  searchBody,
  TERM_VECTORS_FILTER_PATH,
  termVectorsBody,
  type SearchResponseBody,
  type SearchResponseHit,
  type TermVectorsBody,
} from "./queryBuilder.js";

/**
 * A retriever's hits, and only what this adapter reads of them (`filter_path`): no index name, sort values, took or
 * shard counts, which the node would write and the service parse for each of hundreds of hits. `params` starts with
 * `&` when given. A shard none of whose copies answers (a cluster that lost a node and the shard's only copy) fails
 * the search rather than leaving that shard's chunks out unseen: a customer is never charged for part of a
 * collection.
 */
export async function runSearch(
  ctx: OpenSearchContext,
  name: string,
  body: Record<string, unknown>,
  params = "",
): Promise<SearchResponseHit[]> {
  const { body: response } = await ctx.call<Partial<SearchResponseBody>>(
    "POST",
    `/${name}/_search?allow_partial_search_results=false&filter_path=${SEARCH_FILTER_PATH}${params}`,
    body,
  );
  // a response with no hits is filtered down to {}
  return response.hits?.hits ?? [];
}

/**
 * The `size` best chunks by BM25, ties broken by chunk id as in the embedded engine. Asked sorted by score alone, so
 * that Lucene skips the chunks that cannot compete (sorted by chunk id too it scores every match: 2.4 times the
 * work on SciFact), for a quarter more chunks than needed: when the last of those scores below the `size`-th, every
 * chunk tied with a kept one is among them, and they are ordered by chunk id here. Ties at the cut are common
 * (one-byte length norms: 11 of 100 SciFact queries tie at the 100th BM25 hit), longer than the margin rare: those
 * are asked again with both sorts.
 */
export async function bestByBm25(
  ctx: OpenSearchContext,
  name: string,
  query: OpenSearchQuery,
  size: number,
  fetch: Record<string, unknown>,
  params = "",
): Promise<SearchResponseHit[]> {
  const asked = bm25HitsAsked(size);
  const hits = await runSearch(ctx, name, { size: asked, query, ...fetch, track_total_hits: false }, params);
  const ordered = hits
    .map((hit) => ({ hit, id: idOf(hit), score: hit._score ?? 0 }))
    .sort((a, b) => b.score - a.score || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
  if (hits.length < asked || ordered[ordered.length - 1].score < ordered[size - 1].score)
    return ordered.slice(0, size).map(({ hit }) => hit);
  return runSearch(ctx, name, searchBody(query, size, fetch), params);
}

/**
 * The query's BM25 ceiling from the index's statistics of its analyzed terms (document frequencies, and the number
 * of documents with the BM25 field), asked of the term vectors API for the query text as an artificial document:
 * a look-up in the terms dictionary, whatever the index's size, and the same statistics Lucene scores with (one
 * shard per index, so the shard's are the index's; like the scores, they count deleted documents until a merge
 * drops them, where a count of matches would not).
 */
export async function sparseCeiling(
  ctx: OpenSearchContext,
  name: string,
  text: string,
  terms: ReadonlyMap<string, number>,
): Promise<number> {
  if (terms.size === 0) return 0;
  const { body } = await ctx.call<TermVectorsBody>(
    "POST",
    `/${name}/_termvectors?filter_path=${TERM_VECTORS_FILTER_PATH}`,
    termVectorsBody(text),
  );
  const field = body.term_vectors?.[FIELD.sparse];
  return bm25Ceiling(terms, (term) => field?.terms?.[term]?.doc_freq ?? 0, field?.field_statistics?.doc_count ?? 0);
}

/**
 * Chunks by id as of the last commit: `realtime=false` reads the searcher the last refresh opened, as searches do (a
 * realtime get would also read chunks staged since, before their commit).
 */
export async function fetchChunks(
  ctx: OpenSearchContext,
  name: string,
  ids: string[],
  vectors = true,
): Promise<ChunkRecord[]> {
  if (ids.length === 0) return [];
  const excludes = vectors ? "" : `&_source_excludes=${WITHOUT_VECTORS.excludes.join(",")}`;
  const { body } = await ctx.call<Partial<MgetResponseBody>>(
    "POST",
    `/${name}/_mget?realtime=false&filter_path=docs._id,docs.found,docs._source,error${excludes}`,
    { ids },
  );
  return (body.docs ?? [])
    .filter((doc) => doc.found && doc._source)
    .map((doc) => fromDocument(doc._id, doc._source as ChunkDocument));
}
