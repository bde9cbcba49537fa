// Exact dense scoring inside OpenSearch: vectors travel as little-endian Float32 bytes (base64 in JSON), and a
// painless script_score computes 1 + cosine with the same summation order as fusion.ts's dotProduct.
import { FIELD, type VectorStorage } from './indexMapping.js';
import type { OpenSearchQuery } from '../../filters/compileToOpenSearch.js';

export function encodeVector(vector: Float32Array): string {
  return Buffer.from(vector.buffer, vector.byteOffset, vector.byteLength).toString('base64');
}

export function decodeVector(base64: string): Float32Array {
  const bytes = Buffer.from(base64, 'base64');
  const vector = new Float32Array(bytes.length / 4);
  new Uint8Array(vector.buffer).set(bytes);
  return vector;
}

/**
 * Painless computing the dot product of params.query and the stored vector into `sum`, then `finish`.
 * Four interleaved accumulators, combined as (s0 + s1) + (s2 + s3), then the tail: the order of fusion.ts.
 */
function binaryDotScript(withoutVector: string, finish: string): string {
  return `
float at(byte[] b, int p) {
  return Float.intBitsToFloat((((int) b[p]) & 255) | ((((int) b[p + 1]) & 255) << 8) | ((((int) b[p + 2]) & 255) << 16) | (((int) b[p + 3]) << 24));
}
if (doc['${FIELD.vectorBinary}'].size() == 0) { ${withoutVector} }
BytesRef v = doc['${FIELD.vectorBinary}'].value;
byte[] b = v.bytes;
int o = v.offset;
// params is a per-segment copy: unbox the query once per segment, not once per document
double[] q = params.queryArray;
if (q == null) {
  List query = params.query;
  q = new double[query.size()];
  for (int k = 0; k < q.length; k++) q[k] = (double) query.get(k);
  params.queryArray = q;
}
int dims = q.length;
int blockEnd = dims - dims % 4;
double s0 = 0; double s1 = 0; double s2 = 0; double s3 = 0;
int i = 0;
for (; i < blockEnd; i += 4) {
  int p = o + i * 4;
  s0 += q[i] * at(b, p);
  s1 += q[i + 1] * at(b, p + 4);
  s2 += q[i + 2] * at(b, p + 8);
  s3 += q[i + 3] * at(b, p + 12);
}
double sum = s0 + s1 + (s2 + s3);
for (; i < dims; i++) sum += q[i] * at(b, o + i * 4);
${finish}
`;
}

/** script_score: 1 + cosine (scores must not be negative; OpenSearch rounds the score to a float) */
const BINARY_SCORE_SCRIPT = binaryDotScript('return 0.0;', 'return 1.0 + sum;');
/** script field: the exact cosine as a double, bit-identical to fusion.ts's dotProduct */
const BINARY_COSINE_FIELD_SCRIPT = binaryDotScript('return null;', 'return sum;');

/** Name of the script field carrying the exact cosine. */
export const COSINE_FIELD = 'cosine';

/** Field that holds a chunk's vector under the given storage. */
export function vectorField(storage: VectorStorage): string {
  return storage === 'knn' ? FIELD.vectorKnn : FIELD.vectorBinary;
}

/** HNSW candidate list size at search time (Lucene engine); never below k. */
export const HNSW_EF_SEARCH = 100;

/**
 * The filtered chunks that have a vector, at most k of them, nearest to the query first.
 * binary storage: a script_score query scoring every candidate exactly (1 + cosine).
 * knn storage: an approximate k-NN query over the Lucene HNSW graph, the filter applied during the graph search
 * (Lucene falls back to exact search itself when the filter leaves few chunks). Callers recompute exact cosines.
 */
export function denseQuery(query: Float32Array, storage: VectorStorage, filters: OpenSearchQuery[], k: number): OpenSearchQuery {
  const field = vectorField(storage);
  const queryValues = Array.from(query);
  if (storage === 'knn') {
    return {
      knn: {
        [field]: {
          vector: queryValues,
          k,
          method_parameters: { ef_search: Math.max(HNSW_EF_SEARCH, k) },
          ...(filters.length > 0 ? { filter: { bool: { filter: filters } } } : {}),
        },
      },
    };
  }
  const candidates = { bool: { filter: [...filters, { exists: { field } }] } };
  return { script_score: { query: candidates, script: { lang: 'painless', source: BINARY_SCORE_SCRIPT, params: { query: queryValues } } } };
}

/**
 * script_fields computing each hit's exact cosine from the binary doc values, or undefined where the index has none
 * (k-NN indexes of mapping version 1: their cosine is computed from the _source vector).
 */
export function cosineScriptFields(query: Float32Array, binaryVectors: boolean): Record<string, unknown> | undefined {
  if (!binaryVectors) return undefined;
  return { [COSINE_FIELD]: { script: { lang: 'painless', source: BINARY_COSINE_FIELD_SCRIPT, params: { query: Array.from(query) } } } };
}
