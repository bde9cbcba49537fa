// The OpenSearch adapter of the retrieval port: one index per collection; BM25 and dense (k-NN or exact) retrievers run
// side by side with the compiled filter, then are ranked and fused in TypeScript by the same rules as the embedded
// engine, exact cosines computed here from the vectors of the rows kept.
// Collection inventories live in one more index, a document per collection index, written when ingest commits.
// Updates are in place, by chunk id: upserts and deletions are staged in the live index and reach searches only at
// commit's refresh (refresh_interval -1, one shard: one refresh opens one new point-in-time searcher holding all of
// them; reads by id use realtime=false). Decided against a new index per change behind an alias swapped when complete:
// that copies the unchanged 99% and rebuilds every HNSW graph for a 1% upsert, where in place costs what changed. The
// price: a refresh is index-wide (whoever commits publishes everything staged in the index), and a node's crash
// recovery may publish a half-staged change, which the interrupted ingestion's next commit completes.
import { Client } from '@opensearch-project/opensearch';
import { InventoryTally, type CollectionInventory } from '../../../domain/inventory.js';
import { compileToOpenSearch, type OpenSearchQuery } from '../../../filters/compileToOpenSearch.js';
import { dotProduct, HYBRID_ALPHA, hybridCandidateCount, rankCandidates, type RankCandidate, type RankedCandidate } from '../../fusion.js';
import type { ChunkMetadata, ChunkRecord, SearchEngine, SearchHit, SearchRequest, VectorSearchMode } from '../../port.js';
import { chunkFingerprint } from '../../text/chunkFingerprint.js';
import { bm25Ceiling, bm25QueryTerms } from '../../text/luceneBm25.js';
import { cosineClause, cosineFromScore, decodeVector, DENSE_SCORE_COSINE_ERROR, denseQuery, efSearchFor, encodeVector } from './denseScoring.js';
import { chunkIndexBody, FIELD, inventoryIndexBody, READABLE_MAPPING_VERSIONS, type VectorStorage } from './indexMapping.js';

export interface OpenSearchEngineOptions {
  /** e.g. http://127.0.0.1:9200 */
  url: string;
  /** prepended to collection names to form index names; lower-cased with them */
  indexPrefix?: string;
  /** chunks per bulk request */
  bulkBatchSize?: number;
  /** weight of the dense score in hybrid fusion (default HYBRID_ALPHA) */
  hybridAlpha?: number;
  /** HNSW candidate list size of every k-NN query (default: efSearchFor the index's chunk count); the scale benchmark varies it */
  efSearch?: number;
  /** told once which vector search the node allows: k-NN plugin (Lucene HNSW) or exact painless scoring */
  onVectorStorage?: (storage: VectorStorage, detail: string) => void;
}

/** The document stored per chunk. */
interface ChunkDocument {
  [FIELD.chunkId]: string;
  [FIELD.text]: string;
  [FIELD.tokens]: number;
  [FIELD.metadata]: ChunkMetadata;
  [FIELD.fingerprint]: string;
  [FIELD.vectorBinary]?: string;
  [FIELD.vectorKnn]?: number[];
}

interface SearchResponseHit {
  /** absent when the search asked for no stored field (IDS_ONLY) */
  _id?: string;
  fields?: Record<string, unknown[] | undefined>;
  _score: number | null;
  _source?: ChunkDocument;
  /** with include_named_queries_score: the score of each named clause the hit matched */
  matched_queries?: Record<string, number> | string[];
  sort?: unknown[];
}

interface SearchResponseBody {
  hits: { hits: SearchResponseHit[] };
}


/** The term vectors API's answer for an artificial document: the index's statistics of its analyzed terms. */
interface TermVectorsBody {
  term_vectors?: Record<string, { field_statistics?: { doc_count: number }; terms?: Record<string, { doc_freq?: number }> }>;
}

/**
 * What a retriever's hit brings when only its id and score are needed: the chunk id from doc values and no stored field.
 * Even the _id is a stored field, read by decompressing the block of stored fields its chunk sits in, which made the
 * fetch of 100 hits ids most of a search's time (SciFact: a BM25 search 2.7 times, a k-NN search 1.7 times faster
 * without it).
 */
const IDS_ONLY = { stored_fields: '_none_', docvalue_fields: [FIELD.chunkId] };

/** The chunk id of a hit fetched with IDS_ONLY (or with its _id). */
function idOf(hit: SearchResponseHit): string {
  const id = hit._id ?? hit.fields?.[FIELD.chunkId]?.[0];
  if (typeof id !== 'string') throw new Error('opensearch engine: a search hit came without its chunk id');
  return id;
}

/**
 * What a retriever's response carries (see runSearch): per hit, its id (absent with IDS_ONLY), score, fetched fields,
 * source and named scores; and an error's description, which a filter_path would otherwise drop as well.
 */
const SEARCH_FILTER_PATH = [...['_id', '_score', 'fields', '_source', 'matched_queries'].map((field) => `hits.hits.${field}`), 'error'].join(',');

/** What the ceiling reads of the term vectors API's answer: the document count and each term's document frequency. */
const TERM_VECTORS_FILTER_PATH = `term_vectors.${FIELD.sparse}.field_statistics.doc_count,term_vectors.${FIELD.sparse}.terms.*.doc_freq,error`;

/** Vector fields a search response needs in _source only where this adapter computes exact cosines from them. */
const WITHOUT_VECTORS = { excludes: [FIELD.vectorBinary, FIELD.vectorKnn] };

interface MgetResponseBody {
  docs: Array<{ _id: string; found: boolean; _source?: Partial<ChunkDocument> }>;
}

interface BulkResponseBody {
  errors: boolean;
  items: Array<Record<string, { _id: string; status: number; result?: string; error?: { type: string; reason: string } }>>;
}

interface IndexInfo {
  dims: number;
  vectorStorage: VectorStorage;
  /** the vector is also in the binary doc-values field (always with binary storage; k-NN indexes since mapping version 2) */
  binaryVectors: boolean;
}

/** The document stored per collection index in the inventory index (its id is the collection index's name). */
interface InventoryDocument {
  index: string;
  /** true when getInventory rebuilt it from the chunks of an index ingested without one */
  rebuilt: boolean;
  /**
   * null after a commit that changed the chunks without a new inventory: the marker that getInventory rebuilds one,
   * stored only if no commit wrote the document since it read the marker (so a rebuild from chunks a concurrent commit
   * replaced never outlives that commit)
   */
  inventory: CollectionInventory | null;
}

/** The stored inventory document's state: absent, a marker asking for a rebuild, or an inventory. */
interface StoredInventory {
  /** `if_seq_no=..&if_primary_term=..` of the document read, undefined when there is none */
  version: string | undefined;
  inventory: CollectionInventory | undefined;
}

interface GetResponseBody<T> {
  found?: boolean;
  _seq_no?: number;
  _primary_term?: number;
  _source?: T;
}

const INDEX_NAME = /^[a-z0-9][a-z0-9._-]*$/;
/** Name of the clause that scores a BM25 hit's cosine in a hybrid search. */
const COSINE_CLAUSE = 'cosine';
/** Appended to the prefix for the inventory index; a catalogue name cannot start with "_", so no collection maps onto it. */
const INVENTORY_INDEX_SUFFIX = '_inventory';
/** share of an index's documents outside its largest segment above which commit merges its k-NN graphs into one */
const MERGE_WHEN_OUTSIDE_LARGEST = 0.2;
/** how long a chunk count read for an index's ef_search is used before it is read again (in the background) */
const CHUNK_COUNT_TTL_MS = 60_000;
/** first chunks read per request when an inventory is rebuilt from an index */
const INVENTORY_SCAN_PAGE = 2_000;

export function createOpenSearchEngine(options: OpenSearchEngineOptions): SearchEngine & {
  vectorSearchMode(): Promise<VectorSearchMode>;
  /** how this node scores vectors: 'knn' when the k-NN plugin is installed, else the painless fallback */
  vectorStorage(): Promise<VectorStorage>;
} {
  const client = new Client({ node: options.url });
  const alpha = options.hybridAlpha ?? HYBRID_ALPHA;
  const prefix = options.indexPrefix ?? 'litsearch-';
  const batchSize = options.bulkBatchSize ?? 500;
  const infoByIndex = new Map<string, IndexInfo>();
  let pluginStorage: Promise<VectorStorage> | undefined;
  const inventoryIndex = `${prefix}${INVENTORY_INDEX_SUFFIX}`.toLowerCase();
  let inventoryIndexReady: Promise<void> | undefined;
  /** by collection index name: inventories put since the last commit, and indexes whose chunks changed since it */
  const stagedInventories = new Map<string, CollectionInventory>();
  const changedSinceCommit = new Set<string>();
  /** inventories read, with the sequence number and primary term of the document they were read from */
  const readInventories = new Map<string, { version: string; inventory: CollectionInventory | undefined }>();
  /** by collection index name: its chunk count as last read, which chooses its k-NN queries' ef_search */
  const chunkCounts = new Map<string, { chunks: number; readAt: number; reading?: Promise<number> }>();

  async function call<T>(method: string, path: string, body?: unknown, ignore: number[] = []): Promise<{ body: T; statusCode: number }> {
    const response = await client.transport.request(
      body === undefined ? { method, path } : { method, path, body: body as Record<string, unknown> },
      { ignore },
    );
    return { body: response.body as T, statusCode: response.statusCode ?? 0 };
  }

  function indexName(index: string): string {
    const name = `${prefix}${index}`.toLowerCase();
    if (!INDEX_NAME.test(name) || Buffer.byteLength(name) > 255 || name === inventoryIndex) {
      throw new Error(`opensearch engine: invalid index name ${JSON.stringify(name)}`);
    }
    return name;
  }

  /**
   * 'knn' when the node runs the k-NN plugin, else 'binary' (exact painless scoring): checked once per engine. A plugin
   * that is loaded but cannot start, or a node that cannot be asked, leaves the exact fallback (a failed ask is retried).
   */
  function detectVectorStorage(): Promise<VectorStorage> {
    pluginStorage ??= call<Array<{ component: string }>>('GET', '/_cat/plugins?format=json').then(({ body }) => {
      const plugin = body.find((entry) => /(^|[.-])knn([.-]|$)|KNNPlugin/i.test(entry.component));
      const storage: VectorStorage = plugin ? 'knn' : 'binary';
      options.onVectorStorage?.(
        storage,
        plugin
          ? `k-NN plugin ${plugin.component}: dense and hybrid run filtered k-NN queries on Lucene HNSW graphs`
          : 'no k-NN plugin on the node: dense and hybrid score every filtered vector exactly (painless)',
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
    const { body, statusCode } = await call<Record<string, { mappings: { _meta?: Partial<IndexInfo> & { mappingVersion?: number } } }>>(
      'GET',
      `/${name}/_mapping`,
      undefined,
      [404],
    );
    if (statusCode === 404) return undefined;
    const meta = body[name]?.mappings._meta;
    if (!meta || typeof meta.dims !== 'number' || meta.mappingVersion === undefined || !READABLE_MAPPING_VERSIONS.includes(meta.mappingVersion)) {
      throw new Error(`opensearch engine: index ${name} was not created by this version of the adapter (re-index it)`);
    }
    const vectorStorage: VectorStorage = meta.vectorStorage === 'knn' ? 'knn' : 'binary';
    const info: IndexInfo = { dims: meta.dims, vectorStorage, binaryVectors: vectorStorage === 'binary' || meta.mappingVersion >= 2 };
    infoByIndex.set(index, info);
    return info;
  }

  async function requireInfo(index: string): Promise<IndexInfo> {
    const info = await indexInfo(index);
    if (!info) throw new Error(`opensearch engine: index "${indexName(index)}" does not exist`);
    return info;
  }

  async function countOf(name: string): Promise<number> {
    const { body } = await call<{ count: number }>('GET', `/${name}/_count`);
    return body.count;
  }

  /**
   * The ef_search of the index's k-NN queries: the option when given, else efSearchFor its chunk count. The count is read
   * once, then again in the background at most once a CHUNK_COUNT_TTL_MS (an ingestion in another process grows it), so
   * a search waits for it only the first time; a failed read keeps the last count.
   */
  async function efSearchOf(name: string): Promise<number> {
    if (options.efSearch !== undefined) return options.efSearch;
    const known = chunkCounts.get(name);
    if (known && Date.now() - known.readAt < CHUNK_COUNT_TTL_MS) return efSearchFor(known.chunks);
    if (known?.reading) return efSearchFor(known.chunks);
    const reading = countOf(name).then(
      (chunks) => {
        chunkCounts.set(name, { chunks, readAt: Date.now() });
        return chunks;
      },
      (error: unknown) => {
        if (!known) {
          chunkCounts.delete(name);
          throw error;
        }
        chunkCounts.set(name, { chunks: known.chunks, readAt: Date.now() });
        return known.chunks;
      },
    );
    if (known) {
      chunkCounts.set(name, { ...known, reading });
      return efSearchFor(known.chunks);
    }
    return efSearchFor(await reading);
  }

  function toDocument(chunk: ChunkRecord, info: IndexInfo, fingerprint: string): ChunkDocument {
    const document: ChunkDocument = {
      [FIELD.chunkId]: chunk.id,
      [FIELD.text]: chunk.text,
      [FIELD.tokens]: chunk.tokens,
      [FIELD.metadata]: chunk.metadata,
      [FIELD.fingerprint]: fingerprint,
    };
    if (chunk.vector) {
      if (chunk.vector.length !== info.dims) {
        throw new Error(`opensearch engine: chunk ${chunk.id} has a ${chunk.vector.length}-dim vector, index has ${info.dims}`);
      }
      if (info.vectorStorage === 'knn') document[FIELD.vectorKnn] = Array.from(chunk.vector);
      if (info.binaryVectors) document[FIELD.vectorBinary] = encodeVector(chunk.vector);
    }
    return document;
  }

  function fromDocument(id: string, source: Partial<ChunkDocument>): ChunkRecord {
    const record: ChunkRecord = {
      id: source[FIELD.chunkId] ?? id,
      text: source[FIELD.text] ?? '',
      tokens: source[FIELD.tokens] ?? 0,
      metadata: source[FIELD.metadata] ?? { chunk_index: 0, doc_id: '' },
    };
    const binary = source[FIELD.vectorBinary];
    const knn = source[FIELD.vectorKnn];
    if (typeof binary === 'string') record.vector = decodeVector(binary);
    else if (Array.isArray(knn)) record.vector = Float32Array.from(knn);
    return record;
  }

  /** Indexes one batch, skipping chunks whose stored fingerprint is unchanged; throws on any item error. */
  async function indexBatch(name: string, info: IndexInfo, chunks: ChunkRecord[]): Promise<void> {
    // last occurrence of an id in the batch wins, as with sequential upserts
    const latest = new Map<string, ChunkRecord>();
    for (const chunk of chunks) latest.set(chunk.id, chunk);
    const ids = [...latest.keys()];
    const { body: existing } = await call<MgetResponseBody>('POST', `/${name}/_mget?_source_includes=${FIELD.fingerprint}`, { ids });
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
    const response = await client.transport.request({ method: 'POST', path: '/_bulk', bulkBody: bulkBody as Record<string, unknown>[] });
    const result = response.body as BulkResponseBody;
    if (result.errors) {
      const failures = result.items
        .map((item) => Object.values(item)[0])
        .filter((outcome) => outcome.error !== undefined)
        .map((outcome) => `${outcome._id}: ${outcome.error?.type} ${outcome.error?.reason}`);
      throw new Error(`opensearch engine: ${failures.length} chunk(s) failed to index into ${name}: ${failures.slice(0, 5).join('; ')}`);
    }
  }

  /**
   * Deletes one batch by id; ids the index does not hold answer not_found and are ignored. Like an upsert, a deletion is
   * invisible to searches until commit's refresh.
   */
  async function deleteBatch(name: string, ids: readonly string[]): Promise<void> {
    const bulkBody = ids.map((id) => ({ delete: { _index: name, _id: id } }));
    const response = await client.transport.request({ method: 'POST', path: '/_bulk', bulkBody: bulkBody as Record<string, unknown>[] });
    const result = response.body as BulkResponseBody;
    const outcomes = result.items.map((item) => Object.values(item)[0]);
    if (outcomes.some((outcome) => outcome.result === 'deleted')) changedSinceCommit.add(name);
    const failures = outcomes.filter((outcome) => outcome.error !== undefined && outcome.status !== 404);
    if (failures.length > 0) {
      const detail = failures.map((outcome) => `${outcome._id}: ${outcome.error?.type} ${outcome.error?.reason}`);
      throw new Error(`opensearch engine: ${failures.length} chunk(s) failed to delete from ${name}: ${detail.slice(0, 5).join('; ')}`);
    }
  }

  /** A search body: hits by score, ties broken by chunk id as in the embedded engine, and no hit count. */
  function searchBody(query: OpenSearchQuery, size: number, fetch: Record<string, unknown>): Record<string, unknown> {
    return {
      size,
      query,
      ...fetch,
      track_scores: true,
      // no hit count is ever used: counting every match would only stop Lucene from skipping non-competitive ones
      track_total_hits: false,
      sort: [{ _score: 'desc' }, { [FIELD.chunkId]: 'asc' }],
    };
  }

  /**
   * A retriever's hits, and only what this adapter reads of them (`filter_path`): no index name, sort values, took or
   * shard counts, which the node would write and the service parse for each of hundreds of hits. `params` starts with
   * `&` when given.
   */
  async function runSearch(name: string, body: Record<string, unknown>, params = ''): Promise<SearchResponseHit[]> {
    const { body: response } = await call<Partial<SearchResponseBody>>('POST', `/${name}/_search?filter_path=${SEARCH_FILTER_PATH}${params}`, body);
    // a response with no hits is filtered down to {}
    return response.hits?.hits ?? [];
  }

  /**
   * The `size` best chunks by BM25, ties broken by chunk id as in the embedded engine. Asked sorted by score alone, so
   * that Lucene skips the chunks that cannot compete (sorted by chunk id too it scores every match: 2.4 times the
   * work on SciFact), for a quarter more chunks than needed: when the last of those scores below the `size`-th, every
   * chunk tied with a kept one is among them, and they are ordered by chunk id here. Ties at the cut are common (one-byte
   * length norms: 11 of 100 SciFact queries tie at the 100th BM25 hit), longer than the margin rare: those are asked
   * again with both sorts.
   */
  async function bestByBm25(name: string, query: OpenSearchQuery, size: number, fetch: Record<string, unknown>, params = ''): Promise<SearchResponseHit[]> {
    const asked = size + Math.max(3, Math.ceil(size / 4));
    const hits = await runSearch(name, { size: asked, query, ...fetch, track_total_hits: false }, params);
    const ordered = hits
      .map((hit) => ({ hit, id: idOf(hit), score: hit._score ?? 0 }))
      .sort((a, b) => b.score - a.score || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
    if (hits.length < asked || ordered[ordered.length - 1].score < ordered[size - 1].score) return ordered.slice(0, size).map(({ hit }) => hit);
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
    const { body } = await call<TermVectorsBody>('POST', `/${name}/_termvectors?filter_path=${TERM_VECTORS_FILTER_PATH}`, {
      doc: { [FIELD.sparse]: text },
      fields: [FIELD.sparse],
      term_statistics: true,
      field_statistics: true,
      positions: false,
      offsets: false,
      payloads: false,
    });
    const field = body.term_vectors?.[FIELD.sparse];
    return bm25Ceiling(terms, (term) => field?.terms?.[term]?.doc_freq ?? 0, field?.field_statistics?.doc_count ?? 0);
  }

  /**
   * Chunks by id as of the last commit: `realtime=false` reads the searcher the last refresh opened, as searches do (a
   * realtime get would also read chunks staged since, before their commit).
   */
  async function fetchChunks(name: string, ids: string[], vectors = true): Promise<ChunkRecord[]> {
    if (ids.length === 0) return [];
    const excludes = vectors ? '' : `&_source_excludes=${WITHOUT_VECTORS.excludes.join(',')}`;
    const { body } = await call<Partial<MgetResponseBody>>('POST', `/${name}/_mget?realtime=false&filter_path=docs._id,docs.found,docs._source,error${excludes}`, { ids });
    return (body.docs ?? []).filter((doc) => doc.found && doc._source).map((doc) => fromDocument(doc._id, doc._source as ChunkDocument));
  }

  function ensureInventoryIndex(): Promise<void> {
    inventoryIndexReady ??= call<{ error?: { type: string; reason: string } }>('PUT', `/${inventoryIndex}`, inventoryIndexBody(), [400]).then(
      ({ body, statusCode }) => {
        if (statusCode === 400 && body.error?.type !== 'resource_already_exists_exception') {
          throw new Error(`opensearch engine: creating ${inventoryIndex} failed: ${body.error?.type} ${body.error?.reason}`);
        }
      },
    );
    // a failed creation is tried again by the next write
    inventoryIndexReady.catch(() => {
      inventoryIndexReady = undefined;
    });
    return inventoryIndexReady;
  }

  /**
   * Writes the inventory document: `index` always; a rebuild only over the state it read (`create` when there was no
   * document, else the version of the marker it read), so it never replaces an ingest's inventory or a newer marker.
   */
  async function writeInventory(name: string, document: InventoryDocument, op: 'index' | { over: string | undefined }): Promise<void> {
    await ensureInventoryIndex();
    const condition = op === 'index' ? 'op_type=index' : op.over === undefined ? 'op_type=create' : op.over;
    const { body, statusCode } = await call<{ error?: { type: string; reason: string } }>(
      'PUT',
      `/${inventoryIndex}/_doc/${encodeURIComponent(name)}?${condition}`,
      document,
      op === 'index' ? [] : [409],
    );
    if (statusCode >= 400 && statusCode !== 409) throw new Error(`opensearch engine: writing the inventory of ${name} failed: ${body.error?.reason}`);
  }

  async function deleteInventory(name: string): Promise<void> {
    readInventories.delete(name);
    await call('DELETE', `/${inventoryIndex}/_doc/${encodeURIComponent(name)}`, undefined, [404]);
  }

  /** The stored inventory document, its inventory read again only when the document changed since this engine last read it. */
  async function storedInventory(name: string): Promise<StoredInventory> {
    const path = `/${inventoryIndex}/_doc/${encodeURIComponent(name)}`;
    const versionOf = (body: GetResponseBody<unknown>): string => `if_seq_no=${body._seq_no}&if_primary_term=${body._primary_term}`;
    const { body: head, statusCode } = await call<GetResponseBody<never>>('GET', `${path}?_source=false`, undefined, [404]);
    if (statusCode === 404 || !head.found) {
      readInventories.delete(name);
      return { version: undefined, inventory: undefined };
    }
    const known = readInventories.get(name);
    if (known?.version === versionOf(head)) return known;
    const { body, statusCode: fullStatus } = await call<GetResponseBody<InventoryDocument>>('GET', path, undefined, [404]);
    if (fullStatus === 404 || !body.found || !body._source) return { version: undefined, inventory: undefined };
    const stored = { version: versionOf(body), inventory: body._source.inventory ?? undefined };
    readInventories.set(name, stored);
    return stored;
  }

  /** An inventory from the index's first chunks (chunk_index 0 carries its document's metadata). */
  async function rebuildInventory(index: string, name: string): Promise<CollectionInventory> {
    const tally = new InventoryTally();
    let after: unknown[] | undefined;
    for (;;) {
      const { body } = await call<SearchResponseBody>('POST', `/${name}/_search`, {
        size: INVENTORY_SCAN_PAGE,
        query: { term: { [`${FIELD.metadata}.chunk_index`]: 0 } },
        _source: ['issn', 'journal', 'publisher'].map((field) => `${FIELD.metadata}.${field}`),
        sort: [{ [FIELD.chunkId]: 'asc' }],
        track_total_hits: false,
        ...(after ? { search_after: after } : {}),
      });
      const hits = body.hits.hits;
      for (const hit of hits) tally.add(hit._source?.[FIELD.metadata] ?? {});
      if (hits.length < INVENTORY_SCAN_PAGE) break;
      after = hits[hits.length - 1].sort;
    }
    return tally.inventory(index);
  }

  /**
   * Whether the index's graphs are worth merging into one: when the segments beside its largest hold more than
   * MERGE_WHEN_OUTSIDE_LARGEST of its documents (live and deleted). A bulk ingest's dozens of similar segments qualify;
   * an upsert of 1% does not (its small segment is merged by Lucene's own merge policy, in the background, with others).
   * Rewriting the whole index each time a quarter more has been written keeps the merging work proportional to what was
   * written (a geometric series), where merging after every commit rewrote the whole index for each small change.
   */
  async function graphsWorthMerging(name: string): Promise<boolean> {
    type Segments = Record<string, { num_docs: number; deleted_docs: number }>;
    const { body } = await call<{ indices: Record<string, { shards: Record<string, Array<{ segments: Segments }>> }> }>('GET', `/${name}/_segments`);
    const sizes = Object.values(body.indices[name]?.shards ?? {})
      .flatMap((copies) => copies.slice(0, 1))
      .flatMap((copy) => Object.values(copy.segments))
      .map((segment) => segment.num_docs + segment.deleted_docs);
    if (sizes.length <= 1) return false;
    const total = sizes.reduce((sum, size) => sum + size, 0);
    return total - Math.max(...sizes) > total * MERGE_WHEN_OUTSIDE_LARGEST;
  }

  /**
   * Force-merges a k-NN index into one segment, and refreshes: each segment has its own HNSW graph and every k-NN query
   * walks all of them, so a bulk ingest's dozens of segments multiplied dense search time (500,000 chunks: 44 segments,
   * dense p50 87 ms; one segment, 5 ms). The merge runs as a task, polled, since it outlasts any request timeout (370 s
   * at 500,000 chunks on 2 cores): commit runs it only when graphsWorthMerging says so.
   */
  async function mergeGraphs(name: string): Promise<void> {
    const { body: started } = await call<{ task: string }>('POST', `/${name}/_forcemerge?max_num_segments=1&wait_for_completion=false`);
    for (let delay = 100; ; delay = Math.min(delay * 2, 5_000)) {
      await new Promise((resolve) => setTimeout(resolve, delay));
      const { body: task } = await call<{ completed?: boolean; error?: { type: string; reason: string } }>('GET', `/_tasks/${encodeURIComponent(started.task)}`);
      if (task.error) throw new Error(`opensearch engine: merging ${name} failed: ${task.error.type} ${task.error.reason}`);
      if (task.completed) break;
    }
    // the merged segment becomes visible to searches at the next refresh (the index refreshes only on commit)
    await call('POST', `/${name}/_refresh`);
  }

  function sparseQuery(text: string, filters: OpenSearchQuery[]): OpenSearchQuery {
    return { bool: { must: [{ match: { [FIELD.sparse]: { query: text } } }], filter: filters } };
  }

  function queryVector(info: IndexInfo, req: SearchRequest): Float32Array {
    if (!req.vector) throw new Error(`opensearch engine: ${req.mode} search needs a query vector`);
    if (req.vector.length !== info.dims) {
      throw new Error(`opensearch engine: query vector has ${req.vector.length} dims, index has ${info.dims}`);
    }
    return req.vector;
  }

  /**
   * A kept row's exact cosine (fusion.ts's dotProduct of its vector, as in the embedded engine), checked against the
   * cosine its dense score stood for, if it had one.
   */
  function exactCosine(name: string, query: Float32Array, chunk: ChunkRecord, estimate: number | undefined): number | undefined {
    if (!chunk.vector) return undefined;
    const cosine = dotProduct(query, chunk.vector, 0, query.length);
    if (estimate !== undefined && !(Math.abs(cosine - estimate) <= DENSE_SCORE_COSINE_ERROR)) {
      throw new Error(`opensearch engine: the dense score of chunk ${chunk.id} in ${name} stands for cosine ${estimate}, its vector gives ${cosine}: the k-NN score formula is not the expected one`);
    }
    return cosine;
  }

  /** The ranked rows with their chunks (without vectors: no caller of a search needs them). */
  function hitsOf(name: string, ranked: readonly RankedCandidate[], chunks: ReadonlyMap<string, ChunkRecord>): SearchHit[] {
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
    return hitsOf(name, rankCandidates('sparse', candidates, req.limit, ceiling, alpha), chunks);
  }

  /** The `limit` nearest chunks, sources and vectors included: their exact cosines are computed here. */
  async function searchDense(name: string, info: IndexInfo, req: SearchRequest, vector: Float32Array, filters: OpenSearchQuery[]): Promise<SearchHit[]> {
    const efSearch = await efSearchOf(name);
    const hits = await runSearch(name, searchBody(denseQuery(vector, info.vectorStorage, filters, req.limit, efSearch), req.limit, { _source: true }));
    const chunks = new Map<string, ChunkRecord>();
    const candidates: RankCandidate[] = [];
    for (const hit of hits) {
      const id = idOf(hit);
      const chunk = fromDocument(id, hit._source ?? {});
      chunks.set(id, chunk);
      candidates.push({ id, dense: exactCosine(name, vector, chunk, cosineFromScore(info.vectorStorage, hit._score ?? 0)) });
    }
    return hitsOf(name, rankCandidates('dense', candidates, req.limit, 0, alpha), chunks);
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
  async function searchHybrid(name: string, info: IndexInfo, req: SearchRequest, vector: Float32Array, filters: OpenSearchQuery[]): Promise<SearchHit[]> {
    const pool = hybridCandidateCount(req.limit);
    const efSearch = await efSearchOf(name);
    const [denseHits, sparseHits, ceiling] = await Promise.all([
      runSearch(name, searchBody(denseQuery(vector, info.vectorStorage, filters, pool, efSearch), pool, IDS_ONLY)),
      bestByBm25(name, sparseQuery(req.text, [...filters, cosineClause(vector, info.vectorStorage, COSINE_CLAUSE)]), pool, IDS_ONLY, '&include_named_queries_score=true'),
      sparseCeiling(name, req.text, bm25QueryTerms(req.text)),
    ]);
    const candidates = new Map<string, RankCandidate>();
    const estimates = new Map<string, number>();
    for (const hit of denseHits) {
      const id = idOf(hit);
      const estimate = cosineFromScore(info.vectorStorage, hit._score ?? 0);
      estimates.set(id, estimate);
      candidates.set(id, { id, dense: estimate });
    }
    for (const hit of sparseHits) {
      const id = idOf(hit);
      const candidate: RankCandidate = candidates.get(id) ?? { id };
      const score = hit.matched_queries && !Array.isArray(hit.matched_queries) ? hit.matched_queries[COSINE_CLAUSE] : undefined;
      if (candidate.dense === undefined && score !== undefined) {
        candidate.dense = cosineFromScore(info.vectorStorage, score);
        estimates.set(id, candidate.dense);
      }
      candidate.sparse = Math.fround(hit._score ?? 0);
      candidates.set(id, candidate);
    }

    const byEstimate = rankCandidates('hybrid', [...candidates.values()], candidates.size, ceiling, alpha);
    const floor = byEstimate.length > req.limit ? byEstimate[req.limit - 1].score - 2 * DENSE_SCORE_COSINE_ERROR : -Infinity;
    const kept = byEstimate.filter((candidate) => candidate.score >= floor);
    const chunks = new Map((await fetchChunks(name, kept.map((candidate) => candidate.id))).map((chunk) => [chunk.id, chunk]));
    const exact = kept.map(({ id, sparse }): RankCandidate => {
      const chunk = chunks.get(id);
      if (!chunk) throw new Error(`opensearch engine: chunk ${id} vanished from ${name} during the search`);
      return { id, sparse, dense: exactCosine(name, vector, chunk, estimates.get(id)) };
    });
    return hitsOf(name, rankCandidates('hybrid', exact, req.limit, ceiling, alpha), chunks);
  }

  return {
    kind: 'opensearch',

    vectorStorage: detectVectorStorage,

    async vectorSearchMode() {
      return (await detectVectorStorage()) === 'knn' ? 'lucene-hnsw' : 'exact';
    },

    async ensureIndex(index, dims) {
      if (!Number.isInteger(dims) || dims <= 0) throw new Error(`opensearch engine: invalid dims ${dims}`);
      const existing = await indexInfo(index);
      if (existing) {
        if (existing.dims !== dims) throw new Error(`opensearch engine: index "${indexName(index)}" has ${existing.dims} dims, asked for ${dims}`);
        return;
      }
      const name = indexName(index);
      const vectorStorage = await detectVectorStorage();
      const { body, statusCode } = await call<{ error?: { type: string; reason: string } }>(
        'PUT',
        `/${name}`,
        chunkIndexBody(dims, vectorStorage),
        [400],
      );
      if (statusCode === 400 && body.error?.type !== 'resource_already_exists_exception') {
        throw new Error(`opensearch engine: creating ${name} failed: ${body.error?.type} ${body.error?.reason}`);
      }
      await requireInfo(index);
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
      await call('POST', `/${name}/_refresh`);
      if (info.vectorStorage === 'knn' && changedSinceCommit.has(name) && (await graphsWorthMerging(name))) await mergeGraphs(name);
      const inventory = stagedInventories.get(name);
      if (inventory) {
        await writeInventory(name, { index: name, rebuilt: false, inventory }, 'index');
        if (stagedInventories.get(name) === inventory) stagedInventories.delete(name);
      } else if (changedSinceCommit.has(name)) {
        // the stored inventory no longer describes the chunks: a marker in its place has getInventory rebuild one
        // (written after the refresh, so a rebuild that read the chunks before it cannot be stored over it)
        readInventories.delete(name);
        await writeInventory(name, { index: name, rebuilt: false, inventory: null }, 'index');
      }
      // this process's searches read the new count at once (others within CHUNK_COUNT_TTL_MS)
      chunkCounts.delete(name);
      changedSinceCommit.delete(name);
    },

    async putInventory(index, inventory) {
      await requireInfo(index);
      stagedInventories.set(indexName(index), inventory);
    },

    async getInventory(index) {
      if (!(await indexInfo(index))) return null;
      const name = indexName(index);
      const stored = await storedInventory(name);
      if (stored.inventory) return stored.inventory;
      const rebuilt = await rebuildInventory(index, name);
      await writeInventory(name, { index: name, rebuilt: true, inventory: rebuilt }, { over: stored.version });
      return rebuilt;
    },

    async search(req) {
      if (!Number.isInteger(req.limit) || req.limit < 0) throw new Error(`opensearch engine: invalid limit ${req.limit}`);
      const info = await requireInfo(req.index);
      const name = indexName(req.index);
      if (req.limit === 0) return [];
      const filters = req.filter ? [compileToOpenSearch(req.filter)] : [];
      if (req.mode === 'sparse') return searchSparse(name, req, filters);
      const vector = queryVector(info, req);
      return req.mode === 'dense' ? searchDense(name, info, req, vector, filters) : searchHybrid(name, info, req, vector, filters);
    },

    async getChunks(index, ids) {
      await requireInfo(index);
      return fetchChunks(indexName(index), ids);
    },

    async countChunks(index, filter) {
      await requireInfo(index);
      const { body } = await call<{ count: number }>('POST', `/${indexName(index)}/_count`, { query: { bool: { filter: [compileToOpenSearch(filter)] } } });
      return body.count;
    },

    async findChunks(index, filter, limit) {
      await requireInfo(index);
      const { body } = await call<{ hits: { hits: { _id: string; _source: ChunkDocument }[] } }>('POST', `/${indexName(index)}/_search`, {
        size: limit,
        query: { bool: { filter: [compileToOpenSearch(filter)] } },
      });
      return body.hits.hits.map((hit) => fromDocument(hit._id, hit._source));
    },

    async stats(index) {
      await requireInfo(index);
      const name = indexName(index);
      const [{ body: count }, { body: stats }] = await Promise.all([
        call<{ count: number }>('GET', `/${name}/_count`),
        call<{ indices: Record<string, { primaries: { store: { size_in_bytes: number } } }> }>('GET', `/${name}/_stats/store`),
      ]);
      return { chunks: count.count, bytes: stats.indices[name]?.primaries.store.size_in_bytes ?? 0 };
    },

    async hasIndex(index) {
      return (await indexInfo(index)) !== undefined;
    },

    async deleteIndex(index) {
      infoByIndex.delete(index);
      const name = indexName(index);
      stagedInventories.delete(name);
      changedSinceCommit.delete(name);
      chunkCounts.delete(name);
      await call('DELETE', `/${name}`, undefined, [404]);
      await deleteInventory(name);
    },

    async ping() {
      try {
        const { statusCode } = await call('GET', '/_cluster/health?timeout=5s');
        return statusCode === 200;
      } catch {
        return false;
      }
    },

    async close() {
      await client.close();
    },
  };
}
