// The OpenSearch adapter's index lifecycle: an index created (or checked against the dims and embedding asked),
// everything staged published at a commit's refresh with its inventory, and an index deleted with its inventory.
// Updates are in place, by chunk id, published index-wide by a refresh (openSearchEngine.ts says why).
import type { CollectionInventory } from "../../../domain/inventory.js";
import { EmbeddingMismatchError } from "../../port.js";
import type { OpenSearchContext } from "./engineContext.js";
import { mergeGraphsIfWorthIt } from "./graphMerge.js";
import { chunkIndexBody } from "./indexMapping.js";

export async function ensureIndex(
  ctx: OpenSearchContext,
  index: string,
  dims: number,
  embedding: string | undefined,
): Promise<void> {
  if (!Number.isInteger(dims) || dims <= 0) throw new Error(`opensearch engine: invalid dims ${dims}`);
  const existing = await ctx.indexInfo(index);
  if (existing) {
    if (existing.dims !== dims)
      throw new Error(
        `opensearch engine: index "${ctx.indexName(index)}" has ${existing.dims} dims, asked for ${dims}`,
      );
    if (existing.embedding && embedding && existing.embedding !== embedding)
      throw new EmbeddingMismatchError(index, existing.embedding, embedding);
    return;
  }
  const name = ctx.indexName(index);
  const vectorStorage = await ctx.detectVectorStorage();
  const { body, statusCode } = await ctx.call<{ error?: { type: string; reason: string } }>(
    "PUT",
    `/${name}`,
    chunkIndexBody(dims, vectorStorage, embedding, ctx.options.indexLayout),
    [400],
  );
  if (statusCode === 400 && body.error?.type !== "resource_already_exists_exception") {
    throw new Error(`opensearch engine: creating ${name} failed: ${body.error?.type} ${body.error?.reason}`);
  }
  await ctx.requireInfo(index);
}

export async function commit(ctx: OpenSearchContext, index: string): Promise<void> {
  const info = await ctx.requireInfo(index);
  const name = ctx.indexName(index);
  await ctx.call("POST", `/${name}/_refresh`);
  const chunksChanged = ctx.changedSinceCommit.has(name);
  if (info.vectorStorage === "knn" && chunksChanged) await mergeGraphsIfWorthIt(ctx.call, name);
  await ctx.inventories.commit(name, chunksChanged);
  // this process's searches read the new count at once (others within CHUNK_COUNT_TTL_MS)
  ctx.chunkCounts.delete(name);
  if (chunksChanged) await ctx.coverageReader.refresh(name, info).catch(() => ctx.coverageReader.forget(name));
  ctx.changedSinceCommit.delete(name);
}

export async function putInventory(
  ctx: OpenSearchContext,
  index: string,
  inventory: CollectionInventory,
): Promise<void> {
  await ctx.requireInfo(index);
  ctx.inventories.stage(ctx.indexName(index), inventory);
}

export async function getInventory(ctx: OpenSearchContext, index: string): Promise<CollectionInventory | null> {
  if (!(await ctx.indexInfo(index))) return null;
  return ctx.inventories.get(ctx.indexName(index), index);
}

export async function deleteIndex(ctx: OpenSearchContext, index: string): Promise<void> {
  ctx.infoByIndex.delete(index);
  const name = ctx.indexName(index);
  ctx.changedSinceCommit.delete(name);
  ctx.chunkCounts.delete(name);
  await ctx.call("DELETE", `/${name}`, undefined, [404]);
  await ctx.inventories.delete(name);
}

/** Whether the cluster answers its health. */
export async function ping(ctx: OpenSearchContext): Promise<boolean> {
  try {
    const { statusCode } = await ctx.call("GET", "/_cluster/health?timeout=5s");
    return statusCode === 200;
  } catch {
    return false;
  }
}
