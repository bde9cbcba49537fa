// The OpenSearch adapter's BM25 search: the best chunks by BM25 beside the query's ceiling, ranked as the embedded
// engine ranks them.
import type { OpenSearchQuery } from "../../../filters/compileToOpenSearch.js";
import { rankCandidates, type RankCandidate } from "../../fusion.js";
import type { ChunkRecord, SearchHit, SearchRequest } from "../../port.js";
import { bm25QueryTerms } from "../../../text/luceneBm25.js";
import { fromDocument, WITHOUT_VECTORS } from "./chunkDocuments.js";
import type { OpenSearchContext } from "./engineContext.js";
import { idOf, sparseQuery } from "./queryBuilder.js";
import { hitsOf } from "./searchRanking.js";
import { bestByBm25, sparseCeiling } from "./searchRetrievers.js";

/** The `limit` best chunks by BM25, sources included, beside the query's ceiling. */
export async function searchSparse(
  ctx: OpenSearchContext,
  name: string,
  req: SearchRequest,
  filters: OpenSearchQuery[],
): Promise<SearchHit[]> {
  const [hits, ceiling] = await Promise.all([
    bestByBm25(ctx, name, sparseQuery(req.text, filters), req.limit, { _source: WITHOUT_VECTORS }),
    sparseCeiling(ctx, name, req.text, bm25QueryTerms(req.text)),
  ]);
  const chunks = new Map<string, ChunkRecord>();
  const candidates: RankCandidate[] = [];
  for (const hit of hits) {
    const id = idOf(hit);
    chunks.set(id, fromDocument(id, hit._source ?? {}));
    candidates.push({ id, sparse: Math.fround(hit._score ?? 0) });
  }
  return hitsOf(name, rankCandidates("sparse", candidates, req.limit, ceiling, ctx.alpha), chunks);
}
