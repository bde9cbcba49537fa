// The OpenSearch adapter's search: the request checked, its filter compiled, and the mode's search run
// (sparseSearch.ts, denseSearch.ts, hybridSearch.ts).
import { compileToOpenSearch } from "../../../filters/compileToOpenSearch.js";
import { EmbeddingMismatchError, type SearchHit, type SearchRequest } from "../../port.js";
import type { IndexInfo } from "./chunkDocuments.js";
import { searchDense } from "./denseSearch.js";
import type { OpenSearchContext } from "./engineContext.js";
import { searchFewChunks } from "./fewChunks.js";
import { searchHybrid } from "./hybridSearch.js";
import { searchSparse } from "./sparseSearch.js";

function queryVector(info: IndexInfo, req: SearchRequest): Float32Array {
  if (!req.vector) throw new Error(`opensearch engine: ${req.mode} search needs a query vector`);
  if (req.vector.length !== info.dims) {
    throw new Error(`opensearch engine: query vector has ${req.vector.length} dims, index has ${info.dims}`);
  }
  if (info.embedding && req.embedding && info.embedding !== req.embedding)
    throw new EmbeddingMismatchError(req.index, info.embedding, req.embedding);
  return req.vector;
}

export async function search(ctx: OpenSearchContext, req: SearchRequest): Promise<SearchHit[]> {
  if (!Number.isInteger(req.limit) || req.limit < 0) throw new Error(`opensearch engine: invalid limit ${req.limit}`);
  const info = await ctx.requireInfo(req.index);
  const name = ctx.indexName(req.index);
  if (req.limit === 0) return [];
  const filters = req.filter ? [compileToOpenSearch(req.filter)] : [];
  const vector = req.mode === "sparse" ? undefined : queryVector(info, req);
  // while a vector backfill runs, a dense or hybrid search finds the chunks without a vector its own way
  const fewChunks = req.few && filters.length > 0 && (!vector || !(await ctx.coverageReader.partial(name, info)));
  if (fewChunks) {
    const hits = await searchFewChunks(ctx, name, req, vector, filters);
    if (hits) return hits;
  }
  if (!vector) return searchSparse(ctx, name, info, req, filters);
  return req.mode === "dense"
    ? searchDense(ctx, name, info, req, vector, filters)
    : searchHybrid(ctx, name, info, req, vector, filters);
}
