// bench:speed --against: the OpenSearch index each tree's service searches is the one that tree's own adapter writes.
// Both services use the node's one SciFact index (litsearch-scifact). An adapter refuses an index of a newer mapping
// version and upgrades an older one in place, so a tree whose adapter writes another version than this tree's would
// either answer 503 to every search (29 Nov: c78caf6, mapping version 2, on the index this tree's version 3 had
// written: the bench stopped in its cold pass with "search answered 503") or be measured on an index it never writes.
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import type { ChunkRecord, SearchEngine } from "../src/retrieval/port.js";
import { copyIndex, SCIFACT_COLLECTION } from "./scifactBench.js";

const ADAPTER = join("src", "retrieval", "engines", "opensearch");

/** The mapping version a tree's adapter writes (its indexMapping.ts). */
export async function mappingVersionOf(root: string): Promise<number> {
  const module = (await import(pathToFileURL(join(root, ADAPTER, "indexMapping.ts")).href)) as {
    OPENSEARCH_MAPPING_VERSION: number;
  };
  return module.OPENSEARCH_MAPPING_VERSION;
}

/** The mapping version the node's SciFact index was written with; undefined when there is none. */
export async function indexMappingVersion(url: string): Promise<number | undefined> {
  const name = `litsearch-${SCIFACT_COLLECTION}`;
  const response = await fetch(`${url}/${name}/_mapping`);
  if (response.status === 404) return undefined;
  const body = (await response.json()) as Record<string, { mappings?: { _meta?: { mappingVersion?: number } } }>;
  return body[name]?.mappings?._meta?.mappingVersion;
}

/**
 * Before a tree's service is measured: the SciFact index written again by that tree's adapter when the other tree's
 * wrote it last (`writtenBy`: the tree whose adapter wrote the index now on the node). `chunks`: the index's chunks in
 * ingestion order, with their vectors.
 */
export function treeIndexes(
  url: string,
  chunks: readonly ChunkRecord[],
  dims: number,
  writtenBy: string,
): (root: string) => Promise<void> {
  const byId = new Map(chunks.map((chunk) => [chunk.id, chunk]));
  const source = {
    getChunks: async (_index: string, ids: string[]) => ids.map((id) => byId.get(id)!),
  } as unknown as SearchEngine;
  return async (root) => {
    if (root === writtenBy) return;
    const started = performance.now();
    const module = (await import(pathToFileURL(join(root, ADAPTER, "openSearchEngine.ts")).href)) as {
      createOpenSearchEngine: (options: { url: string }) => SearchEngine;
    };
    const engine = module.createOpenSearchEngine({ url });
    try {
      if (await engine.hasIndex(SCIFACT_COLLECTION)) await engine.deleteIndex(SCIFACT_COLLECTION);
      await copyIndex(source, engine, SCIFACT_COLLECTION, [...byId.keys()], dims);
    } finally {
      await engine.close();
    }
    writtenBy = root;
    console.error(
      `[speed] OpenSearch index written again by the adapter of ${root} (mapping version ` +
        `${await mappingVersionOf(root)}) in ${Math.round(performance.now() - started)} ms`,
    );
  };
}
