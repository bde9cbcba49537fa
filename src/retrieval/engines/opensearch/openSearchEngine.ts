// The OpenSearch adapter of the retrieval port: one index per collection; BM25 and dense (k-NN or exact) retrievers run
// side by side with the compiled filter, then are ranked and fused in TypeScript by the same rules as the embedded
// engine, exact cosines computed here from the vectors of the rows kept.
// Beside it: the HTTP client (transport.ts), the stored chunk document (chunkDocuments.ts), the BM25 side's query DSL
// (queryBuilder.ts) and the dense side's (denseScoring.ts), collection inventories in one more index
// (inventoryStore.ts), and the merge of a k-NN index's graphs after a large write (graphMerge.ts).
// Updates are in place, by chunk id: upserts and deletions are staged in the live index and reach searches only at
// commit's refresh (refresh_interval -1, one shard: one refresh opens one new point-in-time searcher holding all of
// them; reads by id use realtime=false). Decided against a new index per change behind an alias swapped when complete:
// that copies the unchanged 99% and rebuilds every HNSW graph for a 1% upsert, where in place costs what changed. The
// price: a refresh is index-wide (whoever commits publishes everything staged in the index), and a node's crash
// recovery may publish a half-staged change, which the interrupted ingestion's next commit completes.
import { compileToOpenSearch, type OpenSearchQuery } from "../../../filters/compileToOpenSearch.js";
import {
  dotProduct,
  HYBRID_ALPHA,
  hybridCandidateCount,
  rankCandidates,
  type RankCandidate,
  type RankedCandidate,
} from "../../fusion.js";
import {
  EmbeddingMismatchError,
  type ChunkRecord,
  type KeptRows,
  type SearchEngine,
  type SearchHit,
  type SearchRequest,
  type VectorSearchMode,
} from "../../port.js";
import { chunkFingerprint } from "../../chunkFingerprint.js";
import { bm25Ceiling, bm25QueryTerms } from "../../../text/luceneBm25.js";
import {
  fromDocument,
  toDocument,
  WITHOUT_VECTORS,
  type ChunkDocument,
  type IndexInfo,
  type MgetResponseBody,
} from "./chunkDocuments.js";
import { cosineFromScore, DENSE_SCORE_COSINE_ERROR, denseQuery, efSearchFor } from "./denseScoring.js";
import { mergeGraphsIfWorthIt } from "./graphMerge.js";
import { fetchKeptRows } from "./keptRows.js";
import {
  chunkIndexBody,
  FIELD,
  mappingUpgradeBody,
  OPENSEARCH_MAPPING_VERSION,
  READABLE_MAPPING_VERSIONS,
  type IndexLayout,
  type VectorStorage,
} from "./indexMapping.js";
import { listIndexDocuments } from "./chunkScan.js";
import { createInventoryStore } from "./inventoryStore.js";
import {
  bm25HitsAsked,
  documentOfHit,
  idOf,
  IDS_AND_DOCUMENTS,
  IDS_ONLY,
  SEARCH_FILTER_PATH,
  searchBody,
  sparseQuery,
  TERM_VECTORS_FILTER_PATH,
  termVectorsBody,
  type SearchResponseBody,
  type SearchResponseHit,
  type TermVectorsBody,
} from "./queryBuilder.js";
import { createTransport } from "./transport.js";
import { facetCountsOver } from "./facetAggregations.js";
import { chunksLackingVectors, cosineOfChunks, createCoverageReader, vectorPresence } from "./vectorPresence.js";

export interface OpenSearchEngineOptions {
  /** e.g. http://127.0.0.1:9200, or every node of a cluster (requests go round them; a dead one is retried later) */
  url: string | readonly string[];
  /** shards and replicas of the indexes it creates (default: one shard, no replica) */
  indexLayout?: IndexLayout;
  /** prepended to collection names to form index names; lower-cased with them */
  indexPrefix?: string;
  /** chunks per bulk request */
  bulkBatchSize?: number;
  /** weight of the dense score in hybrid fusion (default HYBRID_ALPHA) */
  hybridAlpha?: number;
  /**
   * HNSW candidate list size of every k-NN query (default: efSearchFor the index's chunk count); the scale benchmark
   * varies it
   */
  efSearch?: number;
  /** told once which vector search the node allows: k-NN plugin (Lucene HNSW) or exact painless scoring */
  onVectorStorage?: (storage: VectorStorage, detail: string) => void;
}

const INDEX_NAME = /^[a-z0-9][a-z0-9._-]*$/;
/** Name of the clause that scores a BM25 hit's cosine in a hybrid search. */
const COSINE_CLAUSE = "cosine";
/** how long a chunk count read for an index's ef_search is used before it is read again (in the background) */
const CHUNK_COUNT_TTL_MS = 60_000;

/** An index's `_meta` when this adapter can read it; else an error that says to re-index. */
function readableMeta(
  name: string,
  meta: (Partial<IndexInfo> & { mappingVersion?: number }) | undefined,
): Partial<IndexInfo> & { dims: number; mappingVersion: number } {
  if (
    !meta ||
    typeof meta.dims !== "number" ||
    meta.mappingVersion === undefined ||
    !READABLE_MAPPING_VERSIONS.includes(meta.mappingVersion)
  )
    throw new Error(`opensearch engine: index ${name} was not created by this version of the adapter (re-index it)`);
  return meta as Partial<IndexInfo> & { dims: number; mappingVersion: number };
}

function queryVector(info: IndexInfo, req: SearchRequest): Float32Array {
  if (!req.vector) throw new Error(`opensearch engine: ${req.mode} search needs a query vector`);
  if (req.vector.length !== info.dims) {
    throw new Error(`opensearch engine: query vector has ${req.vector.length} dims, index has ${info.dims}`);
  }
  if (info.embedding && req.embedding && info.embedding !== req.embedding)
    throw new EmbeddingMismatchError(req.index, info.embedding, req.embedding);
  return req.vector;
}

/**
 * A kept row's exact cosine (fusion.ts's dotProduct of its vector, as in the embedded engine), checked against the
 * cosine its dense score stood for, if it had one.
 */
function exactCosine(
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

/**
 * A collection's index name: the prefix and its name, lower-cased; never the inventories' index nor a name OpenSearch
 * refuses.
 */
function chunkIndexName(prefix: string, index: string, inventoryIndex: string): string {
  const name = `${prefix}${index}`.toLowerCase();
  if (!INDEX_NAME.test(name) || Buffer.byteLength(name) > 255 || name === inventoryIndex) {
    throw new Error(`opensearch engine: invalid index name ${JSON.stringify(name)}`);
  }
  return name;
}

/** The ranked rows with their chunks (without vectors: no caller of a search needs them). */
function hitsOf(
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
function denseCandidates(hits: readonly SearchResponseHit[], info: Pick<IndexInfo, "vectorStorage">): KeptCandidates {
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
function keptRowsOf(
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

/** By collection index name: its chunk count as last read, which chooses its k-NN queries' ef_search. */
type ChunkCount = { chunks: number | undefined; readAt: number; reading?: Promise<void> };

/**
 * The ef_search of the index's k-NN queries: the option when given, else efSearchFor its chunk count. The count is
 * read once (searches arriving meanwhile wait for the same read), then again in the background at most once a
 * CHUNK_COUNT_TTL_MS (an ingestion in another process grows it); a failed background read keeps the last count.
 */
function efSearchReader(
  efSearch: number | undefined,
  countOf: (name: string) => Promise<number>,
  chunkCounts: Map<string, ChunkCount>,
): (name: string) => Promise<number> {
  return async (name) => {
    if (efSearch !== undefined) return efSearch;
    let count = chunkCounts.get(name);
    if (!count) chunkCounts.set(name, (count = { chunks: undefined, readAt: 0 }));
    if (!count.reading && Date.now() - count.readAt >= CHUNK_COUNT_TTL_MS) {
      const entry = count;
      entry.reading = countOf(name)
        .then((chunks) => {
          entry.chunks = chunks;
        })
        .catch((error: unknown) => {
          // nothing to fall back on: forget the entry, so that the next search asks again
          if (entry.chunks === undefined && chunkCounts.get(name) === entry) chunkCounts.delete(name);
          if (entry.chunks === undefined) throw error;
        })
        .finally(() => {
          entry.readAt = Date.now();
          entry.reading = undefined;
        });
    }
    if (count.chunks === undefined) await count.reading;
    return efSearchFor(count.chunks);
  };
}

/** The retrievers of the adapter a search during a vector backfill runs. */
interface BackfillRetrievers {
  runSearch(name: string, body: Record<string, unknown>): Promise<SearchResponseHit[]>;
  bestByBm25(
    name: string,
    query: OpenSearchQuery,
    size: number,
    fetch: Record<string, unknown>,
  ): Promise<SearchResponseHit[]>;
  sparseCeiling(name: string, text: string, terms: ReadonlyMap<string, number>): Promise<number>;
}

/**
 * Dense while the index's vector backfill runs: the nearest chunks with a vector beside the best chunks by BM25 of
 * those without one (fusion.ts: unvectored), every row fetched whole (a partial index is a passing state).
 */
async function denseDuringBackfill(
  retrievers: BackfillRetrievers,
  search: {
    name: string;
    info: IndexInfo;
    req: SearchRequest;
    query: OpenSearchQuery;
    filters: OpenSearchQuery[];
    alpha: number;
  },
): Promise<SearchHit[]> {
  const { name, info, req, query, filters } = search;
  const [hits, sparseHits, ceiling] = await Promise.all([
    retrievers.runSearch(name, searchBody(query, req.limit, { _source: true })),
    retrievers.bestByBm25(name, sparseQuery(req.text, [...filters, vectorPresence(info, false)]), req.limit, {
      _source: WITHOUT_VECTORS,
    }),
    retrievers.sparseCeiling(name, req.text, bm25QueryTerms(req.text)),
  ]);
  const chunks = new Map<string, ChunkRecord>();
  const candidates: RankCandidate[] = [];
  for (const hit of hits) {
    const id = idOf(hit);
    const chunk = fromDocument(id, hit._source ?? {});
    chunks.set(id, chunk);
    const estimate = cosineFromScore(info.vectorStorage, hit._score ?? 0);
    candidates.push({ id, dense: exactCosine(name, req.vector!, chunk, estimate) });
  }
  for (const hit of sparseHits) {
    const id = idOf(hit);
    chunks.set(id, fromDocument(id, hit._source ?? {}));
    candidates.push({ id, sparse: Math.fround(hit._score ?? 0), unvectored: true });
  }
  return hitsOf(name, rankCandidates("dense", candidates, req.limit, ceiling, search.alpha), chunks);
}

export function createOpenSearchEngine(options: OpenSearchEngineOptions): SearchEngine & {
  vectorSearchMode(): Promise<VectorSearchMode>;
  /** how this node scores vectors: 'knn' when the k-NN plugin is installed, else the painless fallback */
  vectorStorage(): Promise<VectorStorage>;
} {
  const transport = createTransport(options.url);
  const call = transport.call;
  const alpha = options.hybridAlpha ?? HYBRID_ALPHA;
  const prefix = options.indexPrefix ?? "litsearch-";
  const batchSize = options.bulkBatchSize ?? 500;
  const infoByIndex = new Map<string, IndexInfo>();
  let pluginStorage: Promise<VectorStorage> | undefined;
  const inventories = createInventoryStore(call, prefix, options.indexLayout);
  /** collection index names whose chunks changed since their last commit */
  const changedSinceCommit = new Set<string>();
  /** by collection index name: its chunk count as last read, which chooses its k-NN queries' ef_search */
  const chunkCounts = new Map<string, ChunkCount>();

  const coverageReader = createCoverageReader(call);
  const indexName = (index: string) => chunkIndexName(prefix, index, inventories.index);

  /**
   * 'knn' when the node runs the k-NN plugin, else 'binary' (exact painless scoring): checked once per engine. A plugin
   * that is loaded but cannot start, or a node that cannot be asked, leaves the exact fallback (a failed ask is
   * retried).
   */
  function detectVectorStorage(): Promise<VectorStorage> {
    pluginStorage ??= call<Array<{ component: string }>>("GET", "/_cat/plugins?format=json").then(({ body }) => {
      const plugin = body.find((entry) => /(^|[.-])knn([.-]|$)|KNNPlugin/i.test(entry.component));
      const storage: VectorStorage = plugin ? "knn" : "binary";
      options.onVectorStorage?.(
        storage,
        plugin
          ? `k-NN plugin ${plugin.component}: dense and hybrid run filtered k-NN queries on Lucene HNSW graphs`
          : "no k-NN plugin on the node: dense and hybrid score every filtered vector exactly (painless)",
      );
      return storage;
    });
    pluginStorage.catch(() => {
      pluginStorage = undefined;
    });
    return pluginStorage;
  }

  async function indexInfo(index: string): Promise<IndexInfo | undefined> {
    const known = infoByIndex.get(index);
    if (known) return known;
    const name = indexName(index);
    const { body, statusCode } = await call<
      Record<string, { mappings: { _meta?: Partial<IndexInfo> & { mappingVersion?: number } } }>
    >("GET", `/${name}/_mapping`, undefined, [404]);
    if (statusCode === 404) return undefined;
    const meta = readableMeta(name, body[name]?.mappings._meta);
    if (meta.mappingVersion < OPENSEARCH_MAPPING_VERSION)
      await call("PUT", `/${name}/_mapping`, mappingUpgradeBody(meta as Record<string, unknown>));
    const vectorStorage: VectorStorage = meta.vectorStorage === "knn" ? "knn" : "binary";
    const info: IndexInfo = {
      dims: meta.dims,
      embedding: typeof meta.embedding === "string" ? meta.embedding : null,
      vectorStorage,
      binaryVectors: vectorStorage === "binary" || meta.mappingVersion >= 2,
    };
    infoByIndex.set(index, info);
    return info;
  }

  async function requireInfo(index: string): Promise<IndexInfo> {
    const info = await indexInfo(index);
    if (!info) throw new Error(`opensearch engine: index "${indexName(index)}" does not exist`);
    return info;
  }

  async function countOf(name: string): Promise<number> {
    const { body } = await call<{ count: number }>("GET", `/${name}/_count`);
    return body.count;
  }

  const efSearchOf = efSearchReader(options.efSearch, countOf, chunkCounts);

  /** Indexes one batch, skipping chunks whose stored fingerprint is unchanged; throws on any item error. */
  async function indexBatch(name: string, info: IndexInfo, chunks: ChunkRecord[]): Promise<void> {
    // last occurrence of an id in the batch wins, as with sequential upserts
    const latest = new Map<string, ChunkRecord>();
    for (const chunk of chunks) latest.set(chunk.id, chunk);
    const ids = [...latest.keys()];
    const { body: existing } = await call<MgetResponseBody>(
      "POST",
      `/${name}/_mget?_source_includes=${FIELD.fingerprint}`,
      { ids },
    );
    const storedFingerprint = new Map<string, string | undefined>();
    for (const doc of existing.docs) if (doc.found) storedFingerprint.set(doc._id, doc._source?.[FIELD.fingerprint]);

    const bulkBody: unknown[] = [];
    for (const chunk of latest.values()) {
      const fingerprint = chunkFingerprint(chunk);
      if (storedFingerprint.get(chunk.id) === fingerprint) continue;
      bulkBody.push({ index: { _index: name, _id: chunk.id } }, toDocument(chunk, info, fingerprint));
    }
    if (bulkBody.length === 0) return;
    changedSinceCommit.add(name);
    const result = await transport.bulk(bulkBody);
    if (result.errors) {
      const failures = result.items
        .map((item) => Object.values(item)[0])
        .filter((outcome) => outcome.error !== undefined)
        .map((outcome) => `${outcome._id}: ${outcome.error?.type} ${outcome.error?.reason}`);
      throw new Error(
        `opensearch engine: ${failures.length} chunk(s) failed to index into ${name}: ` +
          `${failures.slice(0, 5).join("; ")}`,
      );
    }
  }

  /**
   * Deletes one batch by id; ids the index does not hold answer not_found and are ignored. Like an upsert, a deletion
   * is invisible to searches until commit's refresh.
   */
  async function deleteBatch(name: string, ids: readonly string[]): Promise<void> {
    const bulkBody = ids.map((id) => ({ delete: { _index: name, _id: id } }));
    const result = await transport.bulk(bulkBody);
    const outcomes = result.items.map((item) => Object.values(item)[0]);
    if (outcomes.some((outcome) => outcome.result === "deleted")) changedSinceCommit.add(name);
    const failures = outcomes.filter((outcome) => outcome.error !== undefined && outcome.status !== 404);
    if (failures.length > 0) {
      const detail = failures.map((outcome) => `${outcome._id}: ${outcome.error?.type} ${outcome.error?.reason}`);
      throw new Error(
        `opensearch engine: ${failures.length} chunk(s) failed to delete from ${name}: ` +
          `${detail.slice(0, 5).join("; ")}`,
      );
    }
  }

  /**
   * A retriever's hits, and only what this adapter reads of them (`filter_path`): no index name, sort values, took or
   * shard counts, which the node would write and the service parse for each of hundreds of hits. `params` starts with
   * `&` when given. A shard none of whose copies answers (a cluster that lost a node and the shard's only copy) fails
   * the search rather than leaving that shard's chunks out unseen: a customer is never charged for part of a
   * collection.
   */
  async function runSearch(name: string, body: Record<string, unknown>, params = ""): Promise<SearchResponseHit[]> {
    const { body: response } = await call<Partial<SearchResponseBody>>(
      "POST",
      `/${name}/_search?allow_partial_search_results=false&filter_path=${SEARCH_FILTER_PATH}${params}`,
      body,
    );
    // a response with no hits is filtered down to {}
    return response.hits?.hits ?? [];
  }

  /**
   * The `size` best chunks by BM25, ties broken by chunk id as in the embedded engine. Asked sorted by score alone, so
   * that Lucene skips the chunks that cannot compete (sorted by chunk id too it scores every match: 2.4 times the
   * work on SciFact), for a quarter more chunks than needed: when the last of those scores below the `size`-th, every
   * chunk tied with a kept one is among them, and they are ordered by chunk id here. Ties at the cut are common
   * (one-byte length norms: 11 of 100 SciFact queries tie at the 100th BM25 hit), longer than the margin rare: those
   * are asked again with both sorts.
   */
  async function bestByBm25(
    name: string,
    query: OpenSearchQuery,
    size: number,
    fetch: Record<string, unknown>,
    params = "",
  ): Promise<SearchResponseHit[]> {
    const asked = bm25HitsAsked(size);
    const hits = await runSearch(name, { size: asked, query, ...fetch, track_total_hits: false }, params);
    const ordered = hits
      .map((hit) => ({ hit, id: idOf(hit), score: hit._score ?? 0 }))
      .sort((a, b) => b.score - a.score || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
    if (hits.length < asked || ordered[ordered.length - 1].score < ordered[size - 1].score)
      return ordered.slice(0, size).map(({ hit }) => hit);
    return runSearch(name, searchBody(query, size, fetch), params);
  }

  /**
   * The query's BM25 ceiling from the index's statistics of its analyzed terms (document frequencies, and the number
   * of documents with the BM25 field), asked of the term vectors API for the query text as an artificial document:
   * a look-up in the terms dictionary, whatever the index's size, and the same statistics Lucene scores with (one
   * shard per index, so the shard's are the index's; like the scores, they count deleted documents until a merge
   * drops them, where a count of matches would not).
   */
  async function sparseCeiling(name: string, text: string, terms: ReadonlyMap<string, number>): Promise<number> {
    if (terms.size === 0) return 0;
    const { body } = await call<TermVectorsBody>(
      "POST",
      `/${name}/_termvectors?filter_path=${TERM_VECTORS_FILTER_PATH}`,
      termVectorsBody(text),
    );
    const field = body.term_vectors?.[FIELD.sparse];
    return bm25Ceiling(terms, (term) => field?.terms?.[term]?.doc_freq ?? 0, field?.field_statistics?.doc_count ?? 0);
  }

  /**
   * Chunks by id as of the last commit: `realtime=false` reads the searcher the last refresh opened, as searches do (a
   * realtime get would also read chunks staged since, before their commit).
   */
  async function fetchChunks(name: string, ids: string[], vectors = true): Promise<ChunkRecord[]> {
    if (ids.length === 0) return [];
    const excludes = vectors ? "" : `&_source_excludes=${WITHOUT_VECTORS.excludes.join(",")}`;
    const { body } = await call<Partial<MgetResponseBody>>(
      "POST",
      `/${name}/_mget?realtime=false&filter_path=docs._id,docs.found,docs._source,error${excludes}`,
      { ids },
    );
    return (body.docs ?? [])
      .filter((doc) => doc.found && doc._source)
      .map((doc) => fromDocument(doc._id, doc._source as ChunkDocument));
  }

  /** The `limit` best chunks by BM25, sources included, beside the query's ceiling. */
  async function searchSparse(name: string, req: SearchRequest, filters: OpenSearchQuery[]): Promise<SearchHit[]> {
    const [hits, ceiling] = await Promise.all([
      bestByBm25(name, sparseQuery(req.text, filters), req.limit, { _source: WITHOUT_VECTORS }),
      sparseCeiling(name, req.text, bm25QueryTerms(req.text)),
    ]);
    const chunks = new Map<string, ChunkRecord>();
    const candidates: RankCandidate[] = [];
    for (const hit of hits) {
      const id = idOf(hit);
      chunks.set(id, fromDocument(id, hit._source ?? {}));
      candidates.push({ id, sparse: Math.fround(hit._score ?? 0) });
    }
    return hitsOf(name, rankCandidates("sparse", candidates, req.limit, ceiling, alpha), chunks);
  }

  /** The `limit` nearest chunks, sources and vectors included: their exact cosines are computed here. */
  async function searchDense(
    name: string,
    info: IndexInfo,
    req: SearchRequest,
    vector: Float32Array,
    filters: OpenSearchQuery[],
  ): Promise<SearchHit[]> {
    const efSearch = await efSearchOf(name);
    const query = denseQuery(vector, info.vectorStorage, filters, req.limit, efSearch);
    if (await coverageReader.partial(name, info))
      return denseDuringBackfill({ runSearch, bestByBm25, sparseCeiling }, { name, info, req, query, filters, alpha });
    if (req.keep) {
      // ids, scores and documents first; then the sources and vectors of the rows that can reach the caller's rows
      const kept = denseCandidates(await runSearch(name, searchBody(query, req.limit, IDS_AND_DOCUMENTS)), info);
      const chunks = new Map<string, ChunkRecord>();
      const rescore = (rows: readonly RankCandidate[]) => rescored(name, vector, rows, kept.estimates, chunks);
      const ranked = await keptRowsOf(req.keep, kept, chunks, rescore, (exact) =>
        rankCandidates("dense", exact, req.limit, 0, alpha),
      );
      return hitsOf(name, ranked, chunks);
    }
    const hits = await runSearch(name, searchBody(query, req.limit, { _source: true }));
    const chunks = new Map<string, ChunkRecord>();
    const candidates: RankCandidate[] = [];
    for (const hit of hits) {
      const id = idOf(hit);
      const chunk = fromDocument(id, hit._source ?? {});
      chunks.set(id, chunk);
      candidates.push({
        id,
        dense: exactCosine(name, vector, chunk, cosineFromScore(info.vectorStorage, hit._score ?? 0)),
      });
    }
    return hitsOf(name, rankCandidates("dense", candidates, req.limit, 0, alpha), chunks);
  }

  /**
   * Hybrid in two round trips. First both retrievers and the ceiling, side by side: the dense one's hundreds of
   * candidates as ids and scores only (the score stands for the cosine), the BM25 one's with the cosine each of its
   * chunks scores (the embedded engine fuses those by cosine too) as the score of a named clause, which OpenSearch
   * computes for the hits returned only. Then the candidates are fused by those cosines, and the sources and vectors of
   * the rows kept are fetched (one _mget): every row whose exact score could still reach the `limit` best, that is the
   * `limit` best plus any within twice the cosine error of the last of them. Their exact cosines rank them again, as
   * the embedded engine ranks them. (_msearch would carry both retrievers in one request, but it returns no score of a
   * named clause, and the cosines in its BM25 search would cost more: a painless script field 25% of that search, the
   * vectors from doc values 2.5 times it; one more request costs a tenth of it.)
   */
  async function searchHybrid(
    name: string,
    info: IndexInfo,
    req: SearchRequest,
    vector: Float32Array,
    filters: OpenSearchQuery[],
  ): Promise<SearchHit[]> {
    const pool = hybridCandidateCount(req.limit);
    const efSearch = await efSearchOf(name);
    // while the vector backfill runs, the BM25 side also finds the chunks without a vector (fusion.ts: unvectored)
    const partial = await coverageReader.partial(name, info);
    // a caller that keeps fewer rows (req.keep) gets each candidate's document too, from doc values
    const fields = req.keep ? IDS_AND_DOCUMENTS : IDS_ONLY;
    const [denseHits, sparseHits, ceiling] = await Promise.all([
      runSearch(name, searchBody(denseQuery(vector, info.vectorStorage, filters, pool, efSearch), pool, fields)),
      bestByBm25(
        name,
        sparseQuery(req.text, [...filters, cosineOfChunks(vector, info, COSINE_CLAUSE, partial)]),
        pool,
        fields,
        "&include_named_queries_score=true",
      ),
      sparseCeiling(name, req.text, bm25QueryTerms(req.text)),
    ]);
    const candidates = new Map<string, RankCandidate>();
    const estimates = new Map<string, number>();
    const documents = new Map<string, string>();
    for (const hit of [...denseHits, ...sparseHits]) {
      const doc = documentOfHit(hit);
      if (doc !== undefined) documents.set(idOf(hit), doc);
    }
    for (const hit of denseHits) {
      const id = idOf(hit);
      const estimate = cosineFromScore(info.vectorStorage, hit._score ?? 0);
      estimates.set(id, estimate);
      candidates.set(id, { id, dense: estimate });
    }
    for (const hit of sparseHits) {
      const id = idOf(hit);
      const candidate: RankCandidate = candidates.get(id) ?? { id };
      const score =
        hit.matched_queries && !Array.isArray(hit.matched_queries) ? hit.matched_queries[COSINE_CLAUSE] : undefined;
      if (candidate.dense === undefined && score !== undefined) {
        candidate.dense = cosineFromScore(info.vectorStorage, score);
        estimates.set(id, candidate.dense);
      } else if (partial && candidate.dense === undefined) candidate.unvectored = true;
      candidate.sparse = Math.fround(hit._score ?? 0);
      candidates.set(id, candidate);
    }

    const byEstimate = rankCandidates("hybrid", [...candidates.values()], candidates.size, ceiling, alpha);
    const floor =
      byEstimate.length > req.limit ? byEstimate[req.limit - 1].score - 2 * DENSE_SCORE_COSINE_ERROR : -Infinity;
    const kept = byEstimate.filter((candidate) => candidate.score >= floor);
    const chunks = new Map<string, ChunkRecord>();
    const rescore = (rows: readonly RankCandidate[]) => rescored(name, vector, rows, estimates, chunks);
    if (!req.keep)
      return hitsOf(name, rankCandidates("hybrid", await rescore(kept), req.limit, ceiling, alpha), chunks);

    // only the rows that can reach the caller's `keep.rows` (keptRows.ts); the rest if the first fetch does not settle
    const ranked = await keptRowsOf(req.keep, { byEstimate: kept, estimates, documents }, chunks, rescore, (exact) =>
      rankCandidates("hybrid", exact, req.limit, ceiling, alpha),
    );
    return hitsOf(name, ranked, chunks);
  }

  /**
   * The rows' sources and vectors fetched (one _mget) into `chunks`, and the rows with their exact cosines, checked
   * against the cosines their scores stood for.
   */
  async function rescored(
    name: string,
    vector: Float32Array,
    rows: readonly RankCandidate[],
    estimates: ReadonlyMap<string, number>,
    chunks: Map<string, ChunkRecord>,
  ): Promise<RankCandidate[]> {
    for (const chunk of await fetchChunks(
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

  return {
    kind: "opensearch",

    vectorStorage: detectVectorStorage,

    async vectorSearchMode() {
      return (await detectVectorStorage()) === "knn" ? "lucene-hnsw" : "exact";
    },

    async ensureIndex(index, dims, embedding) {
      if (!Number.isInteger(dims) || dims <= 0) throw new Error(`opensearch engine: invalid dims ${dims}`);
      const existing = await indexInfo(index);
      if (existing) {
        if (existing.dims !== dims)
          throw new Error(
            `opensearch engine: index "${indexName(index)}" has ${existing.dims} dims, asked for ${dims}`,
          );
        if (existing.embedding && embedding && existing.embedding !== embedding)
          throw new EmbeddingMismatchError(index, existing.embedding, embedding);
        return;
      }
      const name = indexName(index);
      const vectorStorage = await detectVectorStorage();
      const { body, statusCode } = await call<{ error?: { type: string; reason: string } }>(
        "PUT",
        `/${name}`,
        chunkIndexBody(dims, vectorStorage, embedding, options.indexLayout),
        [400],
      );
      if (statusCode === 400 && body.error?.type !== "resource_already_exists_exception") {
        throw new Error(`opensearch engine: creating ${name} failed: ${body.error?.type} ${body.error?.reason}`);
      }
      await requireInfo(index);
    },

    async embeddingOf(index) {
      return (await indexInfo(index))?.embedding ?? null;
    },

    async indexChunks(index, chunks) {
      const info = await requireInfo(index);
      const name = indexName(index);
      for (let start = 0; start < chunks.length; start += batchSize) {
        await indexBatch(name, info, chunks.slice(start, start + batchSize));
      }
    },

    async deleteChunks(index, ids) {
      await requireInfo(index);
      const name = indexName(index);
      const unique = [...new Set(ids)];
      for (let start = 0; start < unique.length; start += batchSize) {
        await deleteBatch(name, unique.slice(start, start + batchSize));
      }
    },

    async commit(index) {
      const info = await requireInfo(index);
      const name = indexName(index);
      await call("POST", `/${name}/_refresh`);
      const chunksChanged = changedSinceCommit.has(name);
      if (info.vectorStorage === "knn" && chunksChanged) await mergeGraphsIfWorthIt(call, name);
      await inventories.commit(name, chunksChanged);
      // this process's searches read the new count at once (others within CHUNK_COUNT_TTL_MS)
      chunkCounts.delete(name);
      if (chunksChanged) await coverageReader.refresh(name, info).catch(() => coverageReader.forget(name));
      changedSinceCommit.delete(name);
    },

    async putInventory(index, inventory) {
      await requireInfo(index);
      inventories.stage(indexName(index), inventory);
    },

    async getInventory(index) {
      if (!(await indexInfo(index))) return null;
      return inventories.get(indexName(index), index);
    },

    async search(req) {
      if (!Number.isInteger(req.limit) || req.limit < 0)
        throw new Error(`opensearch engine: invalid limit ${req.limit}`);
      const info = await requireInfo(req.index);
      const name = indexName(req.index);
      if (req.limit === 0) return [];
      const filters = req.filter ? [compileToOpenSearch(req.filter)] : [];
      if (req.mode === "sparse") return searchSparse(name, req, filters);
      const vector = queryVector(info, req);
      return req.mode === "dense"
        ? searchDense(name, info, req, vector, filters)
        : searchHybrid(name, info, req, vector, filters);
    },

    async getChunks(index, ids) {
      await requireInfo(index);
      return fetchChunks(indexName(index), ids);
    },

    async countChunks(index, filter) {
      await requireInfo(index);
      const { body } = await call<{ count: number }>("POST", `/${indexName(index)}/_count`, {
        query: { bool: { filter: [compileToOpenSearch(filter)] } },
      });
      return body.count;
    },

    async findChunks(index, filter, limit) {
      await requireInfo(index);
      const { body } = await call<{ hits: { hits: { _id: string; _source: ChunkDocument }[] } }>(
        "POST",
        `/${indexName(index)}/_search`,
        {
          size: limit,
          query: { bool: { filter: [compileToOpenSearch(filter)] } },
        },
      );
      return body.hits.hits.map((hit) => fromDocument(hit._id, hit._source));
    },

    async listDocuments(index, filter, fields) {
      await requireInfo(index);
      return listIndexDocuments(call, indexName(index), filter, fields);
    },

    facetCounts: facetCountsOver(call, indexName, options.indexLayout),

    vectorCoverage: async (index) => coverageReader.coverage(indexName(index), await requireInfo(index)),
    chunksWithoutVectors: async (index, limit) =>
      chunksLackingVectors(call, indexName(index), await requireInfo(index), limit),

    async stats(index) {
      await requireInfo(index);
      const name = indexName(index);
      const [chunks, { body: stats }] = await Promise.all([
        countOf(name),
        call<{ indices: Record<string, { primaries: { store: { size_in_bytes: number } } }> }>(
          "GET",
          `/${name}/_stats/store`,
        ),
      ]);
      return { chunks, bytes: stats.indices[name]?.primaries.store.size_in_bytes ?? 0 };
    },

    async hasIndex(index) {
      return (await indexInfo(index)) !== undefined;
    },

    async deleteIndex(index) {
      infoByIndex.delete(index);
      const name = indexName(index);
      changedSinceCommit.delete(name);
      chunkCounts.delete(name);
      await call("DELETE", `/${name}`, undefined, [404]);
      await inventories.delete(name);
    },

    async ping() {
      try {
        const { statusCode } = await call("GET", "/_cluster/health?timeout=5s");
        return statusCode === 200;
      } catch {
        return false;
      }
    },

    async close() {
      await transport.close();
    },
  };
}
