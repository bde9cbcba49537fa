// How the OpenSearch adapter turns retrievers' hits into ranked rows as the embedded engine ranks them: exact cosines
// from the vectors of the rows kept (checked against the cosines their scores stood for), the rows re-scored as far as
// a caller that keeps fewer rows needs, and the ranked rows with their chunks.
import { dotProduct, rankCandidates, type RankCandidate, type RankedCandidate } from "../../fusion.js";
import type { ChunkRecord, KeptRows, SearchHit } from "../../port.js";
import type { IndexInfo } from "./chunkDocuments.js";
import { cosineFromScore, DENSE_SCORE_COSINE_ERROR } from "./denseScoring.js";
import type { OpenSearchContext } from "./engineContext.js";
import { fetchKeptRows } from "./keptRows.js";
import { documentOfHit, idOf, type SearchResponseHit } from "./queryBuilder.js";
import { fetchChunks } from "./searchRetrievers.js";

/**
 * A kept row's exact cosine (fusion.ts's dotProduct of its vector, as in the embedded engine), checked against the
 * cosine its dense score stood for, if it had one.
 */
export function exactCosine(
  name: string,
  query: Float32Array,
  chunk: ChunkRecord,
  estimate: number | undefined,
): number | undefined {
  if (!chunk.vector) return undefined;
  const cosine = dotProduct(query, chunk.vector, 0, query.length);
  if (estimate !== undefined && !(Math.abs(cosine - estimate) <= DENSE_SCORE_COSINE_ERROR)) {
    throw new Error(
      `opensearch engine: the dense score of chunk ${chunk.id} in ${name} stands for cosine ${estimate}, ` +
        `its vector gives ${cosine}: the k-NN score formula is not the expected one`,
    );
  }
  return cosine;
}

/** The ranked rows with their chunks (without vectors: no caller of a search needs them). */
export function hitsOf(
  name: string,
  ranked: readonly RankedCandidate[],
  chunks: ReadonlyMap<string, ChunkRecord>,
): SearchHit[] {
  return ranked.map((candidate): SearchHit => {
    const stored = chunks.get(candidate.id);
    if (!stored) throw new Error(`opensearch engine: chunk ${candidate.id} vanished from ${name} during the search`);
    const { vector: _vector, ...chunk } = stored;
    const hit: SearchHit = { id: candidate.id, score: candidate.score, chunk };
    if (candidate.dense !== undefined) hit.dense = candidate.dense;
    if (candidate.sparse !== undefined) hit.sparse = candidate.sparse;
    return hit;
  });
}

/** What a search whose caller keeps fewer rows (SearchRequest.keep) knows of its candidates before fetching them. */
interface KeptCandidates {
  /** the candidates that may be in the list, by estimated score */
  byEstimate: readonly RankedCandidate[];
  /** candidate id -> the cosine its dense score stood for */
  estimates: ReadonlyMap<string, number>;
  /** candidate id -> its document from doc values, when known */
  documents: ReadonlyMap<string, string>;
}

/** A dense search's hits (ids, scores, documents from doc values) as candidates for keptRowsOf, by estimate. */
export function denseCandidates(
  hits: readonly SearchResponseHit[],
  info: Pick<IndexInfo, "vectorStorage">,
): KeptCandidates {
  const estimates = new Map<string, number>();
  const documents = new Map<string, string>();
  for (const hit of hits) {
    estimates.set(idOf(hit), cosineFromScore(info.vectorStorage, hit._score ?? 0));
    const doc = documentOfHit(hit);
    if (doc !== undefined) documents.set(idOf(hit), doc);
  }
  const candidates = [...estimates].map(([id, dense]): RankCandidate => ({ id, dense }));
  // dense ranking reads neither the sparse ceiling nor the hybrid weight
  return { byEstimate: rankCandidates("dense", candidates, candidates.length, 0), estimates, documents };
}

/**
 * The first rows of the list, through the first chunk of its `keep.rows`-th document (keptRows.ts): the candidates
 * are fetched into `chunks` and re-scored by `rescore` only as far as that needs, and `rank` ranks the rows re-scored
 * so far as the whole list would rank them.
 */
export function keptRowsOf(
  keep: KeptRows,
  candidates: KeptCandidates,
  chunks: ReadonlyMap<string, ChunkRecord>,
  rescore: (rows: readonly RankCandidate[]) => Promise<RankCandidate[]>,
  rank: (exact: readonly RankCandidate[]) => RankedCandidate[],
): Promise<RankedCandidate[]> {
  const exact: RankCandidate[] = [];
  return fetchKeptRows(candidates.byEstimate, {
    rows: keep.rows,
    error: DENSE_SCORE_COSINE_ERROR,
    estimated: (id) => candidates.estimates.has(id),
    documentHint: (id) => candidates.documents.get(id),
    rank: async (rows) => {
      exact.push(...(await rescore(rows)));
      return rank(exact);
    },
    documentOf: (row) => {
      const chunk = chunks.get(row.id) as ChunkRecord;
      return keep.drops(chunk) ? undefined : String(chunk.metadata.doc_id);
    },
  });
}

/**
 * The rows' sources and vectors fetched (one _mget) into `chunks`, and the rows with their exact cosines, checked
 * against the cosines their scores stood for.
 */
export async function rescored(
  ctx: OpenSearchContext,
  name: string,
  vector: Float32Array,
  rows: readonly RankCandidate[],
  estimates: ReadonlyMap<string, number>,
  chunks: Map<string, ChunkRecord>,
): Promise<RankCandidate[]> {
  for (const chunk of await fetchChunks(
    ctx,
    name,
    rows.map((row) => row.id),
  ))
    chunks.set(chunk.id, chunk);
  return rows.map(({ id, sparse }): RankCandidate => {
    const chunk = chunks.get(id);
    if (!chunk) throw new Error(`opensearch engine: chunk ${id} vanished from ${name} during the search`);
    const dense = exactCosine(name, vector, chunk, estimates.get(id));
    return dense === undefined ? { id, sparse, unvectored: true } : { id, sparse, dense };
  });
}
