// BM25 exactly as OpenSearch scores it (Lucene's BM25Similarity behind OpenSearch's LegacyBM25Similarity),
// including the lossy one-byte document-length norm and float arithmetic, so embedded scores equal OpenSearch's.
import { analyzeEnglish } from "./englishAnalyzer.js";

/** BM25 term-frequency saturation (Lucene and OpenSearch default). */
export const BM25_K1 = 1.2;
/** BM25 length normalization (Lucene and OpenSearch default). */
export const BM25_B = 0.75;

const f32 = Math.fround;

/** Lengths below this are stored exactly by SmallFloat.intToByte4. */
const NORM_FREE_VALUES = 24;

/** SmallFloat.longToInt4: 4 significant bits (one implicit) and a shift. */
function longToInt4(value: number): number {
  const bits = 32 - Math.clz32(value);
  if (bits < 4) return value;
  const shift = bits - 4;
  let encoded = (value >>> shift) & 0x07;
  encoded |= (shift + 1) << 3;
  return encoded;
}

function int4ToLong(encoded: number): number {
  const bits = encoded & 0x07;
  const shift = (encoded >>> 3) - 1;
  return shift === -1 ? bits : (bits | 0x08) * 2 ** shift;
}

/** SmallFloat.intToByte4: the norm byte Lucene stores for a field of `length` terms. */
export function encodeLengthNorm(length: number): number {
  if (length < NORM_FREE_VALUES) return length;
  return NORM_FREE_VALUES + longToInt4(length - NORM_FREE_VALUES);
}

/** SmallFloat.byte4ToInt: the length Lucene assumes for a stored norm byte. */
export function decodeLengthNorm(norm: number): number {
  if (norm < NORM_FREE_VALUES) return norm;
  return NORM_FREE_VALUES + int4ToLong(norm - NORM_FREE_VALUES);
}

const LENGTH_TABLE: Float32Array = (() => {
  const table = new Float32Array(256);
  for (let norm = 0; norm < 256; norm++) table[norm] = decodeLengthNorm(norm);
  return table;
})();

/** Collection statistics of the BM25 field. */
interface Bm25FieldStats {
  /** documents with at least one term in the field */
  docCount: number;
  /** total number of terms in the field over all documents */
  sumTotalTermFreq: number;
}

/** Lucene's idf: ln(1 + (N - df + 0.5) / (df + 0.5)), rounded to float. */
export function bm25Idf(docFreq: number, docCount: number): number {
  return f32(Math.log(1 + (docCount - docFreq + 0.5) / (docFreq + 0.5)));
}

/**
 * Per-query scorer state: 1 / (k1 * (1 - b + b * length / avgdl)) for each of the 256 norm bytes.
 * Built once per query, shared by all its terms.
 */
export function bm25NormInverseTable(stats: Bm25FieldStats): Float32Array {
  const avgdl = f32(stats.sumTotalTermFreq / stats.docCount);
  const k1 = f32(BM25_K1);
  const b = f32(BM25_B);
  const oneMinusB = f32(1 - b);
  const table = new Float32Array(256);
  for (let norm = 0; norm < 256; norm++) {
    table[norm] = f32(1 / f32(k1 * f32(oneMinusB + f32(f32(b * LENGTH_TABLE[norm]) / avgdl))));
  }
  return table;
}

/**
 * The weight of one distinct query term: boost * idf, where the legacy similarity multiplies the boost by (k1 + 1)
 * and a term repeated `queryTermCount` times in the query is one clause boosted by that count.
 */
export function bm25TermWeight(idf: number, queryTermCount: number): number {
  const boost = f32(queryTermCount * f32(1 + f32(BM25_K1)));
  return f32(boost * idf);
}

/** Score of one term in one document: weight - weight / (1 + freq * normInverse), all in float. */
export function bm25TermScore(weight: number, freq: number, normInverse: number): number {
  return f32(weight - f32(weight / f32(1 + f32(freq * normInverse))));
}

/** Distinct analyzed query terms with how often each occurs in the query (a repeated term is one boosted clause). */
export function bm25QueryTerms(text: string): Map<string, number> {
  const counts = new Map<string, number>();
  for (const term of analyzeEnglish(text)) counts.set(term, (counts.get(term) ?? 0) + 1);
  return counts;
}

/**
 * The query's BM25 ceiling in one index: the sum of its terms' weights, which is what a chunk saturated with every
 * term would score (each term's score tends to its weight as its frequency grows). Terms the index does not hold
 * count too (document frequency 0): a collection that lacks part of the query matches it less. Summed in the
 * terms' order as float, so both engines compute the same value from the same statistics.
 */
export function bm25Ceiling(
  terms: ReadonlyMap<string, number>,
  docFreqOf: (term: string) => number,
  docCount: number,
): number {
  if (docCount <= 0) return 0;
  let ceiling = 0;
  for (const [term, queryCount] of terms)
    ceiling = f32(ceiling + bm25TermWeight(bm25Idf(docFreqOf(term), docCount), queryCount));
  return ceiling;
}
