// Dense scoring inside OpenSearch: vectors travel as little-endian Float32 bytes (base64 in JSON); without the k-NN
// plugin a painless script_score computes 1 + cosine with the same summation order as fusion.ts's dotProduct, with it
// a k-NN query scores (1 + cosine) / 2; either score is turned back into the cosine it stands for.
import { FIELD, type VectorStorage } from "./indexMapping.js";
import type { OpenSearchQuery } from "../../../filters/compileToOpenSearch.js";

export function encodeVector(vector: Float32Array): string {
  return Buffer.from(vector.buffer, vector.byteOffset, vector.byteLength).toString("base64");
}

export function decodeVector(base64: string): Float32Array {
  const bytes = Buffer.from(base64, "base64");
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
  return Float.intBitsToFloat((((int) b[p]) & 255) | ((((int) b[p + 1]) & 255) << 8)
    | ((((int) b[p + 2]) & 255) << 16) | (((int) b[p + 3]) << 24));
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
const BINARY_SCORE_SCRIPT = binaryDotScript("return 0.0;", "return 1.0 + sum;");

/** Field that holds a chunk's vector under the given storage. */
function vectorField(storage: VectorStorage): string {
  return storage === "knn" ? FIELD.vectorKnn : FIELD.vectorBinary;
}

/**
 * HNSW candidate list size at search time (Lucene engine) for the largest graphs; never below k. Measured with
 * bench:scale on one merged segment of 500,000 chunks (m 16, ef_construction 128), dense recall@10 against exact and
 * dense p50: ef_search 100 0.857 at 4.8 ms, 400 0.935 at 5.0 ms, 800 0.949 at 6.8 ms, 1600 0.965 at 12.1 ms (filtered
 * dense 25 ms). Past 800 each doubling buys about 0.015 of recall for twice the time, so 800 is the last step that
 * costs little. What is left tracks the copies per source rather than the size: the generated 500,000 are 49 jittered
 * copies of each SciFact chunk, and 50,000 made as 50 copies of 1,000 abstracts give 0.910 at 800, tight clusters that
 * HNSW graphs are known to link poorly (apache/lucene#13611); docs/measurements.md's scale section has the figures.
 * Smaller graphs are the lever that reaches 0.98: OPENSEARCH_SHARDS splits an index into graphs of their own.
 */
const HNSW_EF_SEARCH = 800;

/**
 * Graphs (an index's shards) up to this many chunks search with SMALL_GRAPH_EF_SEARCH. One graph of 150,000 chunks:
 * ef_search 400 gave dense recall@10 0.997 (filtered 0.999); a million chunks in 8 shards of 125,000: 400 gave 0.994
 * (0.997) at hybrid p50 41 ms, where 800 gave 1.000 at 61 ms; 100,000 chunks: 400 gave 1.000 (200: 0.997). On SciFact
 * (10,144 chunks) hybrid top 10 (ids and scores) at 400 equals 800's on 100 of 100 queries (200: 98), dense
 * recall@100 0.998, for a k-NN search costing the node about two thirds of 800's.
 */
const SMALL_GRAPH_CHUNKS = 150_000;
const SMALL_GRAPH_EF_SEARCH = 400;

/** One row of `GET _cat/shards/<index>?format=json&h=prirep,docs` (docs: null while a shard is unassigned). */
export interface ShardDocs {
  prirep: string;
  docs: string | null;
}

/** The chunks of an index's largest primary shard, from its `_cat/shards` rows: what efSearchFor is given. */
export function largestPrimaryShard(shards: readonly ShardDocs[]): number {
  return Math.max(0, ...shards.filter((shard) => shard.prirep === "p").map((shard) => Number(shard.docs ?? 0)));
}

/** The ef_search of an index whose largest shard holds this many chunks (unknown: the large graphs' setting). */
export function efSearchFor(chunksPerShard: number | undefined): number {
  return chunksPerShard !== undefined && chunksPerShard <= SMALL_GRAPH_CHUNKS ? SMALL_GRAPH_EF_SEARCH : HNSW_EF_SEARCH;
}

/**
 * The filtered chunks that have a vector, at most k of them, nearest to the query first.
 * binary storage: a script_score query scoring every candidate exactly (1 + cosine).
 * knn storage: an approximate k-NN query over the Lucene HNSW graph, the filter applied during the graph search
 * (Lucene falls back to exact search itself when the filter leaves few chunks). Callers rank by cosineFromScore and
 * compute the exact cosines of the rows they keep.
 */
export function denseQuery(
  query: Float32Array,
  storage: VectorStorage,
  filters: OpenSearchQuery[],
  k: number,
  efSearch = HNSW_EF_SEARCH,
): OpenSearchQuery {
  const field = vectorField(storage);
  const queryValues = Array.from(query);
  if (storage === "knn") {
    return {
      knn: {
        [field]: {
          vector: queryValues,
          k,
          method_parameters: { ef_search: Math.max(efSearch, k) },
          ...(filters.length > 0 ? { filter: { bool: { filter: filters } } } : {}),
        },
      },
    };
  }
  const candidates = { bool: { filter: [...filters, { exists: { field } }] } };
  return {
    script_score: {
      query: candidates,
      script: { lang: "painless", source: BINARY_SCORE_SCRIPT, params: { query: queryValues } },
    },
  };
}

/**
 * A clause that matches every chunk and scores it as the dense retriever does: (1 + cosine) / 2 with the k-NN plugin's
 * exact knn_score script (Java, no painless), 1 + cosine with the painless script without the plugin. In a filter,
 * under `_name`, it changes no hit and no score (without scores OpenSearch runs only its match_all) and is computed
 * for the hits returned only, as the score of the named clause (include_named_queries_score): a BM25 hit's cosine.
 */
export function cosineClause(query: Float32Array, storage: VectorStorage, name: string): OpenSearchQuery {
  const script =
    storage === "knn"
      ? {
          lang: "knn",
          source: "knn_score",
          params: { field: FIELD.vectorKnn, query_value: Array.from(query), space_type: "cosinesimil" },
        }
      : { lang: "painless", source: BINARY_SCORE_SCRIPT, params: { query: Array.from(query) } };
  return { script_score: { query: { match_all: {} }, script, _name: name } };
}

/**
 * The cosine a dense score stands for (a dense retriever's hit, or cosineClause's). knn storage: Lucene's cosine
 * score, (1 + cosine) / 2, as a float, of a cosine Lucene summed in float. binary storage: the script's 1 + cosine,
 * rounded to a float by OpenSearch. Either ranks candidates but is not the exact cosine of fusion.ts's dotProduct: the
 * adapter computes that from the vectors of the rows it keeps, within DENSE_SCORE_COSINE_ERROR of this.
 */
export function cosineFromScore(storage: VectorStorage, score: number): number {
  const rounded = Math.fround(score);
  return storage === "knn" ? 2 * rounded - 1 : rounded - 1;
}

/**
 * Bound on |cosineFromScore - exact cosine| for L2-normalized vectors. Lucene sums the 384 products of a cosine in
 * float one after the other, at most dims * 2^-24 (2.3e-5 at 384 dims) off, and the score's float adds 1.2e-7 at
 * most; measured on SciFact at 1.4e-7. Four times the worst case, so that no candidate is ever mis-ranked by it; a
 * larger gap means the plugin's score formula changed, and the adapter refuses the search rather than rank by it.
 */
export const DENSE_SCORE_COSINE_ERROR = 1e-4;
