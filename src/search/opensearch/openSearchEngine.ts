// The OpenSearch adapter of the retrieval port: one index per collection, BM25 and dense (k-NN or exact) queries run
// separately with the compiled filter, then ranked and fused in TypeScript by the same rules as the embedded engine.
// Collection inventories live in one more index, a document per collection index, written when ingest commits.
import { Client } from '@opensearch-project/opensearch';
import { InventoryTally, type CollectionInventory } from '../../catalogue/inventory.js';
import { compileToOpenSearch, type OpenSearchQuery } from '../../filters/compileToOpenSearch.js';
import { dotProduct, HYBRID_ALPHA, hybridCandidateCount, rankCandidates, type RankCandidate } from '../fusion.js';
import type { ChunkMetadata, ChunkRecord, SearchEngine, SearchHit, SearchRequest, VectorSearchMode } from '../port.js';
import { chunkFingerprint } from '../embedded/chunkFingerprint.js';
import { bm25Ceiling, bm25QueryTerms } from '../embedded/luceneBm25.js';
import { COSINE_FIELD, cosineScriptFields, decodeVector, denseQuery, encodeVector } from './denseScoring.js';
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
  _id: string;
  _score: number | null;
  _source?: ChunkDocument;
  fields?: Record<string, Array<number | null> | undefined>;
  sort?: unknown[];
}

interface SearchResponseBody {
  hits: { hits: SearchResponseHit[] };
}

/** The term vectors API's answer for an artificial document: the index's statistics of its analyzed terms. */
interface TermVectorsBody {
  term_vectors?: Record<string, { field_statistics?: { doc_count: number }; terms?: Record<string, { doc_freq?: number }> }>;
}

/** Vector fields a search response never needs in _source (cosines come from a script field or are computed here). */
const WITHOUT_VECTORS = { excludes: [FIELD.vectorBinary, FIELD.vectorKnn] };

interface MgetResponseBody {
  docs: Array<{ _id: string; found: boolean; _source?: Partial<ChunkDocument> }>;
}

interface BulkResponseBody {
  errors: boolean;
  items: Array<Record<string, { _id: string; status: number; error?: { type: string; reason: string } }>>;
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
  inventory: CollectionInventory;
}

interface GetResponseBody<T> {
  found?: boolean;
  _seq_no?: number;
  _primary_term?: number;
  _source?: T;
}

const INDEX_NAME = /^[a-z0-9][a-z0-9._-]*$/;
/** Appended to the prefix for the inventory index; a catalogue name cannot start with "_", so no collection maps onto it. */
const INVENTORY_INDEX_SUFFIX = '_inventory';
/** first chunks read per request when an inventory is rebuilt from an index */
const INVENTORY_SCAN_PAGE = 2_000;

export function createOpenSearchEngine(options: OpenSearchEngineOptions): SearchEngine & {
  vectorSearchMode(): Promise<VectorSearchMode>;
  /** how this node scores vectors: 'knn' when the k-NN plugin is installed, else the painless fallback */
  vectorStorage(): Promise<VectorStorage>;
} {
  const client = new Client({ node: options.url });
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
  const readInventories = new Map<string, { version: string; inventory: CollectionInventory }>();

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

  async function runSearch(
    name: string,
    query: OpenSearchQuery,
    size: number,
    fetch: { source: boolean | typeof WITHOUT_VECTORS; scriptFields?: Record<string, unknown> },
  ): Promise<SearchResponseBody> {
    const { body } = await call<SearchResponseBody>('POST', `/${name}/_search`, {
      size,
      query,
      _source: fetch.source,
      ...(fetch.scriptFields ? { script_fields: fetch.scriptFields } : {}),
      track_scores: true,
      // no hit count is ever used: counting every match would only stop Lucene from skipping non-competitive ones
      track_total_hits: false,
      // score ties are broken by chunk id, as in the embedded engine
      sort: [{ _score: 'desc' }, { [FIELD.chunkId]: 'asc' }],
    });
    return body;
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
    const { body } = await call<TermVectorsBody>('POST', `/${name}/_termvectors`, {
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

  async function fetchChunks(name: string, ids: string[], vectors = true): Promise<ChunkRecord[]> {
    if (ids.length === 0) return [];
    const excludes = vectors ? '' : `?_source_excludes=${WITHOUT_VECTORS.excludes.join(',')}`;
    const { body } = await call<MgetResponseBody>('POST', `/${name}/_mget${excludes}`, { ids });
    return body.docs.filter((doc) => doc.found && doc._source).map((doc) => fromDocument(doc._id, doc._source as ChunkDocument));
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

  /** Writes the inventory document; `create` writes only when there is none (a rebuild never replaces an ingest's). */
  async function writeInventory(name: string, document: InventoryDocument, op: 'index' | 'create'): Promise<void> {
    await ensureInventoryIndex();
    const { body, statusCode } = await call<{ error?: { type: string; reason: string } }>(
      'PUT',
      `/${inventoryIndex}/_doc/${encodeURIComponent(name)}?op_type=${op}`,
      document,
      op === 'create' ? [409] : [],
    );
    if (statusCode >= 400 && statusCode !== 409) throw new Error(`opensearch engine: writing the inventory of ${name} failed: ${body.error?.reason}`);
  }

  async function deleteInventory(name: string): Promise<void> {
    readInventories.delete(name);
    await call('DELETE', `/${inventoryIndex}/_doc/${encodeURIComponent(name)}`, undefined, [404]);
  }

  /** The stored inventory, read again only when its document changed since this engine last read it. */
  async function storedInventory(name: string): Promise<CollectionInventory | undefined> {
    const path = `/${inventoryIndex}/_doc/${encodeURIComponent(name)}`;
    const versionOf = (body: GetResponseBody<unknown>): string => `${body._primary_term}:${body._seq_no}`;
    const { body: head, statusCode } = await call<GetResponseBody<never>>('GET', `${path}?_source=false`, undefined, [404]);
    if (statusCode === 404 || !head.found) {
      readInventories.delete(name);
      return undefined;
    }
    const known = readInventories.get(name);
    if (known?.version === versionOf(head)) return known.inventory;
    const { body, statusCode: fullStatus } = await call<GetResponseBody<InventoryDocument>>('GET', path, undefined, [404]);
    if (fullStatus === 404 || !body.found || !body._source) return undefined;
    readInventories.set(name, { version: versionOf(body), inventory: body._source.inventory });
    return body._source.inventory;
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

    async commit(index) {
      await requireInfo(index);
      const name = indexName(index);
      await call('POST', `/${name}/_refresh`);
      const inventory = stagedInventories.get(name);
      if (inventory) {
        await writeInventory(name, { index: name, rebuilt: false, inventory }, 'index');
        if (stagedInventories.get(name) === inventory) stagedInventories.delete(name);
      } else if (changedSinceCommit.has(name)) {
        // the stored inventory no longer describes the chunks; getInventory rebuilds one from them
        await deleteInventory(name);
      }
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
      if (stored) return stored;
      const rebuilt = await rebuildInventory(index, name);
      await writeInventory(name, { index: name, rebuilt: true, inventory: rebuilt }, 'create');
      return rebuilt;
    },

    async search(req) {
      if (!Number.isInteger(req.limit) || req.limit < 0) throw new Error(`opensearch engine: invalid limit ${req.limit}`);
      const info = await requireInfo(req.index);
      const name = indexName(req.index);
      if (req.limit === 0) return [];
      const filters = req.filter ? [compileToOpenSearch(req.filter)] : [];
      const candidates = new Map<string, RankCandidate>();
      const chunks = new Map<string, ChunkRecord>();
      const keepSource = (hit: SearchResponseHit): ChunkRecord | undefined => {
        if (!hit._source) return undefined;
        const chunk = fromDocument(hit._id, hit._source);
        chunks.set(hit._id, chunk);
        return chunk;
      };

      const terms = bm25QueryTerms(req.text);
      let ceiling = 0;
      if (req.mode === 'sparse') {
        const [body, sparseMax] = await Promise.all([
          runSearch(name, sparseQuery(req.text, filters), req.limit, { source: info.binaryVectors ? WITHOUT_VECTORS : true }),
          sparseCeiling(name, req.text, terms),
        ]);
        ceiling = sparseMax;
        for (const hit of body.hits.hits) {
          keepSource(hit);
          candidates.set(hit._id, { id: hit._id, sparse: Math.fround(hit._score ?? 0) });
        }
      } else {
        const vector = queryVector(info, req);
        // exact cosine: from the script field over the binary doc values, or (k-NN indexes of mapping version 1) the _source vector
        const scriptFields = cosineScriptFields(vector, info.binaryVectors);
        const cosineOf = (hit: SearchResponseHit, chunk: ChunkRecord | undefined): number | undefined => {
          const fromScript = hit.fields?.[COSINE_FIELD]?.[0];
          if (typeof fromScript === 'number') return fromScript;
          return chunk?.vector ? dotProduct(vector, chunk.vector, 0, info.dims) : undefined;
        };
        if (req.mode === 'dense') {
          const fetch = { source: scriptFields ? WITHOUT_VECTORS : true, scriptFields };
          for (const hit of (await runSearch(name, denseQuery(vector, info.vectorStorage, filters, req.limit), req.limit, fetch)).hits.hits) {
            candidates.set(hit._id, { id: hit._id, dense: cosineOf(hit, keepSource(hit)) });
          }
        } else {
          const pool = hybridCandidateCount(req.limit);
          // hundreds of candidates travel without their sources; the `limit` kept are fetched afterwards
          const fetch = { source: scriptFields === undefined, scriptFields };
          const [denseBody, sparseBody, sparseMax] = await Promise.all([
            runSearch(name, denseQuery(vector, info.vectorStorage, filters, pool), pool, fetch),
            runSearch(name, sparseQuery(req.text, filters), pool, fetch),
            sparseCeiling(name, req.text, terms),
          ]);
          ceiling = sparseMax;
          const denseHits = denseBody.hits.hits;
          const sparseHits = sparseBody.hits.hits;
          for (const hit of [...denseHits, ...sparseHits]) {
            if (!candidates.has(hit._id)) candidates.set(hit._id, { id: hit._id, dense: cosineOf(hit, keepSource(hit)) });
          }
          for (const hit of sparseHits) (candidates.get(hit._id) as RankCandidate).sparse = Math.fround(hit._score ?? 0);
        }
      }

      const ranked = rankCandidates(req.mode, [...candidates.values()], req.limit, ceiling, options.hybridAlpha ?? HYBRID_ALPHA);
      const missing = ranked.map((candidate) => candidate.id).filter((id) => !chunks.has(id));
      for (const chunk of await fetchChunks(name, missing, !info.binaryVectors)) chunks.set(chunk.id, chunk);
      return ranked.map((candidate): SearchHit => {
        const chunk = chunks.get(candidate.id);
        if (!chunk) throw new Error(`opensearch engine: chunk ${candidate.id} vanished from ${name} during the search`);
        const hit: SearchHit = { id: candidate.id, score: candidate.score, chunk };
        if (candidate.dense !== undefined) hit.dense = candidate.dense;
        if (candidate.sparse !== undefined) hit.sparse = candidate.sparse;
        return hit;
      });
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
