// What every operation of the OpenSearch adapter shares, built once per engine: the transport, the options as they
// apply, the indexes' metadata as read (infoByIndex), the inventories' store, the chunk counts that choose ef_search,
// the vector coverage read, and which indexes changed since their last commit. The operations beside it take it as
// their first argument; openSearchEngine.ts only assembles them.
import { HYBRID_ALPHA } from "../../fusion.js";
import type { IndexInfo } from "./chunkDocuments.js";
import { efSearchFor, largestPrimaryShard, type ShardDocs } from "./denseScoring.js";
import {
  mappingUpgradeBody,
  OPENSEARCH_MAPPING_VERSION,
  READABLE_MAPPING_VERSIONS,
  type IndexLayout,
  type VectorStorage,
} from "./indexMapping.js";
import { createInventoryStore, type InventoryStore } from "./inventoryStore.js";
import { createTransport, type Call, type Transport } from "./transport.js";
import { createCoverageReader } from "./vectorPresence.js";

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

export interface OpenSearchContext {
  readonly options: OpenSearchEngineOptions;
  readonly transport: Transport;
  readonly call: Call;
  /** weight of the dense score in hybrid fusion */
  readonly alpha: number;
  /** chunks per bulk request */
  readonly batchSize: number;
  /** by collection: its index's metadata as read from its mapping */
  readonly infoByIndex: Map<string, IndexInfo>;
  readonly inventories: InventoryStore;
  /** collection index names whose chunks changed since their last commit */
  readonly changedSinceCommit: Set<string>;
  /**
   * by collection index name: the chunks of its largest primary shard (one HNSW graph each once merged) as last read,
   * which chooses its k-NN queries' ef_search
   */
  readonly chunkCounts: Map<string, ChunkCount>;
  readonly coverageReader: ReturnType<typeof createCoverageReader>;
  /** the collection's index name */
  indexName(index: string): string;
  /** 'knn' when the node runs the k-NN plugin, else 'binary' (exact painless scoring) */
  detectVectorStorage(): Promise<VectorStorage>;
  /** the collection's index metadata; undefined when it has no index */
  indexInfo(index: string): Promise<IndexInfo | undefined>;
  /** the collection's index metadata; an error when it has no index */
  requireInfo(index: string): Promise<IndexInfo>;
  /** the chunks of the index `name` */
  countOf(name: string): Promise<number>;
  /** the ef_search of the index's k-NN queries */
  efSearchOf(name: string): Promise<number>;
}

const INDEX_NAME = /^[a-z0-9][a-z0-9._-]*$/;
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

/** By collection index name: its largest shard's chunks as last read, which choose its k-NN queries' ef_search. */
type ChunkCount = { chunks: number | undefined; readAt: number; reading?: Promise<void> };

/**
 * The ef_search of the index's k-NN queries: the option when given, else efSearchFor the chunks of its largest shard
 * (each shard's graph is walked with the same ef_search, so the graph's size is what it is chosen by). The count is
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

/**
 * 'knn' when the node runs the k-NN plugin, else 'binary' (exact painless scoring): checked once per engine. A plugin
 * that is loaded but cannot start, or a node that cannot be asked, leaves the exact fallback (a failed ask is
 * retried).
 */
function vectorStorageDetector(
  call: Call,
  onVectorStorage: OpenSearchEngineOptions["onVectorStorage"],
): () => Promise<VectorStorage> {
  let pluginStorage: Promise<VectorStorage> | undefined;
  return () => {
    pluginStorage ??= call<Array<{ component: string }>>("GET", "/_cat/plugins?format=json").then(({ body }) => {
      const plugin = body.find((entry) => /(^|[.-])knn([.-]|$)|KNNPlugin/i.test(entry.component));
      const storage: VectorStorage = plugin ? "knn" : "binary";
      onVectorStorage?.(
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
  };
}

/** The collection's index metadata, read from its mapping once (and its mapping upgraded when older). */
async function readIndexInfo(call: Call, name: string): Promise<IndexInfo | undefined> {
  const { body, statusCode } = await call<
    Record<string, { mappings: { _meta?: Partial<IndexInfo> & { mappingVersion?: number } } }>
  >("GET", `/${name}/_mapping`, undefined, [404]);
  if (statusCode === 404) return undefined;
  const meta = readableMeta(name, body[name]?.mappings._meta);
  if (meta.mappingVersion < OPENSEARCH_MAPPING_VERSION)
    await call("PUT", `/${name}/_mapping`, mappingUpgradeBody(meta as Record<string, unknown>));
  const vectorStorage: VectorStorage = meta.vectorStorage === "knn" ? "knn" : "binary";
  return {
    dims: meta.dims,
    embedding: typeof meta.embedding === "string" ? meta.embedding : null,
    vectorStorage,
    binaryVectors: vectorStorage === "binary" || meta.mappingVersion >= 2,
  };
}

export function createOpenSearchContext(options: OpenSearchEngineOptions): OpenSearchContext {
  const transport = createTransport(options.url);
  const call = transport.call;
  const prefix = options.indexPrefix ?? "litsearch-";
  const infoByIndex = new Map<string, IndexInfo>();
  const inventories = createInventoryStore(call, prefix, options.indexLayout);
  const chunkCounts = new Map<string, ChunkCount>();
  const indexName = (index: string) => chunkIndexName(prefix, index, inventories.index);

  async function indexInfo(index: string): Promise<IndexInfo | undefined> {
    const known = infoByIndex.get(index);
    if (known) return known;
    const info = await readIndexInfo(call, indexName(index));
    if (info) infoByIndex.set(index, info);
    return info;
  }

  async function countOf(name: string): Promise<number> {
    const { body } = await call<{ count: number }>("GET", `/${name}/_count`);
    return body.count;
  }

  /** The chunks of the index's largest primary shard (as of its last refresh). */
  async function largestShardCount(name: string): Promise<number> {
    const { body } = await call<ShardDocs[]>("GET", `/_cat/shards/${name}?format=json&h=prirep,docs`);
    return largestPrimaryShard(body);
  }

  return {
    options,
    transport,
    call,
    alpha: options.hybridAlpha ?? HYBRID_ALPHA,
    batchSize: options.bulkBatchSize ?? 500,
    infoByIndex,
    inventories,
    changedSinceCommit: new Set<string>(),
    chunkCounts,
    coverageReader: createCoverageReader(call),
    indexName,
    detectVectorStorage: vectorStorageDetector(call, options.onVectorStorage),
    indexInfo,
    async requireInfo(index) {
      const info = await indexInfo(index);
      if (!info) throw new Error(`opensearch engine: index "${indexName(index)}" does not exist`);
      return info;
    },
    countOf,
    efSearchOf: efSearchReader(options.efSearch, largestShardCount, chunkCounts),
  };
}
