// The OpenSearch adapter's BM25 search: the best chunks by BM25 beside the query's ceiling, ranked as the embedded
// engine ranks them.
import type { OpenSearchQuery } from "../../../filters/compileToOpenSearch.js";
import { rankCandidates, type RankCandidate } from "../../fusion.js";
import type { ChunkRecord, SearchHit, SearchRequest } from "../../port.js";
import { bm25QueryTerms } from "../../../text/luceneBm25.js";
import { fromDocument, WITHOUT_VECTORS, type IndexInfo } from "./chunkDocuments.js";
import type { OpenSearchContext } from "./engineContext.js";
import { fetchesIdsFirst, fetchKeptRows } from "./keptRows.js";
import { documentOfHit, idOf, IDS_AND_DOCUMENTS, sparseQuery } from "./queryBuilder.js";
import { hitsOf } from "./searchRanking.js";
import { bestByBm25, fetchChunks, sparseCeiling } from "./searchRetrievers.js";

/**
 * The `limit` best chunks by BM25 beside the query's ceiling: in one request with their sources, unless the caller
 * keeps far fewer rows than the list holds (SearchRequest.keep, fetchesIdsFirst). Then the ids, scores and documents
 * first (doc values), then the sources of the chunks through the first chunk of the `keep.rows`-th document only (BM25
 * scores are exact, so nothing below it can reach the caller's rows), and the rest only when a chunk fetched is one the
 * caller drops: a facets request's list of 600 chunks reads the sources of the rows its 200 works need.
 */
export async function searchSparse(
  ctx: OpenSearchContext,
  name: string,
  info: IndexInfo,
  req: SearchRequest,
  filters: OpenSearchQuery[],
): Promise<SearchHit[]> {
  const query = sparseQuery(req.text, filters);
  // an index none of whose chunks has a vector (a sparse collection's) has none to leave out: its sources come as
  // stored, since filtering them costs the node a parse and a write of each (a third of a facets request's list); the
  // index's first search in the process does not wait to know it, and filters
  const vectorless = ctx.coverageReader.known(name, info)?.withVectors === 0;
  const sources = vectorless ? { _source: true } : { _source: WITHOUT_VECTORS };
  const keep = req.keep && fetchesIdsFirst(req.limit, req.keep.rows) ? req.keep : undefined;
  const fetch = keep ? IDS_AND_DOCUMENTS : sources;
  const [hits, ceiling] = await Promise.all([
    bestByBm25(ctx, name, query, req.limit, fetch),
    sparseCeiling(ctx, name, req.text, bm25QueryTerms(req.text)),
  ]);
  const chunks = new Map<string, ChunkRecord>();
  const documents = new Map<string, string>();
  const candidates: RankCandidate[] = [];
  for (const hit of hits) {
    const id = idOf(hit);
    if (hit._source) chunks.set(id, fromDocument(id, hit._source));
    const doc = documentOfHit(hit);
    if (doc !== undefined) documents.set(id, doc);
    candidates.push({ id, sparse: Math.fround(hit._score ?? 0) });
  }
  const ranked = rankCandidates("sparse", candidates, req.limit, ceiling, ctx.alpha);
  if (!keep) return hitsOf(name, ranked, chunks);

  const kept = await fetchKeptRows(ranked, {
    rows: keep.rows,
    error: 0,
    estimated: () => true,
    documentHint: (id) => documents.get(id),
    rank: async (rows) => {
      // `vectors`: whether the sources come whole (no vector left out), as for a vectorless index
      const fetched = await fetchChunks(
        ctx,
        name,
        rows.map((row) => row.id),
        vectorless,
      );
      for (const chunk of fetched) chunks.set(chunk.id, chunk);
      return ranked.filter((row) => chunks.has(row.id));
    },
    documentOf: (row) => {
      const chunk = chunks.get(row.id) as ChunkRecord;
      return keep.drops(chunk) ? undefined : String(chunk.metadata.doc_id);
    },
  });
  return hitsOf(name, kept, chunks);
}
