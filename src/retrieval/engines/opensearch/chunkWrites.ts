// The OpenSearch adapter's writes of chunks: upserts and deletions in bulk batches, staged in the live index until
// commit's refresh (indexLifecycle.ts).
import type { ChunkRecord } from "../../port.js";
import { chunkFingerprint } from "../../chunkFingerprint.js";
import { toDocument, type IndexInfo, type MgetResponseBody } from "./chunkDocuments.js";
import type { OpenSearchContext } from "./engineContext.js";
import { FIELD } from "./indexMapping.js";

/** Indexes one batch, skipping chunks whose stored fingerprint is unchanged; throws on any item error. */
async function indexBatch(ctx: OpenSearchContext, name: string, info: IndexInfo, chunks: ChunkRecord[]): Promise<void> {
  // last occurrence of an id in the batch wins, as with sequential upserts
  const latest = new Map<string, ChunkRecord>();
  for (const chunk of chunks) latest.set(chunk.id, chunk);
  const ids = [...latest.keys()];
  const { body: existing } = await ctx.call<MgetResponseBody>(
    "POST",
    `/${name}/_mget?_source_includes=${FIELD.fingerprint}`,
    { ids },
  );
  const storedFingerprint = new Map<string, string | undefined>();
  for (const doc of existing.docs) if (doc.found) storedFingerprint.set(doc._id, doc._source?.[FIELD.fingerprint]);

  const bulkBody: unknown[] = [];
  for (const chunk of latest.values()) {
    const fingerprint = chunkFingerprint(chunk);
    if (storedFingerprint.get(chunk.id) === fingerprint) continue;
    bulkBody.push({ index: { _index: name, _id: chunk.id } }, toDocument(chunk, info, fingerprint));
  }
  if (bulkBody.length === 0) return;
  ctx.changedSinceCommit.add(name);
  const result = await ctx.transport.bulk(bulkBody);
  if (result.errors) {
    const failures = result.items
      .map((item) => Object.values(item)[0])
      .filter((outcome) => outcome.error !== undefined)
      .map((outcome) => `${outcome._id}: ${outcome.error?.type} ${outcome.error?.reason}`);
    throw new Error(
      `opensearch engine: ${failures.length} chunk(s) failed to index into ${name}: ` +
        `${failures.slice(0, 5).join("; ")}`,
    );
  }
}

/**
 * Deletes one batch by id; ids the index does not hold answer not_found and are ignored. Like an upsert, a deletion
 * is invisible to searches until commit's refresh.
 */
async function deleteBatch(ctx: OpenSearchContext, name: string, ids: readonly string[]): Promise<void> {
  const bulkBody = ids.map((id) => ({ delete: { _index: name, _id: id } }));
  const result = await ctx.transport.bulk(bulkBody);
  const outcomes = result.items.map((item) => Object.values(item)[0]);
  if (outcomes.some((outcome) => outcome.result === "deleted")) ctx.changedSinceCommit.add(name);
  const failures = outcomes.filter((outcome) => outcome.error !== undefined && outcome.status !== 404);
  if (failures.length > 0) {
    const detail = failures.map((outcome) => `${outcome._id}: ${outcome.error?.type} ${outcome.error?.reason}`);
    throw new Error(
      `opensearch engine: ${failures.length} chunk(s) failed to delete from ${name}: ` +
        `${detail.slice(0, 5).join("; ")}`,
    );
  }
}

export async function indexChunks(ctx: OpenSearchContext, index: string, chunks: ChunkRecord[]): Promise<void> {
  const info = await ctx.requireInfo(index);
  const name = ctx.indexName(index);
  for (let start = 0; start < chunks.length; start += ctx.batchSize) {
    await indexBatch(ctx, name, info, chunks.slice(start, start + ctx.batchSize));
  }
}

export async function deleteChunks(ctx: OpenSearchContext, index: string, ids: readonly string[]): Promise<void> {
  await ctx.requireInfo(index);
  const name = ctx.indexName(index);
  const unique = [...new Set(ids)];
  for (let start = 0; start < unique.length; start += ctx.batchSize) {
    await deleteBatch(ctx, name, unique.slice(start, start + ctx.batchSize));
  }
}
