// What every operation of the embedded engine shares, built once per engine (EmbeddedContext): its options, the
// states of the indexes it has loaded (IndexState: the committed segment searches read, and what is staged for the
// next commit), and how an index is found, loaded from disk, or reloaded after another process's commit. The
// operations beside it take the context as their first argument; embeddedEngine.ts only assembles them.
import { join } from "node:path";
import type { CollectionInventory } from "../../../domain/inventory.js";
import { HYBRID_ALPHA } from "../../fusion.js";
import {
  indexExistsOnDisk,
  manifestStamp,
  readIndexEmbedding,
  readIndexGeneration,
  type RowLayout,
} from "./indexFiles.js";
import type { IndexSegment, PendingChunk } from "./indexSegment.js";
import { SparseScratch } from "./segmentSearch.js";

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

export interface IndexState {
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

export interface EmbeddedContext {
  /** directory holding one sub-directory per index */
  readonly dir: string;
  /** weight of the dense score in hybrid fusion */
  readonly alpha: number;
  /** how long searches may trust the loaded generation before checking the manifest again */
  readonly reloadCheckIntervalMs: number;
  /** the indexes loaded, by name */
  readonly states: Map<string, IndexState>;
  /** the loads of indexes under way, by name */
  readonly loading: Map<string, Promise<IndexState | undefined>>;
  /** inventories rebuilt from the chunks of segments committed without one */
  readonly rebuiltInventories: WeakMap<IndexSegment, CollectionInventory>;
}

const INDEX_NAME = /^[A-Za-z0-9][A-Za-z0-9._-]{0,199}$/;

export function createEmbeddedContext(options: EmbeddedEngineOptions): EmbeddedContext {
  return {
    dir: options.dir,
    alpha: options.hybridAlpha ?? HYBRID_ALPHA,
    reloadCheckIntervalMs: options.reloadCheckIntervalMs ?? 0,
    states: new Map(),
    loading: new Map(),
    rebuiltInventories: new WeakMap(),
  };
}

export function indexDir(ctx: EmbeddedContext, name: string): string {
  if (!INDEX_NAME.test(name) || name.includes("..")) {
    throw new Error(`embedded engine: invalid index name ${JSON.stringify(name)}`);
  }
  return join(ctx.dir, name);
}

export function newState(name: string, dir: string, segment: IndexSegment, generation: number): IndexState {
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

function hasUncommitted(state: IndexState): boolean {
  return (
    state.pending.size > 0 ||
    state.deletions.size > 0 ||
    state.inflight !== undefined ||
    state.stagedInventory !== undefined
  );
}

/** Whether the manifest is still the one this state holds, trusted without a stat within the check interval. */
async function committedStampUnchanged(ctx: EmbeddedContext, state: IndexState): Promise<boolean> {
  const now = performance.now();
  if (ctx.reloadCheckIntervalMs > 0 && now - state.stampCheckedAt < ctx.reloadCheckIntervalMs) return true;
  if ((await manifestStamp(state.dir)) !== state.stamp) return false;
  state.stampCheckedAt = now;
  return true;
}

/**
 * The index's state, loading it from disk on first use, and reloading it when another process committed a
 * newer generation while this one holds no uncommitted changes; undefined when the index exists nowhere.
 */
export async function findState(ctx: EmbeddedContext, name: string): Promise<IndexState | undefined> {
  const known = ctx.states.get(name);
  if (known && (hasUncommitted(known) || (await committedStampUnchanged(ctx, known)))) {
    return known;
  }
  let load = ctx.loading.get(name);
  if (!load) {
    load = (async () => {
      const dir = indexDir(ctx, name);
      if (known) await known.commitQueue;
      if (!(await indexExistsOnDisk(dir))) {
        ctx.states.delete(name);
        return undefined;
      }
      const { segment, generation, stamp, inventory, layout } = await readIndexGeneration(dir);
      const state = newState(name, dir, segment, generation);
      state.embedding = await readIndexEmbedding(dir);
      state.stamp = stamp;
      state.layout = layout;
      state.inventory = inventory;
      state.stampCheckedAt = performance.now();
      ctx.states.set(name, state);
      return state;
    })().finally(() => ctx.loading.delete(name));
    ctx.loading.set(name, load);
  }
  return load;
}

export async function requireState(ctx: EmbeddedContext, name: string): Promise<IndexState> {
  const state = await findState(ctx, name);
  if (!state) throw new Error(`embedded engine: index "${name}" does not exist`);
  return state;
}
