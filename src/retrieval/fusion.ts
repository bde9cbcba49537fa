// Ranking rules both engines share so they rank alike: what text is indexed for BM25, BM25 parameters,
// the dense similarity, score normalization to an absolute 0..1 scale, hybrid fusion and tie-breaking.
import type { ChunkRecord, RetrievalMode } from "./port.js";

export { BM25_B, BM25_K1 } from "../text/luceneBm25.js";

/**
 * Weight of the dense score in the hybrid convex combination: score = alpha * dense + (1 - alpha) * sparse.
 * Tuned on the 809 SciFact train queries (`npm run bench:quality -- --tune`) with bge-small-en-v1.5 vectors: 0.85 gave
 * the best nDCG@10 (0.7716), 0.80 0.7711, 0.70 0.7662, 0.50 0.7531 (RRF 0.7519); dividing BM25 by the query's
 * ceiling beat dividing by the list's best (0.7705 at 0.95). bge's cosines spread over a narrow band (about 0.55 to
 * 0.85 for a query's top 1,000), so the dense side needs a larger weight than all-MiniLM-L6-v2's (0.40) did.
 */
export const HYBRID_ALPHA = 0.85;

/** How many candidates each retriever contributes to hybrid fusion. */
export function hybridCandidateCount(limit: number): number {
  return Math.max(limit * 5, 100);
}

/**
 * The values indexed into the one BM25 field, in order: the chunk's title (from metadata) and its text.
 * OpenSearch indexes them as two values of one field (copy_to), which counts the same terms and length.
 */
export function sparseFieldValues(chunk: Pick<ChunkRecord, "text" | "metadata">): string[] {
  const title = chunk.metadata.title;
  return typeof title === "string" && title.length > 0 ? [title, chunk.text] : [chunk.text];
}

/**
 * Dot product of the query and one row of a vector matrix (cosine for L2-normalized vectors).
 * The summation order (four interleaved double accumulators, then (s0 + s1) + (s2 + s3), then the tail)
 * is part of the contract: OpenSearch's painless fallback sums in the same order, so both engines
 * compute bit-identical similarities.
 */
export function dotProduct(query: Float32Array, matrix: Float32Array, rowOffset: number, dims: number): number {
  let s0 = 0;
  let s1 = 0;
  let s2 = 0;
  let s3 = 0;
  const blockEnd = dims - (dims % 4);
  let i = 0;
  let j = rowOffset;
  for (; i < blockEnd; i += 4, j += 4) {
    s0 += query[i] * matrix[j];
    s1 += query[i + 1] * matrix[j + 1];
    s2 += query[i + 2] * matrix[j + 2];
    s3 += query[i + 3] * matrix[j + 3];
  }
  let sum = s0 + s1 + (s2 + s3);
  for (; i < dims; i++, j++) sum += query[i] * matrix[j];
  return sum;
}

/**
 * The key by which dense candidates are selected: OpenSearch's script_score returns 1 + cosine (scores must
 * be non-negative) and rounds it to a float, so the embedded engine selects by the same rounded key.
 */
export function denseSelectionKey(cosine: number): number {
  return Math.fround(1 + cosine);
}

/** A candidate from one or both retrievers, before normalization. */
export interface RankCandidate {
  id: string;
  /** cosine similarity, when known */
  dense?: number;
  /** raw BM25 score; absent when the chunk was not among the sparse candidates */
  sparse?: number;
  /**
   * the chunk has no vector yet (its collection's vector backfill has not reached it): in dense and hybrid lists it
   * ranks by its BM25 share alone, the one score it has
   */
  unvectored?: true;
}

export interface RankedCandidate extends RankCandidate {
  /** relevance in 0..1 */
  score: number;
}

/** Dense scores are cosines; clamped into 0..1 (negative similarity carries no relevance). */
function normalizeDense(cosine: number): number {
  return cosine <= 0 ? 0 : cosine >= 1 ? 1 : cosine;
}

/**
 * BM25 as a share of the query's BM25 ceiling (see bm25Ceiling in embedded/luceneBm25.ts: the score of a chunk
 * saturated with every query term). Unlike a division by the best score of the result list, this depends only on
 * the query, the chunk and the index statistics, so a weak best match stays weak and scores compare across lists.
 */
function normalizeSparse(bm25: number, ceiling: number): number {
  return ceiling > 0 ? Math.min(1, bm25 / ceiling) : 0;
}

/** Higher score first; ties by raw dense, then raw sparse, then chunk id (code-unit order) so the order is total. */
export function compareRanked(a: RankedCandidate, b: RankedCandidate): number {
  if (a.score !== b.score) return b.score - a.score;
  const denseA = a.dense ?? -Infinity;
  const denseB = b.dense ?? -Infinity;
  if (denseA !== denseB) return denseB - denseA;
  const sparseA = a.sparse ?? -Infinity;
  const sparseB = b.sparse ?? -Infinity;
  if (sparseA !== sparseB) return sparseB - sparseA;
  return a.id < b.id ? -1 : a.id > b.id ? 1 : 0;
}

/**
 * Scores candidates into 0..1 and returns the best `limit`, sorted. Every score is absolute (no division by
 * anything that depends on the other candidates), so the reranker can calibrate it (rerank.ts).
 * - sparse: bm25 / the query's BM25 ceiling in this index
 * - dense: clamp(cosine, 0, 1)
 * - hybrid: alpha * clamp(cosine) + (1 - alpha) * bm25 / ceiling; a chunk that was not among the sparse
 *   candidates contributes 0 sparse (both engines know every candidate's cosine, not every candidate's BM25)
 * - a chunk without a vector yet (`unvectored`, a collection whose vector backfill runs), in any mode: bm25 / ceiling
 */
export function rankCandidates(
  mode: RetrievalMode,
  candidates: readonly RankCandidate[],
  limit: number,
  sparseCeiling: number,
  alpha: number = HYBRID_ALPHA,
): RankedCandidate[] {
  const ranked: RankedCandidate[] = candidates.map((candidate) => {
    const sparsePart = candidate.sparse === undefined ? 0 : normalizeSparse(candidate.sparse, sparseCeiling);
    const densePart = candidate.dense === undefined ? 0 : normalizeDense(candidate.dense);
    const score =
      mode === "sparse" || candidate.unvectored
        ? sparsePart
        : mode === "dense"
          ? densePart
          : alpha * densePart + (1 - alpha) * sparsePart;
    return { ...candidate, score };
  });
  ranked.sort(compareRanked);
  return ranked.slice(0, limit);
}
