// The OpenSearch adapter's search within a filter that selects few chunks (SearchRequest.few: an alert's run within the
// works new to it): every chunk the filter selects, read in one request with its BM25 score, source and vector, and
// ranked here as the mode's own search ranks them when each of those chunks is among its retrievers' candidates.
import type { OpenSearchQuery } from "../../../filters/compileToOpenSearch.js";
import { hybridCandidateCount, rankCandidates, type RankCandidate } from "../../fusion.js";
import type { ChunkRecord, RetrievalMode, SearchHit, SearchRequest } from "../../port.js";
import { bm25QueryTerms } from "../../../text/luceneBm25.js";
import { fromDocument } from "./chunkDocuments.js";
import type { OpenSearchContext } from "./engineContext.js";
import { FIELD } from "./indexMapping.js";
import { idOf, type SearchResponseHit } from "./queryBuilder.js";
import { exactCosine, hitsOf } from "./searchRanking.js";
import { runSearch, sparseCeiling } from "./searchRetrievers.js";

/** Name of the BM25 clause: a chunk that matched it is a BM25 candidate. */
const BM25_CLAUSE = "bm25";

/**
 * The most chunks read whole in the one search: past it the mode's own search runs, and the search read at most this
 * many sources in vain (about what the usual search's fetch of the rows kept reads), never a run's thousands of chunks.
 */
const FEW_CHUNKS_READ = 100;

/** How many chunks each retriever of the mode's own search takes as candidates for `limit` rows. */
function candidatesTaken(mode: RetrievalMode, limit: number): number {
  return mode === "hybrid" ? hybridCandidateCount(limit) : limit;
}

const matchedBm25 = (hit: SearchResponseHit): boolean =>
  Array.isArray(hit.matched_queries) ? hit.matched_queries.includes(BM25_CLAUSE) : false;

/**
 * The mode's rows among every chunk the filter selects, in one search beside the BM25 ceiling (dense: the search
 * alone), where the mode's own search takes four requests (hybrid: both retrievers, the ceiling, the rows' sources).
 * The filter scores nothing and the BM25 clause is optional, so each chunk selected comes with its BM25 score (or
 * none: it did not match, and is no BM25 candidate) and its vector, whose exact cosine is computed here as the mode's
 * own search re-scores its rows. When the filter selects no more chunks than each retriever takes, every one of them
 * is a candidate of the mode's own search, which then ranks exactly these scores: the rows are the same. Null when it
 * selects more, or more than FEW_CHUNKS_READ (the caller runs the mode's own search).
 */
export async function searchFewChunks(
  ctx: OpenSearchContext,
  name: string,
  req: SearchRequest,
  vector: Float32Array | undefined,
  filters: OpenSearchQuery[],
): Promise<SearchHit[] | null> {
  const read = Math.min(candidatesTaken(req.mode, req.limit), FEW_CHUNKS_READ);
  const query = {
    bool: { filter: filters, should: [{ match: { [FIELD.sparse]: { query: req.text, _name: BM25_CLAUSE } } }] },
  };
  const [hits, ceiling] = await Promise.all([
    runSearch(ctx, name, { size: read + 1, query, _source: true, track_total_hits: false }),
    req.mode === "dense" ? 0 : sparseCeiling(ctx, name, req.text, bm25QueryTerms(req.text)),
  ]);
  if (hits.length > read) return null;
  const chunks = new Map<string, ChunkRecord>();
  const candidates: RankCandidate[] = [];
  for (const hit of hits) {
    const id = idOf(hit);
    const chunk = fromDocument(id, hit._source ?? {});
    chunks.set(id, chunk);
    const sparse = matchedBm25(hit) ? Math.fround(hit._score ?? 0) : undefined;
    if (req.mode === "sparse") {
      if (sparse !== undefined) candidates.push({ id, sparse });
      continue;
    }
    const dense = exactCosine(name, vector!, chunk, undefined);
    // a chunk without a vector (none while no backfill runs) is no dense candidate, and ranks in a hybrid list by its
    // BM25 share, as the mode's own search re-scores it
    if (req.mode === "dense") {
      if (dense !== undefined) candidates.push({ id, dense });
    } else candidates.push(dense === undefined ? { id, sparse, unvectored: true } : { id, sparse, dense });
  }
  return hitsOf(name, rankCandidates(req.mode, candidates, req.limit, ceiling, ctx.alpha), chunks);
}
