// The retrieval port: one contract that the embedded engine and the OpenSearch adapter both obey.
import type { CollectionInventory } from "../domain/inventory.js";
import type { FilterNode } from "../filters/ast.js";
import type { ChunkMetadata } from "../domain/resultRow.js";

export type { ChunkMetadata, FigureRef } from "../domain/resultRow.js";

export type RetrievalMode = "dense" | "sparse" | "hybrid";

/** One indexable unit. `id` is stable across re-ingestion, so indexing the same input twice is a no-op. */
export interface ChunkRecord {
  id: string;
  text: string;
  /** token count under the service's one tokenizer (the one billing charges by) */
  tokens: number;
  metadata: ChunkMetadata;
  /** L2-normalized dense embedding; required for dense and hybrid indexes */
  vector?: Float32Array;
}

export interface SearchRequest {
  index: string;
  mode: RetrievalMode;
  /** raw query text, analyzed by the engine for sparse retrieval */
  text: string;
  /** L2-normalized query embedding, required for dense and hybrid */
  vector?: Float32Array;
  /**
   * the embedding path `vector` was made by (Embedder.modelName); an index that recorded another path refuses the
   * search with an EmbeddingMismatchError (its vectors and this query's are not comparable)
   */
  embedding?: string;
  /** number of hits wanted */
  limit: number;
  filter?: FilterNode;
  /**
   * Set by a caller that drops the chunks `drops` names, sets each document's further chunks lower (repeats.ts) and
   * keeps the best `rows` of what is left: the engine may end its list at the first chunk of the `rows`-th document
   * among the chunks not dropped (every chunk after it ranks below `rows` others whatever the demotion does), and so
   * fetch and return less. The hits it returns are the first of the `limit` it would return without it, unchanged.
   */
  keep?: KeptRows;
  /**
   * Set by a caller whose filter selects few chunks (a search within some works): the engine may read every chunk it
   * selects and rank them itself, in fewer requests. The hits are the same.
   */
  few?: boolean;
}

/** What a caller keeps of a list: see SearchRequest.keep. */
export interface KeptRows {
  rows: number;
  /** chunks the caller drops before anything else (fragments): they count for no document */
  drops: (chunk: Pick<ChunkRecord, "text" | "tokens">) => boolean;
}

export interface SearchHit {
  id: string;
  /** engine-native score of this hit within its own result list, higher is better */
  score: number;
  /** cosine similarity of query and chunk vectors where the engine knows it (dense/hybrid) */
  dense?: number;
  /** raw BM25 score where the engine computed it (sparse/hybrid) */
  sparse?: number;
  chunk: ChunkRecord;
}

export interface IndexStats {
  chunks: number;
  /** bytes on disk (or in the engine's store) used by the index */
  bytes: number;
}

/**
 * An index's vectors and a query's (or a writer's) come from different embedding paths: neither search nor extend it.
 */
export class EmbeddingMismatchError extends Error {
  constructor(
    readonly index: string,
    readonly recorded: string,
    readonly asked: string,
  ) {
    super(
      `the vectors of "${index}" were made by ${recorded}, and this process embeds with ${asked}: ingest the ` +
        "collection again in replace mode (or run the process with the model that built it)",
    );
    this.name = "EmbeddingMismatchError";
  }
}

export interface SearchEngine {
  readonly kind: "embedded" | "opensearch";
  /**
   * create the index if absent; `dims` is the embedding width, `embedding` the embedding path of the vectors it will
   * hold (Embedder.modelName; none for an index without vectors), recorded with the index. An existing index that
   * recorded another path throws an EmbeddingMismatchError
   */
  ensureIndex(index: string, dims: number, embedding?: string): Promise<void>;
  /** the embedding path the index recorded at creation; null when it recorded none or does not exist */
  embeddingOf(index: string): Promise<string | null>;
  /** stage upserts by chunk id (visible at the next commit) */
  indexChunks(index: string, chunks: ChunkRecord[]): Promise<void>;
  /** stage deletions by chunk id (visible at the next commit); ids the index does not hold are ignored */
  deleteChunks(index: string, ids: readonly string[]): Promise<void>;
  /**
   * make everything staged since the last commit (indexChunks upserts and deleteChunks deletions) searchable and
   * durable, atomically: search, getChunks, countChunks, findChunks, stats and getInventory see all of it from the
   * moment commit resolves and none of it before (a document replaced by deleting its old chunks and indexing its new
   * ones in one commit is never seen in both versions nor in neither). Together with the inventory put since the last
   * commit; a commit that changes chunks without a new inventory drops the stored one (getInventory then rebuilds it)
   */
  commit(index: string): Promise<void>;
  /** the index's inventory (documents per journal identity), stored by the next commit; the index must exist */
  putInventory(index: string, inventory: CollectionInventory): Promise<void>;
  /**
   * the inventory committed with the index; for an index committed without one (ingested before inventories were
   * stored, or changed since), one rebuilt from its chunks and named after the index; null when the index does not
   * exist
   */
  getInventory(index: string): Promise<CollectionInventory | null>;
  search(req: SearchRequest): Promise<SearchHit[]>;
  /** fetch chunks by id (missing ids are left out) */
  getChunks(index: string, ids: string[]): Promise<ChunkRecord[]>;
  /** number of chunks passing `filter`, unranked (lookups such as "does this collection hold a DOI") */
  countChunks(index: string, filter: FilterNode): Promise<number>;
  /** up to `limit` chunks passing `filter`, unranked (a work looked up by DOI or PMID: works/lookup) */
  findChunks(index: string, filter: FilterNode, limit: number): Promise<ChunkRecord[]>;
  /**
   * The documents holding at least one chunk that passes `filter` (every document when absent), unranked: one metadata
   * record each, with `doc_id` and only the named document-level `fields` (those a document's chunks share), ordered by
   * doc_id. The works a filter selects (works/facets counts them, src/usecases/works/workFacets.ts)
   */
  listDocuments(index: string, filter: FilterNode | undefined, fields: readonly string[]): Promise<ChunkMetadata[]>;
  /**
   * The works of the index under `filter` counted per facet from each document's first chunk, without reading every
   * document (OpenSearch: one aggregation request; embedded: a per-work table of facet values kept per committed
   * segment): the same counts as listDocuments counted by works/facets (facetCounts.ts), each facet's `limit` largest
   * buckets by count, ties by value. Null when the index cannot answer exactly (the filter names a field a document's
   * chunks may not share, two documents share a DOI, an OpenSearch index written before its facet fields or split
   * into several shards): the caller then counts listDocuments.
   */
  facetCounts(
    index: string,
    filter: FilterNode | undefined,
    facets: readonly EngineFacet[],
    limit: number,
  ): Promise<EngineFacetCounts | null>;
  stats(index: string): Promise<IndexStats>;
  hasIndex(index: string): Promise<boolean>;
  deleteIndex(index: string): Promise<void>;
  /** true when the engine answers */
  ping(): Promise<boolean>;
  /**
   * How many of the index's committed chunks have a vector: a dense or hybrid collection ingested with its vectors
   * deferred is searchable by BM25 at its commit and gets them from the vector backfill (activities/vectorBackfill.ts)
   */
  vectorCoverage(index: string): Promise<VectorCoverage>;
  /**
   * up to `limit` committed chunks without a vector, in chunk id order (the backfill's next batch); with their text
   * and metadata, so that their embedding input can be rebuilt
   */
  chunksWithoutVectors(index: string, limit: number): Promise<ChunkRecord[]>;
  /**
   * How dense and hybrid searches find their vector candidates: 'lucene-hnsw' (OpenSearch's k-NN plugin, approximate,
   * filtered k-NN queries) or 'exact' (every filtered vector scored). Shown in /readyz details.
   */
  vectorSearchMode?(): Promise<VectorSearchMode>;
  close(): Promise<void>;
}

export type VectorSearchMode = "lucene-hnsw" | "exact";

/** An index's committed chunks and how many of them have a vector. */
export interface VectorCoverage {
  chunks: number;
  withVectors: number;
}

/** The share of an index's chunks that have a vector, 0..1 (an empty index counts as whole: 1). */
export function vectorShare(coverage: VectorCoverage): number {
  return coverage.chunks === 0 ? 1 : coverage.withVectors / coverage.chunks;
}

/**
 * The facets an engine counts itself (facetCounts; the integrity facet is counted in Node by works/facets):
 * src/retrieval/workFacetValues.ts derives a work's values for them.
 */
export type EngineFacet = "publication_year" | "journal" | "subject" | "author" | "article_type" | "open_access";

export interface EngineFacetBucket {
  value: string;
  count: number;
  /** the journal's smallest ISSN among the counted works; the author's OpenAlex id or ORCID */
  id?: string;
}

/** What an engine counts: the works and the buckets of each facet asked for (at most `limit`, ordered). */
export interface EngineFacetCounts {
  total: number;
  facets: Partial<Record<EngineFacet, EngineFacetBucket[]>>;
}
