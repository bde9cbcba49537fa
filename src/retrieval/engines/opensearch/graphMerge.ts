// Merging a k-NN index's segments into one after a large write: each segment has its own HNSW graph, and every k-NN
// query walks all of them.
import type { Call } from "./transport.js";

/** share of an index's documents outside its largest segment above which commit merges its k-NN graphs into one */
const MERGE_WHEN_OUTSIDE_LARGEST = 0.2;

/**
 * Whether an index's graphs are worth merging, from the sizes (live and deleted documents) of each primary shard's
 * segments: when, in some shard, the segments beside its largest hold more than MERGE_WHEN_OUTSIDE_LARGEST of that
 * shard's documents. A bulk ingest's dozens of similar segments qualify; an upsert of 1% does not (its small segment is
 * merged by Lucene's own merge policy, in the background, with others). Rewriting the whole index each time a quarter
 * more has been written keeps the merging work proportional to what was written (a geometric series), where merging
 * after every commit rewrote the whole index for each small change. Each shard has graphs of its own, so shards are
 * judged apart: an index of 8 shards of one segment each is left alone, where its 8 segments taken together would look
 * like 7/8 outside the largest and be force-merged again at every commit.
 */
export function graphsWorthMerging(segmentSizesByShard: readonly (readonly number[])[]): boolean {
  return segmentSizesByShard.some((sizes) => {
    if (sizes.length <= 1) return false;
    const total = sizes.reduce((sum, size) => sum + size, 0);
    return total - Math.max(...sizes) > total * MERGE_WHEN_OUTSIDE_LARGEST;
  });
}

/** Each primary shard's segment sizes (live and deleted documents), as GET _segments lists them. */
async function segmentSizesByShard(call: Call, name: string): Promise<number[][]> {
  type Segments = Record<string, { num_docs: number; deleted_docs: number }>;
  type Copy = { routing?: { primary?: boolean }; segments: Segments };
  const { body } = await call<{ indices: Record<string, { shards: Record<string, Copy[]> }> }>(
    "GET",
    `/${name}/_segments`,
  );
  return Object.values(body.indices[name]?.shards ?? {}).map((copies) => {
    const primary = copies.find((copy) => copy.routing?.primary === true) ?? copies[0];
    return Object.values(primary?.segments ?? {}).map((segment) => segment.num_docs + segment.deleted_docs);
  });
}

/**
 * Force-merges a k-NN index into one segment, and refreshes: each segment has its own HNSW graph and every k-NN query
 * walks all of them, so a bulk ingest's dozens of segments multiplied dense search time (500,000 chunks: 44 segments,
 * dense p50 87 ms; one segment, 5 ms). The merge runs as a task, polled, since it outlasts any request timeout (370 s
 * at 500,000 chunks on 2 cores): commit runs it only when graphsWorthMerging says so.
 */
async function mergeGraphs(call: Call, name: string): Promise<void> {
  const { body: started } = await call<{ task: string }>(
    "POST",
    `/${name}/_forcemerge?max_num_segments=1&wait_for_completion=false`,
  );
  for (let delay = 100; ; delay = Math.min(delay * 2, 5_000)) {
    await new Promise((resolve) => setTimeout(resolve, delay));
    const { body: task } = await call<{ completed?: boolean; error?: { type: string; reason: string } }>(
      "GET",
      `/_tasks/${encodeURIComponent(started.task)}`,
    );
    if (task.error)
      throw new Error(`opensearch engine: merging ${name} failed: ${task.error.type} ${task.error.reason}`);
    if (task.completed) break;
  }
  // the merged segment becomes visible to searches at the next refresh (the index refreshes only on commit)
  await call("POST", `/${name}/_refresh`);
}

/** Merges the index's graphs into one when graphsWorthMerging says so; answers whether it did. */
export async function mergeGraphsIfWorthIt(call: Call, name: string): Promise<boolean> {
  if (!graphsWorthMerging(await segmentSizesByShard(call, name))) return false;
  await mergeGraphs(call, name);
  return true;
}
