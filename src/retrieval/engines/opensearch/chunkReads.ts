// The OpenSearch adapter's reads outside a search, as of the last commit: chunks by id, by filter, counted, the
// documents' metadata, and an index's size.
import type { FilterNode } from "../../../filters/ast.js";
import { compileToOpenSearch } from "../../../filters/compileToOpenSearch.js";
import type { ChunkMetadata, ChunkRecord, IndexStats } from "../../port.js";
import { fromDocument, type ChunkDocument } from "./chunkDocuments.js";
import { listIndexDocuments } from "./chunkScan.js";
import type { OpenSearchContext } from "./engineContext.js";
import { fetchChunks } from "./searchRetrievers.js";

export async function getChunks(ctx: OpenSearchContext, index: string, ids: string[]): Promise<ChunkRecord[]> {
  await ctx.requireInfo(index);
  return fetchChunks(ctx, ctx.indexName(index), ids);
}

export async function countChunks(ctx: OpenSearchContext, index: string, filter: FilterNode): Promise<number> {
  await ctx.requireInfo(index);
  const { body } = await ctx.call<{ count: number }>("POST", `/${ctx.indexName(index)}/_count`, {
    query: { bool: { filter: [compileToOpenSearch(filter)] } },
  });
  return body.count;
}

export async function findChunks(
  ctx: OpenSearchContext,
  index: string,
  filter: FilterNode,
  limit: number,
): Promise<ChunkRecord[]> {
  await ctx.requireInfo(index);
  const { body } = await ctx.call<{ hits: { hits: { _id: string; _source: ChunkDocument }[] } }>(
    "POST",
    `/${ctx.indexName(index)}/_search`,
    {
      size: limit,
      query: { bool: { filter: [compileToOpenSearch(filter)] } },
    },
  );
  return body.hits.hits.map((hit) => fromDocument(hit._id, hit._source));
}

export async function listDocuments(
  ctx: OpenSearchContext,
  index: string,
  filter: FilterNode | undefined,
  fields: readonly string[],
): Promise<ChunkMetadata[]> {
  await ctx.requireInfo(index);
  return listIndexDocuments(ctx.call, ctx.indexName(index), filter, fields);
}

export async function stats(ctx: OpenSearchContext, index: string): Promise<IndexStats> {
  await ctx.requireInfo(index);
  const name = ctx.indexName(index);
  const [chunks, { body: store }] = await Promise.all([
    ctx.countOf(name),
    ctx.call<{ indices: Record<string, { primaries: { store: { size_in_bytes: number } } }> }>(
      "GET",
      `/${name}/_stats/store`,
    ),
  ]);
  return { chunks, bytes: store.indices[name]?.primaries.store.size_in_bytes ?? 0 };
}
