// The OpenSearch adapter of the retrieval port: one index per collection; BM25 and dense (k-NN or exact) retrievers run
// side by side with the compiled filter, then are ranked and fused in TypeScript by the same rules as the embedded
// engine, exact cosines computed here from the vectors of the rows kept.
// The factory only assembles the operations, each in its own file over the context built once (engineContext.ts):
// search (search.ts: sparseSearch.ts, denseSearch.ts, hybridSearch.ts, over searchRetrievers.ts and searchRanking.ts),
// writes (chunkWrites.ts), commit and the index's lifecycle (indexLifecycle.ts), reads by id or filter (chunkReads.ts).
// Beside them: the HTTP client (transport.ts), the stored chunk document (chunkDocuments.ts), the BM25 side's query DSL
// (queryBuilder.ts) and the dense side's (denseScoring.ts), collection inventories in one more index
// (inventoryStore.ts), and the merge of a k-NN index's graphs after a large write (graphMerge.ts).
// Updates are in place, by chunk id: upserts and deletions are staged in the live index and reach searches only at
// commit's refresh (refresh_interval -1, one shard: one refresh opens one new point-in-time searcher holding all of
// them; reads by id use realtime=false). Decided against a new index per change behind an alias swapped when complete:
// that copies the unchanged 99% and rebuilds every HNSW graph for a 1% upsert, where in place costs what changed. The
// price: a refresh is index-wide (whoever commits publishes everything staged in the index), and a node's crash
// recovery may publish a half-staged change, which the interrupted ingestion's next commit completes.
import type { SearchEngine, VectorSearchMode } from "../../port.js";
import { countChunks, findChunks, getChunks, listDocuments, stats } from "./chunkReads.js";
import { deleteChunks, indexChunks } from "./chunkWrites.js";
import { createOpenSearchContext, type OpenSearchEngineOptions } from "./engineContext.js";
import { facetCountsOver } from "./facetAggregations.js";
import type { VectorStorage } from "./indexMapping.js";
import { commit, deleteIndex, ensureIndex, getInventory, ping, putInventory } from "./indexLifecycle.js";
import { search } from "./search.js";
import { chunksLackingVectors } from "./vectorPresence.js";

export function createOpenSearchEngine(options: OpenSearchEngineOptions): SearchEngine & {
  vectorSearchMode(): Promise<VectorSearchMode>;
  /** how this node scores vectors: 'knn' when the k-NN plugin is installed, else the painless fallback */
  vectorStorage(): Promise<VectorStorage>;
} {
  const ctx = createOpenSearchContext(options);
  return {
    kind: "opensearch",
    vectorStorage: ctx.detectVectorStorage,
    async vectorSearchMode() {
      return (await ctx.detectVectorStorage()) === "knn" ? "lucene-hnsw" : "exact";
    },
    ensureIndex: (index, dims, embedding) => ensureIndex(ctx, index, dims, embedding),
    embeddingOf: async (index) => (await ctx.indexInfo(index))?.embedding ?? null,
    indexChunks: (index, chunks) => indexChunks(ctx, index, chunks),
    deleteChunks: (index, ids) => deleteChunks(ctx, index, ids),
    commit: (index) => commit(ctx, index),
    putInventory: (index, inventory) => putInventory(ctx, index, inventory),
    getInventory: (index) => getInventory(ctx, index),
    search: (req) => search(ctx, req),
    getChunks: (index, ids) => getChunks(ctx, index, ids),
    countChunks: (index, filter) => countChunks(ctx, index, filter),
    findChunks: (index, filter, limit) => findChunks(ctx, index, filter, limit),
    listDocuments: (index, filter, fields) => listDocuments(ctx, index, filter, fields),
    facetCounts: facetCountsOver(ctx.call, ctx.indexName, options.indexLayout),
    vectorCoverage: async (index) => ctx.coverageReader.coverage(ctx.indexName(index), await ctx.requireInfo(index)),
    chunksWithoutVectors: async (index, limit) =>
      chunksLackingVectors(ctx.call, ctx.indexName(index), await ctx.requireInfo(index), limit),
    stats: (index) => stats(ctx, index),
    hasIndex: async (index) => (await ctx.indexInfo(index)) !== undefined,
    deleteIndex: (index) => deleteIndex(ctx, index),
    ping: () => ping(ctx),
    close: async () => {
      await ctx.transport.close();
    },
  };
}
