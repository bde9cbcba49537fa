// The embedded, in-process SearchEngine: exact BM25 (OpenSearch-identical), exact cosine, shared hybrid fusion,
// filters applied before top-k, and indexes persisted under `dir/<index>/` so a restart reloads instead of rebuilding.
import { rm } from "node:fs/promises";
import { join } from "node:path";
import { InventoryTally, type CollectionInventory } from "../../../domain/inventory.js";
import { compileToPredicate } from "../../../filters/compileToPredicate.js";
import {
  HYBRID_ALPHA,
  hybridCandidateCount,
  rankCandidates,
  sparseFieldValues,
  type RankCandidate,
} from "../../fusion.js";
import {
  EmbeddingMismatchError,
  type ChunkRecord,
  type IndexStats,
  type KeptRows,
  type SearchEngine,
  type SearchHit,
  type SearchRequest,
  type VectorCoverage,
} from "../../port.js";
import { chunkFingerprint } from "../../chunkFingerprint.js";
import { documentsEnd } from "../../repeats.js";
import { analyzeEnglish } from "../../../text/englishAnalyzer.js";
import {
  indexBytesOnDisk,
  indexExistsOnDisk,
  manifestStamp,
  readIndexEmbedding,
  readIndexGeneration,
  writeIndexEmbedding,
  writeIndexGeneration,
  type RowLayout,
} from "./indexFiles.js";
import { countSegmentFacets, listSegmentDocuments } from "./workFacetTable.js";
import { countTerms, emptySegment, mergeSegment, type IndexSegment, type PendingChunk } from "./indexSegment.js";
import {
  cosineAt,
  searchDense,
  searchSparse,
  sparseCeiling,
  SparseScratch,
  type OrdinalFilter,
} from "./segmentSearch.js";

export interface EmbeddedEngineOptions {
  /** directory holding one sub-directory per index; one process writes an index, any number may read it */
  dir: string;
  /** weight of the dense score in hybrid fusion (default HYBRID_ALPHA) */
  hybridAlpha?: number;
  /**
   * how long searches may trust the loaded generation before a stat of the manifest checks again for another
   * process's commit (default 0: check on every search, so a commit is seen at once)
   */
  reloadCheckIntervalMs?: number;
}

interface IndexState {
  readonly name: string;
  readonly dir: string;
  readonly dims: number;
  /** the embedding path recorded at creation (embedding.json beside the generations); null when none */
  embedding: string | null;
  /** the committed segment: the one written to disk or read from it, and the only one searches read */
  segment: IndexSegment;
  /** chunks upserted since the last commit, by id; invisible to searches until it */
  pending: Map<string, PendingChunk>;
  /** ids deleted since the last commit; invisible to searches until it */
  deletions: Set<string>;
  /** what a running commit is merging and writing (taken from pending and deletions when it started) */
  inflight: { pending: ReadonlyMap<string, PendingChunk>; deletions: ReadonlySet<string> } | undefined;
  /** the segment's generation and the manifest's stamp (undefined until first written) */
  generation: number;
  stamp: string | undefined;
  /** where the segment's chunks are on disk (undefined until first written) */
  layout: RowLayout | undefined;
  /** the inventory committed with the segment, if it has one */
  inventory: CollectionInventory | undefined;
  /** the inventory put since the last commit, which the next commit writes */
  stagedInventory: CollectionInventory | undefined;
  /** when (performance.now()) the manifest last matched `stamp` */
  stampCheckedAt: number;
  /** serializes commits of this index */
  commitQueue: Promise<void>;
  scratch: SparseScratch;
}

const INDEX_NAME = /^[A-Za-z0-9][A-Za-z0-9._-]{0,199}$/;

/** A ranked row's document for SearchRequest.keep: undefined for a chunk the caller drops. */
function documentOfRow(
  segment: IndexSegment,
  ordinalById: ReadonlyMap<string, number>,
  keep: KeptRows,
): (row: { id: string }) => string | undefined {
  return (row) => {
    const chunk = segment.chunks[ordinalById.get(row.id) as number];
    return keep.drops(chunk) ? undefined : String(chunk.metadata.doc_id);
  };
}

/** Chunks of a segment with a vector, counted once per segment (a segment never changes). */
const vectorCounts = new WeakMap<IndexSegment, number>();
function withVectorsOf(segment: IndexSegment): number {
  let count = vectorCounts.get(segment);
  if (count === undefined) {
    count = 0;
    for (let ordinal = 0; ordinal < segment.chunks.length; ordinal++) count += segment.hasVector[ordinal];
    vectorCounts.set(segment, count);
  }
  return count;
}

function coverageOf(segment: IndexSegment): VectorCoverage {
  return { chunks: segment.chunks.length, withVectors: withVectorsOf(segment) };
}

/** Up to `limit` chunks of the segment without a vector, by chunk id. */
function chunksWithoutVectorsIn(segment: IndexSegment, limit: number): ChunkRecord[] {
  const ordinals: number[] = [];
  for (let ordinal = 0; ordinal < segment.chunks.length; ordinal++)
    if (segment.hasVector[ordinal] === 0) ordinals.push(ordinal);
  const id = (ordinal: number) => segment.chunks[ordinal].id;
  ordinals.sort((a, b) => (id(a) < id(b) ? -1 : id(a) > id(b) ? 1 : 0));
  return ordinals.slice(0, limit).map((ordinal) => chunkAt(segment, ordinal));
}

/**
 * A dense search during the index's vector backfill: the best chunks by BM25 among those still without a vector join
 * the candidates (fusion.ts ranks them by their BM25 share: unvectored). Nothing when every chunk has one.
 */
function offerUnvectored(
  segment: IndexSegment,
  req: SearchRequest,
  passes: OrdinalFilter | undefined,
  scratch: SparseScratch,
  candidates: Map<number, RankCandidate>,
): void {
  if (withVectorsOf(segment) === segment.chunks.length) return;
  const unvectored: OrdinalFilter = (ordinal) =>
    segment.hasVector[ordinal] === 0 && (passes === undefined || passes(ordinal));
  for (const match of searchSparse(segment, req.text, req.limit, unvectored, scratch)) {
    const id = segment.chunks[match.ordinal].id;
    candidates.set(match.ordinal, { id, sparse: match.bm25, unvectored: true });
  }
}

function chunkAt(segment: IndexSegment, ordinal: number): ChunkRecord {
  const stored = segment.chunks[ordinal];
  const record: ChunkRecord = { id: stored.id, text: stored.text, tokens: stored.tokens, metadata: stored.metadata };
  if (segment.hasVector[ordinal]) {
    record.vector = segment.matrix.vectors.slice(ordinal * segment.dims, (ordinal + 1) * segment.dims);
  }
  return record;
}

export function createEmbeddedEngine(options: EmbeddedEngineOptions): SearchEngine {
  const alpha = options.hybridAlpha ?? HYBRID_ALPHA;
  const reloadCheckIntervalMs = options.reloadCheckIntervalMs ?? 0;
  const states = new Map<string, IndexState>();
  const loading = new Map<string, Promise<IndexState | undefined>>();
  /** inventories rebuilt from the chunks of segments committed without one */
  const rebuiltInventories = new WeakMap<IndexSegment, CollectionInventory>();

  function indexDir(name: string): string {
    if (!INDEX_NAME.test(name) || name.includes("..")) {
      throw new Error(`embedded engine: invalid index name ${JSON.stringify(name)}`);
    }
    return join(options.dir, name);
  }

  /**
   * The index's state, loading it from disk on first use, and reloading it when another process committed a
   * newer generation while this one holds no uncommitted changes; undefined when the index exists nowhere.
   */
  async function findState(name: string): Promise<IndexState | undefined> {
    const known = states.get(name);
    if (known && (hasUncommitted(known) || (await committedStampUnchanged(known)))) {
      return known;
    }
    let load = loading.get(name);
    if (!load) {
      load = (async () => {
        const dir = indexDir(name);
        if (known) await known.commitQueue;
        if (!(await indexExistsOnDisk(dir))) {
          states.delete(name);
          return undefined;
        }
        const { segment, generation, stamp, inventory, layout } = await readIndexGeneration(dir);
        const state = newState(name, dir, segment, generation);
        state.embedding = await readIndexEmbedding(dir);
        state.stamp = stamp;
        state.layout = layout;
        state.inventory = inventory;
        state.stampCheckedAt = performance.now();
        states.set(name, state);
        return state;
      })().finally(() => loading.delete(name));
      loading.set(name, load);
    }
    return load;
  }

  /** Whether the manifest is still the one this state holds, trusted without a stat within the check interval. */
  async function committedStampUnchanged(state: IndexState): Promise<boolean> {
    const now = performance.now();
    if (reloadCheckIntervalMs > 0 && now - state.stampCheckedAt < reloadCheckIntervalMs) return true;
    if ((await manifestStamp(state.dir)) !== state.stamp) return false;
    state.stampCheckedAt = now;
    return true;
  }

  function hasUncommitted(state: IndexState): boolean {
    return (
      state.pending.size > 0 ||
      state.deletions.size > 0 ||
      state.inflight !== undefined ||
      state.stagedInventory !== undefined
    );
  }

  async function requireState(name: string): Promise<IndexState> {
    const state = await findState(name);
    if (!state) throw new Error(`embedded engine: index "${name}" does not exist`);
    return state;
  }

  function newState(name: string, dir: string, segment: IndexSegment, generation: number): IndexState {
    return {
      name,
      dir,
      dims: segment.dims,
      embedding: null,
      segment,
      pending: new Map(),
      deletions: new Set(),
      inflight: undefined,
      layout: undefined,
      generation,
      stamp: undefined,
      inventory: undefined,
      stagedInventory: undefined,
      stampCheckedAt: -Infinity,
      commitQueue: Promise.resolve(),
      scratch: new SparseScratch(),
    };
  }

  /**
   * Makes everything staged visible at once: the staged upserts and deletions are merged into a new segment beside the
   * committed one, written as the next generation, and only then swapped in, so searches read the old segment until
   * the swap and the new one after it, never a part of the change. Changes staged while it runs wait for the next
   * commit.
   */
  function commitState(state: IndexState): Promise<void> {
    const run = state.commitQueue.then(async () => {
      // another process committed since this one loaded the index: stage this change on top of that generation
      // rather than over it (two writers committing at the same moment still race: one process writes an index)
      if (
        state.stamp !== undefined &&
        (await manifestStamp(state.dir)) !== state.stamp &&
        (await indexExistsOnDisk(state.dir))
      ) {
        const latest = await readIndexGeneration(state.dir);
        state.segment = latest.segment;
        state.generation = latest.generation;
        state.stamp = latest.stamp;
        state.layout = latest.layout;
        state.inventory = latest.inventory;
      }
      const { pending, deletions } = state;
      const inventory = state.stagedInventory;
      if (pending.size === 0 && deletions.size === 0 && inventory === undefined && state.stamp !== undefined) return;
      state.pending = new Map();
      state.deletions = new Set();
      state.inflight = { pending, deletions };
      try {
        const segment =
          pending.size > 0 || deletions.size > 0
            ? mergeSegment(state.segment, [...pending.values()], deletions)
            : state.segment;
        const previous = state.layout && {
          layout: state.layout,
          keptRows: keptRows(state.segment, state.layout, segment, pending, deletions),
        };
        // changed chunks without a new inventory: the old one no longer describes them, so it is not carried over
        const written = await writeIndexGeneration(state.dir, segment, state.generation, inventory, previous);
        state.segment = segment;
        state.layout = written.layout;
        state.generation = written.generation;
        state.stamp = written.stamp;
        state.stampCheckedAt = performance.now();
        state.inventory = inventory;
        if (state.stagedInventory === inventory) state.stagedInventory = undefined;
      } catch (error) {
        // nothing became visible: stage the change again, under whatever was staged since
        for (const [id, entry] of pending)
          if (!state.pending.has(id) && !state.deletions.has(id)) state.pending.set(id, entry);
        for (const id of deletions) if (!state.pending.has(id)) state.deletions.add(id);
        throw error;
      } finally {
        state.inflight = undefined;
      }
    });
    state.commitQueue = run.catch(() => undefined);
    return run;
  }

  /**
   * Per ordinal of the merged segment, the row on disk that already holds its chunk, or -1 for a chunk the commit adds:
   * mergeSegment keeps the surviving chunks in order and appends the upserted ones.
   */
  function keptRows(
    base: IndexSegment,
    layout: RowLayout,
    merged: IndexSegment,
    pending: ReadonlyMap<string, PendingChunk>,
    deletions: ReadonlySet<string>,
  ): Int32Array {
    const rows = new Int32Array(merged.chunks.length).fill(-1);
    let ordinal = 0;
    for (let old = 0; old < base.chunks.length; old++) {
      const id = base.chunks[old].id;
      if (!pending.has(id) && !deletions.has(id)) rows[ordinal++] = layout.rowOf[old];
    }
    return rows;
  }

  /**
   * Whether the change a running commit writes touches this id (so the committed segment is not its latest version).
   */
  function inflightTouches(state: IndexState, id: string): boolean {
    return state.inflight !== undefined && (state.inflight.pending.has(id) || state.inflight.deletions.has(id));
  }

  function stageDeletion(state: IndexState, id: string): void {
    state.pending.delete(id);
    if (state.segment.ordinalById.has(id) || inflightTouches(state, id)) state.deletions.add(id);
  }

  function upsert(state: IndexState, chunk: ChunkRecord): void {
    if (chunk.vector && chunk.vector.length !== state.dims) {
      throw new Error(
        `embedded engine: chunk ${chunk.id} has a ${chunk.vector.length}-dim vector, index "${state.name}" ` +
          `has ${state.dims}`,
      );
    }
    const fingerprint = chunkFingerprint(chunk);
    state.deletions.delete(chunk.id);
    const ordinal = state.segment.ordinalById.get(chunk.id);
    if (
      ordinal !== undefined &&
      state.segment.chunks[ordinal].fingerprint === fingerprint &&
      !inflightTouches(state, chunk.id)
    ) {
      // identical to what is indexed: drop any different pending version and change nothing
      state.pending.delete(chunk.id);
      return;
    }
    if (state.pending.get(chunk.id)?.chunk.fingerprint === fingerprint) return;
    const { termFreqs, length } = countTerms(sparseFieldValues(chunk).flatMap(analyzeEnglish));
    state.pending.set(chunk.id, {
      chunk: { id: chunk.id, text: chunk.text, tokens: chunk.tokens, metadata: chunk.metadata, fingerprint },
      vector: chunk.vector ? Float32Array.from(chunk.vector) : undefined,
      termFreqs,
      length,
    });
  }

  function ordinalFilter(segment: IndexSegment, req: SearchRequest): OrdinalFilter | undefined {
    if (!req.filter) return undefined;
    const predicate = compileToPredicate(req.filter);
    // 0 = not evaluated yet, 1 = passes, 2 = fails
    const verdicts = new Uint8Array(segment.chunks.length);
    return (ordinal) => {
      let verdict = verdicts[ordinal];
      if (verdict === 0) {
        verdict = predicate(segment.chunks[ordinal].metadata) ? 1 : 2;
        verdicts[ordinal] = verdict;
      }
      return verdict === 1;
    };
  }

  function queryVector(state: IndexState, req: SearchRequest): Float32Array {
    if (!req.vector) throw new Error(`embedded engine: ${req.mode} search needs a query vector`);
    if (req.vector.length !== state.dims) {
      throw new Error(
        `embedded engine: query vector has ${req.vector.length} dims, index "${state.name}" has ${state.dims}`,
      );
    }
    if (state.embedding && req.embedding && state.embedding !== req.embedding)
      throw new EmbeddingMismatchError(state.name, state.embedding, req.embedding);
    return req.vector;
  }

  return {
    kind: "embedded",

    async ensureIndex(index, dims, embedding) {
      if (!Number.isInteger(dims) || dims <= 0) throw new Error(`embedded engine: invalid dims ${dims}`);
      const existing = await findState(index);
      if (existing) {
        if (existing.dims !== dims) {
          throw new Error(`embedded engine: index "${index}" has ${existing.dims} dims, asked for ${dims}`);
        }
        if (existing.embedding && embedding && existing.embedding !== embedding)
          throw new EmbeddingMismatchError(index, existing.embedding, embedding);
        return;
      }
      const state = newState(index, indexDir(index), emptySegment(dims), 0);
      state.embedding = embedding ?? null;
      states.set(index, state);
      await commitState(state);
      // after the first generation made the directory; read again by every process that loads the index
      if (embedding) await writeIndexEmbedding(state.dir, embedding);
    },

    async embeddingOf(index) {
      return (await findState(index))?.embedding ?? null;
    },

    async indexChunks(index, chunks) {
      const state = await requireState(index);
      for (const chunk of chunks) upsert(state, chunk);
    },

    async deleteChunks(index, ids) {
      const state = await requireState(index);
      for (const id of ids) stageDeletion(state, id);
    },

    async commit(index) {
      await commitState(await requireState(index));
    },

    async putInventory(index, inventory) {
      (await requireState(index)).stagedInventory = inventory;
    },

    async getInventory(index) {
      const state = await findState(index);
      if (!state) return null;
      const segment = state.segment;
      if (state.inventory) return state.inventory;
      let rebuilt = rebuiltInventories.get(segment);
      if (!rebuilt) {
        const tally = new InventoryTally();
        for (const chunk of segment.chunks) if (chunk.metadata.chunk_index === 0) tally.add(chunk.metadata);
        rebuilt = tally.inventory(index);
        rebuiltInventories.set(segment, rebuilt);
      }
      return rebuilt;
    },

    async search(req) {
      if (!Number.isInteger(req.limit) || req.limit < 0) throw new Error(`embedded engine: invalid limit ${req.limit}`);
      const state = await requireState(req.index);
      const segment = state.segment;
      if (req.limit === 0) return [];
      const passes = ordinalFilter(segment, req);
      const candidates = new Map<number, RankCandidate>();

      if (req.mode === "sparse") {
        for (const match of searchSparse(segment, req.text, req.limit, passes, state.scratch)) {
          candidates.set(match.ordinal, { id: segment.chunks[match.ordinal].id, sparse: match.bm25 });
        }
      } else if (req.mode === "dense") {
        for (const match of searchDense(segment, queryVector(state, req), req.limit, passes)) {
          candidates.set(match.ordinal, { id: segment.chunks[match.ordinal].id, dense: match.cosine });
        }
        offerUnvectored(segment, req, passes, state.scratch, candidates);
      } else {
        const vector = queryVector(state, req);
        const pool = hybridCandidateCount(req.limit);
        for (const match of searchDense(segment, vector, pool, passes)) {
          candidates.set(match.ordinal, { id: segment.chunks[match.ordinal].id, dense: match.cosine });
        }
        for (const match of searchSparse(segment, req.text, pool, passes, state.scratch)) {
          const known = candidates.get(match.ordinal);
          if (known) known.sparse = match.bm25;
          else {
            const cosine = cosineAt(segment, vector, match.ordinal);
            candidates.set(match.ordinal, {
              id: segment.chunks[match.ordinal].id,
              sparse: match.bm25,
              ...(cosine === undefined ? { unvectored: true as const } : { dense: cosine }),
            });
          }
        }
      }

      const ordinalById = new Map<string, number>();
      for (const [ordinal, candidate] of candidates) ordinalById.set(candidate.id, ordinal);
      const partial = withVectorsOf(segment) < segment.chunks.length;
      const ceiling = req.mode === "dense" && !partial ? 0 : sparseCeiling(segment, req.text);
      const ranked = rankCandidates(req.mode, [...candidates.values()], req.limit, ceiling, alpha);
      const end = req.keep ? documentsEnd(ranked, req.keep.rows, documentOfRow(segment, ordinalById, req.keep)) : 0;
      return (req.keep ? ranked.slice(0, end) : ranked).map((ranked): SearchHit => {
        // without its vector, as the OpenSearch adapter's: no caller of a search reads it (getChunks gives it)
        const { id, text, tokens, metadata } = segment.chunks[ordinalById.get(ranked.id) as number];
        const hit: SearchHit = { id: ranked.id, score: ranked.score, chunk: { id, text, tokens, metadata } };
        if (ranked.dense !== undefined) hit.dense = ranked.dense;
        if (ranked.sparse !== undefined) hit.sparse = ranked.sparse;
        return hit;
      });
    },

    async getChunks(index, ids) {
      const state = await requireState(index);
      const segment = state.segment;
      const found: ChunkRecord[] = [];
      for (const id of ids) {
        const ordinal = segment.ordinalById.get(id);
        if (ordinal !== undefined) found.push(chunkAt(segment, ordinal));
      }
      return found;
    },

    async countChunks(index, filter) {
      const segment = (await requireState(index)).segment;
      const predicate = compileToPredicate(filter);
      let count = 0;
      for (const chunk of segment.chunks) if (predicate(chunk.metadata)) count++;
      return count;
    },

    async findChunks(index, filter, limit) {
      const segment = (await requireState(index)).segment;
      const predicate = compileToPredicate(filter);
      const found: ChunkRecord[] = [];
      for (let ordinal = 0; ordinal < segment.chunks.length && found.length < limit; ordinal++) {
        if (predicate(segment.chunks[ordinal].metadata)) found.push(chunkAt(segment, ordinal));
      }
      return found;
    },

    async listDocuments(index, filter, fields) {
      return listSegmentDocuments((await requireState(index)).segment, filter, fields);
    },

    async facetCounts(index, filter, facets, limit) {
      return countSegmentFacets((await requireState(index)).segment, filter, facets, limit);
    },

    vectorCoverage: async (index) => coverageOf((await requireState(index)).segment),

    chunksWithoutVectors: async (index, limit) => chunksWithoutVectorsIn((await requireState(index)).segment, limit),

    async stats(index): Promise<IndexStats> {
      const state = await requireState(index);
      return { chunks: state.segment.chunks.length, bytes: await indexBytesOnDisk(state.dir) };
    },

    async hasIndex(index) {
      return (await findState(index)) !== undefined;
    },

    async deleteIndex(index) {
      const dir = indexDir(index);
      const state = states.get(index);
      if (state) await state.commitQueue;
      states.delete(index);
      await rm(dir, { recursive: true, force: true });
    },

    async ping() {
      return true;
    },

    async close() {
      await Promise.all([...states.values()].map((state) => state.commitQueue));
      states.clear();
    },
  };
}
