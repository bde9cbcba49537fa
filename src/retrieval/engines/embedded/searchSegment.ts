// The embedded engine's search of an index's committed segment: the mode's candidates (segmentSearch.ts) with the
// filter applied before top-k, fused and ranked by fusion.ts, cut where a caller that keeps fewer rows stops.
import { compileToPredicate } from "../../../filters/compileToPredicate.js";
import { hybridCandidateCount, rankCandidates, type RankCandidate } from "../../fusion.js";
import { EmbeddingMismatchError, type KeptRows, type SearchHit, type SearchRequest } from "../../port.js";
import { documentsEnd } from "../../repeats.js";
import type { IndexSegment } from "./indexSegment.js";
import { requireState, type EmbeddedContext, type IndexState } from "./indexState.js";
import { withVectorsOf } from "./segmentReads.js";
import {
  cosineAt,
  searchDense,
  searchSparse,
  sparseCeiling,
  SparseScratch,
  type OrdinalFilter,
} from "./segmentSearch.js";

/** A ranked row's document for SearchRequest.keep: undefined for a chunk the caller drops. */
function documentOfRow(
  segment: IndexSegment,
  ordinalById: ReadonlyMap<string, number>,
  keep: KeptRows,
): (row: { id: string }) => string | undefined {
  return (row) => {
    const chunk = segment.chunks[ordinalById.get(row.id) as number];
    return keep.drops(chunk) ? undefined : String(chunk.metadata.doc_id);
  };
}

/**
 * A dense search during the index's vector backfill: the best chunks by BM25 among those still without a vector join
 * the candidates (fusion.ts ranks them by their BM25 share: unvectored). Nothing when every chunk has one.
 */
function offerUnvectored(
  segment: IndexSegment,
  req: SearchRequest,
  passes: OrdinalFilter | undefined,
  scratch: SparseScratch,
  candidates: Map<number, RankCandidate>,
): void {
  if (withVectorsOf(segment) === segment.chunks.length) return;
  const unvectored: OrdinalFilter = (ordinal) =>
    segment.hasVector[ordinal] === 0 && (passes === undefined || passes(ordinal));
  for (const match of searchSparse(segment, req.text, req.limit, unvectored, scratch)) {
    const id = segment.chunks[match.ordinal].id;
    candidates.set(match.ordinal, { id, sparse: match.bm25, unvectored: true });
  }
}

function ordinalFilter(segment: IndexSegment, req: SearchRequest): OrdinalFilter | undefined {
  if (!req.filter) return undefined;
  const predicate = compileToPredicate(req.filter);
  // 0 = not evaluated yet, 1 = passes, 2 = fails
  const verdicts = new Uint8Array(segment.chunks.length);
  return (ordinal) => {
    let verdict = verdicts[ordinal];
    if (verdict === 0) {
      verdict = predicate(segment.chunks[ordinal].metadata) ? 1 : 2;
      verdicts[ordinal] = verdict;
    }
    return verdict === 1;
  };
}

function queryVector(state: IndexState, req: SearchRequest): Float32Array {
  if (!req.vector) throw new Error(`embedded engine: ${req.mode} search needs a query vector`);
  if (req.vector.length !== state.dims) {
    throw new Error(
      `embedded engine: query vector has ${req.vector.length} dims, index "${state.name}" has ${state.dims}`,
    );
  }
  if (state.embedding && req.embedding && state.embedding !== req.embedding)
    throw new EmbeddingMismatchError(state.name, state.embedding, req.embedding);
  return req.vector;
}

/** The request's candidates by segment ordinal: its mode's retrievers, with the filter applied before top-k. */
function candidatesOf(state: IndexState, req: SearchRequest, passes: OrdinalFilter | undefined) {
  const segment = state.segment;
  const candidates = new Map<number, RankCandidate>();
  if (req.mode === "sparse") {
    for (const match of searchSparse(segment, req.text, req.limit, passes, state.scratch)) {
      candidates.set(match.ordinal, { id: segment.chunks[match.ordinal].id, sparse: match.bm25 });
    }
  } else if (req.mode === "dense") {
    for (const match of searchDense(segment, queryVector(state, req), req.limit, passes)) {
      candidates.set(match.ordinal, { id: segment.chunks[match.ordinal].id, dense: match.cosine });
    }
    offerUnvectored(segment, req, passes, state.scratch, candidates);
  } else {
    const vector = queryVector(state, req);
    const pool = hybridCandidateCount(req.limit);
    for (const match of searchDense(segment, vector, pool, passes)) {
      candidates.set(match.ordinal, { id: segment.chunks[match.ordinal].id, dense: match.cosine });
    }
    for (const match of searchSparse(segment, req.text, pool, passes, state.scratch)) {
      const known = candidates.get(match.ordinal);
      if (known) known.sparse = match.bm25;
      else {
        const cosine = cosineAt(segment, vector, match.ordinal);
        candidates.set(match.ordinal, {
          id: segment.chunks[match.ordinal].id,
          sparse: match.bm25,
          ...(cosine === undefined ? { unvectored: true as const } : { dense: cosine }),
        });
      }
    }
  }
  return candidates;
}

export async function search(ctx: EmbeddedContext, req: SearchRequest): Promise<SearchHit[]> {
  if (!Number.isInteger(req.limit) || req.limit < 0) throw new Error(`embedded engine: invalid limit ${req.limit}`);
  const state = await requireState(ctx, req.index);
  const segment = state.segment;
  if (req.limit === 0) return [];
  const passes = ordinalFilter(segment, req);
  const candidates = candidatesOf(state, req, passes);

  const ordinalById = new Map<string, number>();
  for (const [ordinal, candidate] of candidates) ordinalById.set(candidate.id, ordinal);
  const partial = withVectorsOf(segment) < segment.chunks.length;
  const ceiling = req.mode === "dense" && !partial ? 0 : sparseCeiling(segment, req.text);
  const ranked = rankCandidates(req.mode, [...candidates.values()], req.limit, ceiling, ctx.alpha);
  const end = req.keep ? documentsEnd(ranked, req.keep.rows, documentOfRow(segment, ordinalById, req.keep)) : 0;
  return (req.keep ? ranked.slice(0, end) : ranked).map((ranked): SearchHit => {
    // without its vector, as the OpenSearch adapter's: no caller of a search reads it (getChunks gives it)
    const { id, text, tokens, metadata } = segment.chunks[ordinalById.get(ranked.id) as number];
    const hit: SearchHit = { id: ranked.id, score: ranked.score, chunk: { id, text, tokens, metadata } };
    if (ranked.dense !== undefined) hit.dense = ranked.dense;
    if (ranked.sparse !== undefined) hit.sparse = ranked.sparse;
    return hit;
  });
}
