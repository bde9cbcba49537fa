// The embedded engine's searchable form of one index: chunks by ordinal, an inverted index in typed arrays,
// and all vectors in one contiguous Float32Array. Immutable; new chunks are merged into a fresh segment.
import type { ChunkMetadata } from "../../port.js";
import { createVectorMatrix, type VectorMatrix } from "./denseKernel.js";
import { createDenseScreen, type DenseScreen } from "./denseScreen.js";
import { encodeLengthNorm } from "../../../text/luceneBm25.js";

/** A chunk as the segment keeps it: the vector lives in the segment's matrix, not here. */
export interface StoredChunk {
  id: string;
  text: string;
  tokens: number;
  metadata: ChunkMetadata;
  /** content fingerprint; an upsert with the same fingerprint is a no-op */
  fingerprint: string;
}

export interface IndexSegment {
  readonly dims: number;
  readonly chunks: readonly StoredChunk[];
  readonly ordinalById: ReadonlyMap<string, number>;
  /** chunkCount * dims floats, row per ordinal; rows without a vector are zero */
  readonly matrix: VectorMatrix;
  /** cheap bounds on the matrix's dot products, when the platform has WebAssembly SIMD */
  readonly screen: DenseScreen | undefined;
  /** 1 where the chunk has a vector */
  readonly hasVector: Uint8Array;
  /** exact number of BM25 terms per chunk */
  readonly lengths: Uint32Array;
  /** Lucene norm byte of each length */
  readonly norms: Uint8Array;
  readonly terms: readonly string[];
  readonly termIdByTerm: ReadonlyMap<string, number>;
  /** postings of term t are [postingStarts[t], postingStarts[t + 1]) in postingDocs/postingFreqs, docs ascending */
  readonly postingStarts: Uint32Array;
  readonly postingDocs: Uint32Array;
  readonly postingFreqs: Uint32Array;
  /** chunks with at least one BM25 term */
  readonly docCount: number;
  readonly sumTotalTermFreq: number;
}

/** A chunk waiting to be merged, already analyzed. */
export interface PendingChunk {
  chunk: StoredChunk;
  vector: Float32Array | undefined;
  /** distinct terms with their frequencies */
  termFreqs: Map<string, number>;
  length: number;
}

export function emptySegment(dims: number): IndexSegment {
  const matrix = createVectorMatrix(0, dims);
  return {
    dims,
    chunks: [],
    ordinalById: new Map(),
    matrix,
    screen: createDenseScreen(matrix),
    hasVector: new Uint8Array(0),
    lengths: new Uint32Array(0),
    norms: new Uint8Array(0),
    terms: [],
    termIdByTerm: new Map(),
    postingStarts: new Uint32Array(1),
    postingDocs: new Uint32Array(0),
    postingFreqs: new Uint32Array(0),
    docCount: 0,
    sumTotalTermFreq: 0,
  };
}

/** Term frequencies and length of an analyzed field. */
export function countTerms(terms: readonly string[]): { termFreqs: Map<string, number>; length: number } {
  const termFreqs = new Map<string, number>();
  for (const term of terms) termFreqs.set(term, (termFreqs.get(term) ?? 0) + 1);
  return { termFreqs, length: terms.length };
}

/**
 * A new segment holding the base's chunks except those replaced or deleted, followed by the pending chunks.
 * Surviving chunks keep their relative order, so every posting list stays sorted by ordinal.
 */
export function mergeSegment(
  base: IndexSegment,
  pending: readonly PendingChunk[],
  deleted: ReadonlySet<string> = new Set(),
): IndexSegment {
  const dims = base.dims;
  const replaced = new Set<string>(deleted);
  for (const entry of pending) replaced.add(entry.chunk.id);

  const oldCount = base.chunks.length;
  const newOrdinalOf = new Int32Array(oldCount).fill(-1);
  let kept = 0;
  for (let ordinal = 0; ordinal < oldCount; ordinal++) {
    if (!replaced.has(base.chunks[ordinal].id)) newOrdinalOf[ordinal] = kept++;
  }
  const chunkCount = kept + pending.length;

  const chunks: StoredChunk[] = new Array(chunkCount);
  const ordinalById = new Map<string, number>();
  const matrix = createVectorMatrix(chunkCount, dims);
  const vectors = matrix.vectors;
  const oldVectors = base.matrix.vectors;
  const hasVector = new Uint8Array(chunkCount);
  const lengths = new Uint32Array(chunkCount);
  for (let ordinal = 0; ordinal < oldCount; ordinal++) {
    const target = newOrdinalOf[ordinal];
    if (target < 0) continue;
    chunks[target] = base.chunks[ordinal];
    ordinalById.set(base.chunks[ordinal].id, target);
    if (base.hasVector[ordinal]) {
      vectors.set(oldVectors.subarray(ordinal * dims, (ordinal + 1) * dims), target * dims);
      hasVector[target] = 1;
    }
    lengths[target] = base.lengths[ordinal];
  }
  pending.forEach((entry, index) => {
    const target = kept + index;
    chunks[target] = entry.chunk;
    ordinalById.set(entry.chunk.id, target);
    if (entry.vector) {
      vectors.set(entry.vector, target * dims);
      hasVector[target] = 1;
    }
    lengths[target] = entry.length;
  });

  // Term dictionary: base terms first (ids kept for now), then new terms from pending chunks.
  const termIdByTerm = new Map<string, number>(base.termIdByTerm);
  const terms: string[] = [...base.terms];
  for (const entry of pending) {
    for (const term of entry.termFreqs.keys()) {
      if (!termIdByTerm.has(term)) {
        termIdByTerm.set(term, terms.length);
        terms.push(term);
      }
    }
  }
  const termCount = terms.length;
  const counts = new Uint32Array(termCount);
  for (let termId = 0; termId < base.terms.length; termId++) {
    for (let p = base.postingStarts[termId]; p < base.postingStarts[termId + 1]; p++) {
      if (newOrdinalOf[base.postingDocs[p]] >= 0) counts[termId]++;
    }
  }
  for (const entry of pending) {
    for (const term of entry.termFreqs.keys()) counts[termIdByTerm.get(term) as number]++;
  }

  // Drop terms left without postings and renumber the rest densely.
  const finalTermIdOf = new Int32Array(termCount).fill(-1);
  const finalTerms: string[] = [];
  for (let termId = 0; termId < termCount; termId++) {
    if (counts[termId] > 0) {
      finalTermIdOf[termId] = finalTerms.length;
      finalTerms.push(terms[termId]);
    }
  }
  const postingStarts = new Uint32Array(finalTerms.length + 1);
  let total = 0;
  for (let termId = 0; termId < termCount; termId++) {
    const finalId = finalTermIdOf[termId];
    if (finalId < 0) continue;
    postingStarts[finalId] = total;
    total += counts[termId];
  }
  postingStarts[finalTerms.length] = total;
  const postingDocs = new Uint32Array(total);
  const postingFreqs = new Uint32Array(total);
  const cursor = postingStarts.slice(0, finalTerms.length);
  for (let termId = 0; termId < base.terms.length; termId++) {
    const finalId = finalTermIdOf[termId];
    if (finalId < 0) continue;
    for (let p = base.postingStarts[termId]; p < base.postingStarts[termId + 1]; p++) {
      const target = newOrdinalOf[base.postingDocs[p]];
      if (target < 0) continue;
      const at = cursor[finalId]++;
      postingDocs[at] = target;
      postingFreqs[at] = base.postingFreqs[p];
    }
  }
  pending.forEach((entry, index) => {
    const ordinal = kept + index;
    for (const [term, freq] of entry.termFreqs) {
      const finalId = finalTermIdOf[termIdByTerm.get(term) as number];
      const at = cursor[finalId]++;
      postingDocs[at] = ordinal;
      postingFreqs[at] = freq;
    }
  });

  const finalTermIdByTerm = new Map<string, number>();
  finalTerms.forEach((term, termId) => finalTermIdByTerm.set(term, termId));
  return assembleSegment({
    dims,
    chunks,
    matrix,
    hasVector,
    lengths,
    terms: finalTerms,
    postingStarts,
    postingDocs,
    postingFreqs,
    ordinalById,
    termIdByTerm: finalTermIdByTerm,
  });
}

/** The parts a segment is built from (in memory after a merge, or read back from disk). */
interface SegmentParts {
  dims: number;
  chunks: StoredChunk[];
  matrix: VectorMatrix;
  hasVector: Uint8Array;
  lengths: Uint32Array;
  terms: string[];
  postingStarts: Uint32Array;
  postingDocs: Uint32Array;
  postingFreqs: Uint32Array;
  ordinalById?: Map<string, number>;
  termIdByTerm?: Map<string, number>;
}

/** Derives norms, field statistics and lookup maps from the stored parts. */
export function assembleSegment(parts: SegmentParts): IndexSegment {
  const chunkCount = parts.chunks.length;
  const norms = new Uint8Array(chunkCount);
  let docCount = 0;
  let sumTotalTermFreq = 0;
  for (let ordinal = 0; ordinal < chunkCount; ordinal++) {
    const length = parts.lengths[ordinal];
    norms[ordinal] = encodeLengthNorm(length);
    if (length > 0) docCount++;
    sumTotalTermFreq += length;
  }
  let ordinalById = parts.ordinalById;
  if (!ordinalById) {
    ordinalById = new Map();
    for (let ordinal = 0; ordinal < chunkCount; ordinal++) ordinalById.set(parts.chunks[ordinal].id, ordinal);
  }
  let termIdByTerm = parts.termIdByTerm;
  if (!termIdByTerm) {
    termIdByTerm = new Map();
    for (let termId = 0; termId < parts.terms.length; termId++) termIdByTerm.set(parts.terms[termId], termId);
  }
  return {
    dims: parts.dims,
    chunks: parts.chunks,
    ordinalById,
    matrix: parts.matrix,
    screen: createDenseScreen(parts.matrix),
    hasVector: parts.hasVector,
    lengths: parts.lengths,
    norms,
    terms: parts.terms,
    termIdByTerm,
    postingStarts: parts.postingStarts,
    postingDocs: parts.postingDocs,
    postingFreqs: parts.postingFreqs,
    docCount,
    sumTotalTermFreq,
  };
}
