// bench:speed --against: the OpenSearch index each tree's service searches is one that tree's own adapter wrote.
// An adapter refuses an index of a newer mapping version and upgrades an older one in place, so two trees whose
// adapters write different versions cannot share the node's one SciFact index (litsearch-scifact): the older tree
// answers 503 to every search on the index the newer one wrote (29 Nov: c78caf6, mapping version 2, on this tree's
// version 3; then 0f66c9d, version 3, on version 4), and rewriting the shared index before each tree's turn did not
// hold either, since the floor, searched through this tree's adapter between the trees, upgrades the older tree's
// index in place. So when the versions differ the other tree's service gets a collection of its own, named
// AGAINST_COLLECTION in its collections file, whose index (litsearch-scifact-against) its own adapter writes once
// and nothing of this tree ever opens.
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import type { ChunkRecord, SearchEngine } from "../src/retrieval/port.js";
import { copyIndex, SCIFACT_COLLECTION } from "./scifactBench.js";

const ADAPTER = join("src", "retrieval", "engines", "opensearch");
/** the collection the other tree's OpenSearch service searches when its adapter writes another mapping version */
export const AGAINST_COLLECTION = `${SCIFACT_COLLECTION}-against`;

/** The mapping version a tree's adapter writes (its indexMapping.ts); undefined when the tree has none to read. */
export async function mappingVersionOf(root: string): Promise<number | undefined> {
  try {
    const module = (await import(pathToFileURL(join(root, ADAPTER, "indexMapping.ts")).href)) as {
      OPENSEARCH_MAPPING_VERSION?: number;
    };
    return module.OPENSEARCH_MAPPING_VERSION;
  } catch {
    return undefined;
  }
}

/**
 * The collection a tree's OpenSearch service searches (its index: litsearch-<collection>): this tree's is SciFact's
 * own; the other tree shares it only when both adapters are known to write the same mapping version.
 */
export function treeCollection(
  tag: "this" | "against",
  thisVersion: number | undefined,
  thatVersion: number | undefined,
): string {
  if (tag === "this") return SCIFACT_COLLECTION;
  return thisVersion !== undefined && thatVersion === thisVersion ? SCIFACT_COLLECTION : AGAINST_COLLECTION;
}

/**
 * Whether an index already on the node can serve a tree as it is: it was written with the mapping version that tree's
 * adapter writes and holds every chunk. Anything else is deleted and written again.
 */
export function indexReusable(
  onNode: { mappingVersion: number | undefined; chunks: number } | undefined,
  treeVersion: number | undefined,
  chunks: number,
): boolean {
  return (
    onNode !== undefined &&
    treeVersion !== undefined &&
    onNode.mappingVersion === treeVersion &&
    onNode.chunks === chunks
  );
}

/** The mapping version an index on the node was written with; undefined when there is none. */
export async function indexMappingVersion(url: string, collection = SCIFACT_COLLECTION): Promise<number | undefined> {
  const name = `litsearch-${collection}`;
  const response = await fetch(`${url}/${name}/_mapping`);
  if (response.status === 404) return undefined;
  const body = (await response.json()) as Record<string, { mappings?: { _meta?: { mappingVersion?: number } } }>;
  return body[name]?.mappings?._meta?.mappingVersion;
}

/**
 * The other tree's own index (`collection`, see treeCollection) written by that tree's adapter, from `chunks` (the
 * SciFact index's chunks in ingestion order, with their vectors); kept when a previous run left it whole and of that
 * tree's mapping version.
 */
export async function writeTreeIndex(
  url: string,
  root: string,
  collection: string,
  chunks: readonly ChunkRecord[],
  dims: number,
): Promise<void> {
  const started = performance.now();
  const byId = new Map(chunks.map((chunk) => [chunk.id, chunk]));
  const source = {
    getChunks: async (_index: string, ids: string[]) => ids.map((id) => byId.get(id)!),
  } as unknown as SearchEngine;
  const module = (await import(pathToFileURL(join(root, ADAPTER, "openSearchEngine.ts")).href)) as {
    createOpenSearchEngine: (options: { url: string }) => SearchEngine;
  };
  const version = await mappingVersionOf(root);
  const engine = module.createOpenSearchEngine({ url });
  try {
    // the version first: an adapter's stats refuse an index of a version it cannot read
    const onNodeVersion = await indexMappingVersion(url, collection);
    const onNode = (await engine.hasIndex(collection))
      ? {
          mappingVersion: onNodeVersion,
          chunks: onNodeVersion === version ? (await engine.stats(collection)).chunks : -1,
        }
      : undefined;
    if (onNode && !indexReusable(onNode, version, byId.size)) await deleteIndexOnNode(url, collection);
    const how = await copyIndex(source, engine, collection, [...byId.keys()], dims);
    console.error(
      `[speed] OpenSearch index litsearch-${collection} ${how} by the adapter of ${root} (mapping version ` +
        `${version ?? "unknown"}) in ${Math.round(performance.now() - started)} ms`,
    );
  } finally {
    await engine.close();
  }
}

/** An index deleted straight on the node: an adapter may refuse to open, and so to delete, a version it cannot read. */
async function deleteIndexOnNode(url: string, collection: string): Promise<void> {
  const response = await fetch(`${url}/litsearch-${collection}`, { method: "DELETE" });
  if (!response.ok && response.status !== 404)
    throw new Error(`deleting litsearch-${collection} answered ${response.status}: ${await response.text()}`);
}
