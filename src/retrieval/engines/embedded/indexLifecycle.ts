// The embedded engine's index lifecycle: an index created (or checked against the dims and embedding asked), what is
// staged made visible at once by a commit that writes the next generation, and an index deleted.
import { rm } from "node:fs/promises";
import { EmbeddingMismatchError } from "../../port.js";
import {
  indexExistsOnDisk,
  manifestStamp,
  readIndexGeneration,
  writeIndexEmbedding,
  writeIndexGeneration,
  type RowLayout,
} from "./indexFiles.js";
import { emptySegment, mergeSegment, type IndexSegment, type PendingChunk } from "./indexSegment.js";
import { findState, indexDir, newState, type EmbeddedContext, type IndexState } from "./indexState.js";

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
 * Makes everything staged visible at once: the staged upserts and deletions are merged into a new segment beside the
 * committed one, written as the next generation, and only then swapped in, so searches read the old segment until
 * the swap and the new one after it, never a part of the change. Changes staged while it runs wait for the next
 * commit.
 */
export function commitState(state: IndexState): Promise<void> {
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

export async function ensureIndex(
  ctx: EmbeddedContext,
  index: string,
  dims: number,
  embedding: string | undefined,
): Promise<void> {
  if (!Number.isInteger(dims) || dims <= 0) throw new Error(`embedded engine: invalid dims ${dims}`);
  const existing = await findState(ctx, index);
  if (existing) {
    if (existing.dims !== dims) {
      throw new Error(`embedded engine: index "${index}" has ${existing.dims} dims, asked for ${dims}`);
    }
    if (existing.embedding && embedding && existing.embedding !== embedding)
      throw new EmbeddingMismatchError(index, existing.embedding, embedding);
    return;
  }
  const state = newState(index, indexDir(ctx, index), emptySegment(dims), 0);
  state.embedding = embedding ?? null;
  ctx.states.set(index, state);
  await commitState(state);
  // after the first generation made the directory; read again by every process that loads the index
  if (embedding) await writeIndexEmbedding(state.dir, embedding);
}

export async function deleteIndex(ctx: EmbeddedContext, index: string): Promise<void> {
  const dir = indexDir(ctx, index);
  const state = ctx.states.get(index);
  if (state) await state.commitQueue;
  ctx.states.delete(index);
  await rm(dir, { recursive: true, force: true });
}

/** Waits for every index's running commit, then forgets the indexes loaded. */
export async function closeIndexes(ctx: EmbeddedContext): Promise<void> {
  await Promise.all([...ctx.states.values()].map((state) => state.commitQueue));
  ctx.states.clear();
}
