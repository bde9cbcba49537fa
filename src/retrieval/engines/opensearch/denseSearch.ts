// The OpenSearch adapter's dense search: the nearest chunks by k-NN (or exact painless scoring), their exact cosines
// computed here; while the index's vector backfill runs, beside the best chunks by BM25 of those without a vector.
import type { OpenSearchQuery } from "../../../filters/compileToOpenSearch.js";
import { rankCandidates, type RankCandidate } from "../../fusion.js";
import type { ChunkRecord, SearchHit, SearchRequest } from "../../port.js";
import { bm25QueryTerms } from "../../../text/luceneBm25.js";
import { fromDocument, WITHOUT_VECTORS, type IndexInfo } from "./chunkDocuments.js";
import { cosineFromScore, denseQuery } from "./denseScoring.js";
import type { OpenSearchContext } from "./engineContext.js";
import { idOf, IDS_AND_DOCUMENTS, searchBody, sparseQuery } from "./queryBuilder.js";
import { denseCandidates, exactCosine, hitsOf, keptRowsOf, rescored } from "./searchRanking.js";
import { bestByBm25, runSearch, sparseCeiling } from "./searchRetrievers.js";
import { vectorPresence } from "./vectorPresence.js";

/** k-NN hits fetched whole as candidates with their exact cosines, each hit's chunk kept in `chunks`. */
function exactDenseCandidates(
  name: string,
  info: IndexInfo,
  vector: Float32Array,
  hits: Awaited<ReturnType<typeof runSearch>>,
  chunks: Map<string, ChunkRecord>,
): RankCandidate[] {
  return hits.map((hit) => {
    const id = idOf(hit);
    const chunk = fromDocument(id, hit._source ?? {});
    chunks.set(id, chunk);
    return { id, dense: exactCosine(name, vector, chunk, cosineFromScore(info.vectorStorage, hit._score ?? 0)) };
  });
}

/**
 * Dense while the index's vector backfill runs: the nearest chunks with a vector beside the best chunks by BM25 of
 * those without one (fusion.ts: unvectored), every row fetched whole (a partial index is a passing state).
 */
async function denseDuringBackfill(
  ctx: OpenSearchContext,
  search: { name: string; info: IndexInfo; req: SearchRequest; query: OpenSearchQuery; filters: OpenSearchQuery[] },
): Promise<SearchHit[]> {
  const { name, info, req, query, filters } = search;
  const [hits, sparseHits, ceiling] = await Promise.all([
    runSearch(ctx, name, searchBody(query, req.limit, { _source: true })),
    bestByBm25(ctx, name, sparseQuery(req.text, [...filters, vectorPresence(info, false)]), req.limit, {
      _source: WITHOUT_VECTORS,
    }),
    sparseCeiling(ctx, name, req.text, bm25QueryTerms(req.text)),
  ]);
  const chunks = new Map<string, ChunkRecord>();
  const candidates = exactDenseCandidates(name, info, req.vector!, hits, chunks);
  for (const hit of sparseHits) {
    const id = idOf(hit);
    chunks.set(id, fromDocument(id, hit._source ?? {}));
    candidates.push({ id, sparse: Math.fround(hit._score ?? 0), unvectored: true });
  }
  return hitsOf(name, rankCandidates("dense", candidates, req.limit, ceiling, ctx.alpha), chunks);
}

/** The `limit` nearest chunks, sources and vectors included: their exact cosines are computed here. */
export async function searchDense(
  ctx: OpenSearchContext,
  name: string,
  info: IndexInfo,
  req: SearchRequest,
  vector: Float32Array,
  filters: OpenSearchQuery[],
): Promise<SearchHit[]> {
  const alpha = ctx.alpha;
  const efSearch = await ctx.efSearchOf(name);
  const query = denseQuery(vector, info.vectorStorage, filters, req.limit, efSearch);
  if (await ctx.coverageReader.partial(name, info))
    return denseDuringBackfill(ctx, { name, info, req, query, filters });
  if (req.keep) {
    // ids, scores and documents first; then the sources and vectors of the rows that can reach the caller's rows
    const kept = denseCandidates(await runSearch(ctx, name, searchBody(query, req.limit, IDS_AND_DOCUMENTS)), info);
    const chunks = new Map<string, ChunkRecord>();
    const rescore = (rows: readonly RankCandidate[]) => rescored(ctx, name, vector, rows, kept.estimates, chunks);
    const ranked = await keptRowsOf(req.keep, kept, chunks, rescore, (exact) =>
      rankCandidates("dense", exact, req.limit, 0, alpha),
    );
    return hitsOf(name, ranked, chunks);
  }
  const hits = await runSearch(ctx, name, searchBody(query, req.limit, { _source: true }));
  const chunks = new Map<string, ChunkRecord>();
  const candidates = exactDenseCandidates(name, info, vector, hits, chunks);
  return hitsOf(name, rankCandidates("dense", candidates, req.limit, 0, alpha), chunks);
}
