// Exact retrieval over one segment: BM25 term-at-a-time over the postings and a brute-force dense scan (an int8
// screen, then exact cosines where it cannot decide), both restricted to chunks that pass the filter before the top-k.
import { denseSelectionKey, dotProduct } from "../../fusion.js";
import type { DenseEstimates } from "./denseScreen.js";
import type { IndexSegment } from "./indexSegment.js";
import {
  bm25Ceiling,
  bm25Idf,
  bm25NormInverseTable,
  bm25QueryTerms,
  bm25TermScore,
  bm25TermWeight,
} from "../../../text/luceneBm25.js";
import { TopCandidates } from "./topCandidates.js";

/** Whether the chunk at an ordinal passes the request's filter. */
export type OrdinalFilter = (ordinal: number) => boolean;

interface SparseMatch {
  ordinal: number;
  /** BM25 as OpenSearch computes it (a float) */
  bm25: number;
}

interface DenseMatch {
  ordinal: number;
  cosine: number;
}

/** Reusable per-index buffers, so a query allocates nothing proportional to the index. */
export class SparseScratch {
  private scores = new Float64Array(0);
  private touched = new Int32Array(0);

  buffers(chunkCount: number): { scores: Float64Array; touched: Int32Array } {
    if (this.scores.length < chunkCount) {
      this.scores = new Float64Array(chunkCount);
      this.touched = new Int32Array(chunkCount);
    }
    return { scores: this.scores, touched: this.touched };
  }
}

/** Document frequency of a term in the segment (0 when absent). */
function docFreq(segment: IndexSegment, term: string): number {
  const termId = segment.termIdByTerm.get(term);
  return termId === undefined ? 0 : segment.postingStarts[termId + 1] - segment.postingStarts[termId];
}

/** The query's BM25 ceiling over this segment's statistics (see bm25Ceiling). */
export function sparseCeiling(segment: IndexSegment, text: string): number {
  return bm25Ceiling(bm25QueryTerms(text), (term) => docFreq(segment, term), segment.docCount);
}

/** The `count` best chunks by BM25 over the title + text field, filter applied first. */
export function searchSparse(
  segment: IndexSegment,
  text: string,
  count: number,
  passes: OrdinalFilter | undefined,
  scratch: SparseScratch,
): SparseMatch[] {
  const terms = bm25QueryTerms(text);
  if (terms.size === 0 || segment.docCount === 0 || count <= 0) return [];
  const { scores, touched } = scratch.buffers(segment.chunks.length);
  const normInverse = bm25NormInverseTable(segment);
  const { postingStarts, postingDocs, postingFreqs, norms } = segment;
  let touchedCount = 0;
  for (const [term, queryCount] of terms) {
    const termId = segment.termIdByTerm.get(term);
    if (termId === undefined) continue;
    const start = postingStarts[termId];
    const end = postingStarts[termId + 1];
    const weight = bm25TermWeight(bm25Idf(end - start, segment.docCount), queryCount);
    for (let p = start; p < end; p++) {
      const ordinal = postingDocs[p];
      if (passes !== undefined && !passes(ordinal)) continue;
      if (scores[ordinal] === 0) touched[touchedCount++] = ordinal;
      scores[ordinal] += bm25TermScore(weight, postingFreqs[p], normInverse[norms[ordinal]]);
    }
  }
  const top = new TopCandidates(count, (ordinal) => segment.chunks[ordinal].id);
  for (let i = 0; i < touchedCount; i++) {
    const ordinal = touched[i];
    // Lucene sums the clause scores in double and returns a float
    top.offer(ordinal, Math.fround(scores[ordinal]));
    scores[ordinal] = 0;
  }
  return top.drain().map(({ ordinal, score }) => ({ ordinal, bm25: score }));
}

/**
 * The `count` best chunks by cosine, filter applied first. Selection uses OpenSearch's rounded key
 * (float of 1 + cosine) so both engines pick the same set; the returned cosines are exact.
 */
export function searchDense(
  segment: IndexSegment,
  query: Float32Array,
  count: number,
  passes: OrdinalFilter | undefined,
): DenseMatch[] {
  if (count <= 0) return [];
  const screened = segment.screen?.estimate(query);
  const top = new TopCandidates(count, (ordinal) => segment.chunks[ordinal].id);
  const cosines = screened
    ? offerScreened(segment, query, screened, top, passes)
    : offerAll(segment, query, top, passes);
  return top.drain().map(({ ordinal }) => ({ ordinal, cosine: cosines(ordinal) }));
}

/** Offers every chunk with a vector by its exact cosine; returns the cosine of an ordinal. */
function offerAll(
  segment: IndexSegment,
  query: Float32Array,
  top: TopCandidates,
  passes: OrdinalFilter | undefined,
): (ordinal: number) => number {
  const { hasVector } = segment;
  const cosines = segment.matrix.scoreAll(query);
  for (let ordinal = 0; ordinal < segment.chunks.length; ordinal++) {
    if (hasVector[ordinal] === 0) continue;
    const key = denseSelectionKey(cosines[ordinal]);
    if (key < top.threshold()) continue;
    if (passes !== undefined && !passes(ordinal)) continue;
    top.offer(ordinal, key);
  }
  return (ordinal) => cosines[ordinal];
}

/**
 * Offers by exact cosine only the chunks the screen cannot rule out. The count-th best lower bound among chunks that
 * pass is a floor that at least `count` exact cosines reach; a chunk whose upper bound's key is below the floor's
 * key ranks strictly below all of those (the key is monotone in the cosine), so leaving it out changes nothing.
 */
function offerScreened(
  segment: IndexSegment,
  query: Float32Array,
  { estimates, errors }: DenseEstimates,
  top: TopCandidates,
  passes: OrdinalFilter | undefined,
): (ordinal: number) => number {
  const { hasVector } = segment;
  const chunkCount = segment.chunks.length;
  const lowest = new TopCandidates(top.capacity, (ordinal) => segment.chunks[ordinal].id);
  let floor = -Infinity;
  for (let ordinal = 0; ordinal < chunkCount; ordinal++) {
    if (hasVector[ordinal] === 0) continue;
    const lower = estimates[ordinal] - errors[ordinal];
    if (lower <= floor) continue;
    if (passes !== undefined && !passes(ordinal)) continue;
    lowest.offer(ordinal, lower);
    floor = lowest.threshold();
  }
  const floorKey = denseSelectionKey(floor);
  const exactCosine = segment.matrix.scoreRows(query);
  const cosines = new Map<number, number>();
  for (let ordinal = 0; ordinal < chunkCount; ordinal++) {
    if (hasVector[ordinal] === 0 || denseSelectionKey(estimates[ordinal] + errors[ordinal]) < floorKey) continue;
    if (passes !== undefined && !passes(ordinal)) continue;
    const cosine = exactCosine(ordinal);
    const key = denseSelectionKey(cosine);
    if (key < top.threshold()) continue;
    cosines.set(ordinal, cosine);
    top.offer(ordinal, key);
  }
  return (ordinal) => cosines.get(ordinal) as number;
}

/** Exact cosine of the query and one chunk, or undefined when the chunk has no vector. */
export function cosineAt(segment: IndexSegment, query: Float32Array, ordinal: number): number | undefined {
  if (segment.hasVector[ordinal] === 0) return undefined;
  return dotProduct(query, segment.matrix.vectors, ordinal * segment.dims, segment.dims);
}
