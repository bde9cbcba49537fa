// The OpenSearch adapter's hybrid search: the dense and BM25 retrievers side by side, fused by the cosines their
// scores stand for, then the rows kept ranked again by their exact cosines, as the embedded engine ranks them.
import type { OpenSearchQuery } from "../../../filters/compileToOpenSearch.js";
import { hybridCandidateCount, rankCandidates, type RankCandidate } from "../../fusion.js";
import type { ChunkRecord, SearchHit, SearchRequest } from "../../port.js";
import { bm25QueryTerms } from "../../../text/luceneBm25.js";
import type { IndexInfo } from "./chunkDocuments.js";
import { cosineFromScore, DENSE_SCORE_COSINE_ERROR, denseQuery } from "./denseScoring.js";
import type { OpenSearchContext } from "./engineContext.js";
import { documentOfHit, idOf, IDS_AND_DOCUMENTS, IDS_ONLY, searchBody, sparseQuery } from "./queryBuilder.js";
import { hitsOf, keptRowsOf, rescored } from "./searchRanking.js";
import { bestByBm25, runSearch, sparseCeiling } from "./searchRetrievers.js";
import { cosineOfChunks } from "./vectorPresence.js";

/** Name of the clause that scores a BM25 hit's cosine in a hybrid search. */
const COSINE_CLAUSE = "cosine";

/**
 * Hybrid in two round trips. First both retrievers and the ceiling, side by side: the dense one's hundreds of
 * candidates as ids and scores only (the score stands for the cosine), the BM25 one's with the cosine each of its
 * chunks scores (the embedded engine fuses those by cosine too) as the score of a named clause, which OpenSearch
 * computes for the hits returned only. Then the candidates are fused by those cosines, and the sources and vectors of
 * the rows kept are fetched (one _mget): every row whose exact score could still reach the `limit` best, that is the
 * `limit` best plus any within twice the cosine error of the last of them. Their exact cosines rank them again, as
 * the embedded engine ranks them. (_msearch would carry both retrievers in one request, but it returns no score of a
 * named clause, and the cosines in its BM25 search would cost more: a painless script field 25% of that search, the
 * vectors from doc values 2.5 times it; one more request costs a tenth of it.)
 */
export async function searchHybrid(
  ctx: OpenSearchContext,
  name: string,
  info: IndexInfo,
  req: SearchRequest,
  vector: Float32Array,
  filters: OpenSearchQuery[],
): Promise<SearchHit[]> {
  const alpha = ctx.alpha;
  const pool = hybridCandidateCount(req.limit);
  const efSearch = await ctx.efSearchOf(name);
  // while the vector backfill runs, the BM25 side also finds the chunks without a vector (fusion.ts: unvectored)
  const partial = await ctx.coverageReader.partial(name, info);
  // a caller that keeps fewer rows (req.keep) gets each candidate's document too, from doc values
  const fields = req.keep ? IDS_AND_DOCUMENTS : IDS_ONLY;
  const [denseHits, sparseHits, ceiling] = await Promise.all([
    runSearch(ctx, name, searchBody(denseQuery(vector, info.vectorStorage, filters, pool, efSearch), pool, fields)),
    bestByBm25(
      ctx,
      name,
      sparseQuery(req.text, [...filters, cosineOfChunks(vector, info, COSINE_CLAUSE, partial)]),
      pool,
      fields,
      "&include_named_queries_score=true",
    ),
    sparseCeiling(ctx, name, req.text, bm25QueryTerms(req.text)),
  ]);
  const candidates = new Map<string, RankCandidate>();
  const estimates = new Map<string, number>();
  const documents = new Map<string, string>();
  for (const hit of [...denseHits, ...sparseHits]) {
    const doc = documentOfHit(hit);
    if (doc !== undefined) documents.set(idOf(hit), doc);
  }
  for (const hit of denseHits) {
    const id = idOf(hit);
    const estimate = cosineFromScore(info.vectorStorage, hit._score ?? 0);
    estimates.set(id, estimate);
    candidates.set(id, { id, dense: estimate });
  }
  for (const hit of sparseHits) {
    const id = idOf(hit);
    const candidate: RankCandidate = candidates.get(id) ?? { id };
    const score =
      hit.matched_queries && !Array.isArray(hit.matched_queries) ? hit.matched_queries[COSINE_CLAUSE] : undefined;
    if (candidate.dense === undefined && score !== undefined) {
      candidate.dense = cosineFromScore(info.vectorStorage, score);
      estimates.set(id, candidate.dense);
    } else if (partial && candidate.dense === undefined) candidate.unvectored = true;
    candidate.sparse = Math.fround(hit._score ?? 0);
    candidates.set(id, candidate);
  }

  const byEstimate = rankCandidates("hybrid", [...candidates.values()], candidates.size, ceiling, alpha);
  const floor =
    byEstimate.length > req.limit ? byEstimate[req.limit - 1].score - 2 * DENSE_SCORE_COSINE_ERROR : -Infinity;
  const kept = byEstimate.filter((candidate) => candidate.score >= floor);
  const chunks = new Map<string, ChunkRecord>();
  const rescore = (rows: readonly RankCandidate[]) => rescored(ctx, name, vector, rows, estimates, chunks);
  if (!req.keep) return hitsOf(name, rankCandidates("hybrid", await rescore(kept), req.limit, ceiling, alpha), chunks);

  // only the rows that can reach the caller's `keep.rows` (keptRows.ts); the rest if the first fetch does not settle
  const ranked = await keptRowsOf(req.keep, { byEstimate: kept, estimates, documents }, chunks, rescore, (exact) =>
    rankCandidates("hybrid", exact, req.limit, ceiling, alpha),
  );
  return hitsOf(name, ranked, chunks);
}
