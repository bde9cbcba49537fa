// The embedded engine's reads of a committed segment outside a search: chunks by id or filter, counted, the vector
// coverage, the chunks still without a vector, and the inventory (rebuilt from the chunks when none was committed).
import { InventoryTally, type CollectionInventory } from "../../../domain/inventory.js";
import type { FilterNode } from "../../../filters/ast.js";
import { compileToPredicate } from "../../../filters/compileToPredicate.js";
import type { ChunkRecord, VectorCoverage } from "../../port.js";
import type { IndexSegment } from "./indexSegment.js";
import type { EmbeddedContext, IndexState } from "./indexState.js";

/** Chunks of a segment with a vector, counted once per segment (a segment never changes). */
const vectorCounts = new WeakMap<IndexSegment, number>();
export function withVectorsOf(segment: IndexSegment): number {
  let count = vectorCounts.get(segment);
  if (count === undefined) {
    count = 0;
    for (let ordinal = 0; ordinal < segment.chunks.length; ordinal++) count += segment.hasVector[ordinal];
    vectorCounts.set(segment, count);
  }
  return count;
}

export function coverageOf(segment: IndexSegment): VectorCoverage {
  return { chunks: segment.chunks.length, withVectors: withVectorsOf(segment) };
}

function chunkAt(segment: IndexSegment, ordinal: number): ChunkRecord {
  const stored = segment.chunks[ordinal];
  const record: ChunkRecord = { id: stored.id, text: stored.text, tokens: stored.tokens, metadata: stored.metadata };
  if (segment.hasVector[ordinal]) {
    record.vector = segment.matrix.vectors.slice(ordinal * segment.dims, (ordinal + 1) * segment.dims);
  }
  return record;
}

/** Up to `limit` chunks of the segment without a vector, by chunk id. */
export function chunksWithoutVectorsIn(segment: IndexSegment, limit: number): ChunkRecord[] {
  const ordinals: number[] = [];
  for (let ordinal = 0; ordinal < segment.chunks.length; ordinal++)
    if (segment.hasVector[ordinal] === 0) ordinals.push(ordinal);
  const id = (ordinal: number) => segment.chunks[ordinal].id;
  ordinals.sort((a, b) => (id(a) < id(b) ? -1 : id(a) > id(b) ? 1 : 0));
  return ordinals.slice(0, limit).map((ordinal) => chunkAt(segment, ordinal));
}

/** The chunks of these ids the segment holds, in the order asked. */
export function chunksByIdIn(segment: IndexSegment, ids: readonly string[]): ChunkRecord[] {
  const found: ChunkRecord[] = [];
  for (const id of ids) {
    const ordinal = segment.ordinalById.get(id);
    if (ordinal !== undefined) found.push(chunkAt(segment, ordinal));
  }
  return found;
}

export function countChunksIn(segment: IndexSegment, filter: FilterNode): number {
  const predicate = compileToPredicate(filter);
  let count = 0;
  for (const chunk of segment.chunks) if (predicate(chunk.metadata)) count++;
  return count;
}

/** The first `limit` chunks of the segment that pass the filter, in segment order. */
export function findChunksIn(segment: IndexSegment, filter: FilterNode, limit: number): ChunkRecord[] {
  const predicate = compileToPredicate(filter);
  const found: ChunkRecord[] = [];
  for (let ordinal = 0; ordinal < segment.chunks.length && found.length < limit; ordinal++) {
    if (predicate(segment.chunks[ordinal].metadata)) found.push(chunkAt(segment, ordinal));
  }
  return found;
}

/** The inventory committed with the segment, else one rebuilt from its first chunks (once per segment). */
export function inventoryOf(ctx: EmbeddedContext, state: IndexState, index: string): CollectionInventory {
  const segment = state.segment;
  if (state.inventory) return state.inventory;
  let rebuilt = ctx.rebuiltInventories.get(segment);
  if (!rebuilt) {
    const tally = new InventoryTally();
    for (const chunk of segment.chunks) if (chunk.metadata.chunk_index === 0) tally.add(chunk.metadata);
    rebuilt = tally.inventory(index);
    ctx.rebuiltInventories.set(segment, rebuilt);
  }
  return rebuilt;
}
