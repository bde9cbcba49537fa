// Stored chunk vectors for the judge, read from the search engine: the vectors ingestion embedded, so judging a
// candidate of a dense or hybrid collection costs no inference.
import type { CollectionCatalog } from "../../domain/collectionDefinitions.js";
import type { SearchEngine } from "../../retrieval/port.js";
import type { ChunkVectors } from "./judge.js";

export function chunkVectorsFromEngine(deps: { engine: SearchEngine; catalog: CollectionCatalog }): ChunkVectors {
  return async (candidates) => {
    const vectors = new Map<string, Float32Array>();
    const byCollection = new Map<string, string[]>();
    for (const c of candidates) byCollection.set(c.collection, [...(byCollection.get(c.collection) ?? []), c.id]);
    for (const [name, ids] of byCollection) {
      const entry = deps.catalog.resolveCollection(name);
      if (!entry) continue;
      let wanted = ids;
      // a meta-collection's candidate lives in one of its members; sparse members store no vectors
      for (const member of deps.catalog.physicalMembers(entry).filter((m) => m.retrieval !== "sparse")) {
        if (wanted.length === 0) break;
        const chunks = await deps.engine.getChunks(member.name, wanted);
        for (const chunk of chunks) if (chunk.vector) vectors.set(chunk.id, chunk.vector);
        wanted = wanted.filter((id) => !vectors.has(id));
      }
    }
    return vectors;
  };
}
