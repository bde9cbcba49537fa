// The embedded, in-process SearchEngine: exact BM25 (OpenSearch-identical), exact cosine, shared hybrid fusion,
// filters applied before top-k, and indexes persisted under `dir/<index>/` so a restart reloads instead of rebuilding.
// The factory only assembles the operations, each in its own file over the context built once (indexState.ts):
// search (searchSegment.ts over segmentSearch.ts), staged writes (stagedChanges.ts), commit and the index's lifecycle
// (indexLifecycle.ts), reads of the committed segment (segmentReads.ts and workFacetTable.ts).
import type { IndexStats, SearchEngine } from "../../port.js";
import { indexBytesOnDisk } from "./indexFiles.js";
import { closeIndexes, commitState, deleteIndex, ensureIndex } from "./indexLifecycle.js";
import { createEmbeddedContext, findState, requireState, type EmbeddedEngineOptions } from "./indexState.js";
import { search } from "./searchSegment.js";
import {
  chunksByIdIn,
  chunksWithoutVectorsIn,
  countChunksIn,
  coverageOf,
  findChunksIn,
  inventoryOf,
} from "./segmentReads.js";
import { stageDeletion, upsert } from "./stagedChanges.js";
import { countSegmentFacets, listSegmentDocuments } from "./workFacetTable.js";

export function createEmbeddedEngine(options: EmbeddedEngineOptions): SearchEngine {
  const ctx = createEmbeddedContext(options);
  const segmentOf = async (index: string) => (await requireState(ctx, index)).segment;
  return {
    kind: "embedded",
    ensureIndex: (index, dims, embedding) => ensureIndex(ctx, index, dims, embedding),
    embeddingOf: async (index) => (await findState(ctx, index))?.embedding ?? null,
    async indexChunks(index, chunks) {
      const state = await requireState(ctx, index);
      for (const chunk of chunks) upsert(state, chunk);
    },
    async deleteChunks(index, ids) {
      const state = await requireState(ctx, index);
      for (const id of ids) stageDeletion(state, id);
    },
    commit: async (index) => commitState(await requireState(ctx, index)),
    async putInventory(index, inventory) {
      (await requireState(ctx, index)).stagedInventory = inventory;
    },
    async getInventory(index) {
      const state = await findState(ctx, index);
      return state ? inventoryOf(ctx, state, index) : null;
    },
    search: (req) => search(ctx, req),
    getChunks: async (index, ids) => chunksByIdIn(await segmentOf(index), ids),
    countChunks: async (index, filter) => countChunksIn(await segmentOf(index), filter),
    findChunks: async (index, filter, limit) => findChunksIn(await segmentOf(index), filter, limit),
    listDocuments: async (index, filter, fields) => listSegmentDocuments(await segmentOf(index), filter, fields),
    facetCounts: async (index, filter, facets, limit) =>
      countSegmentFacets(await segmentOf(index), filter, facets, limit),
    vectorCoverage: async (index) => coverageOf(await segmentOf(index)),
    chunksWithoutVectors: async (index, limit) => chunksWithoutVectorsIn(await segmentOf(index), limit),
    async stats(index): Promise<IndexStats> {
      const state = await requireState(ctx, index);
      return { chunks: state.segment.chunks.length, bytes: await indexBytesOnDisk(state.dir) };
    },
    hasIndex: async (index) => (await findState(ctx, index)) !== undefined,
    deleteIndex: (index) => deleteIndex(ctx, index),
    ping: async () => true,
    close: () => closeIndexes(ctx),
  };
}
