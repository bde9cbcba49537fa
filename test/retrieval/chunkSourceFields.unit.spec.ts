// What the OpenSearch adapter asks of a stored chunk's source when it reads chunk records: the fields fromDocument
// reads, and not a first chunk's work_facets or any chunk's content_hash, which only facets and writes use.
import { describe, expect, it } from "vitest";
import {
  fromDocument,
  toDocument,
  WITH_VECTORS,
  WITHOUT_VECTORS,
  type ChunkDocument,
  type IndexInfo,
} from "../../src/retrieval/engines/opensearch/chunkDocuments.js";
import type { ChunkRecord } from "../../src/retrieval/port.js";

/** The source as OpenSearch answers it with `_source: { includes }` (top-level fields only, as these are). */
const pick = (document: ChunkDocument, includes: readonly string[]): Partial<ChunkDocument> =>
  Object.fromEntries(Object.entries(document).filter(([field]) => includes.includes(field)));

const firstChunk: ChunkRecord = {
  id: "c1",
  text: "Vitamin D and fractures in older adults.",
  tokens: 8,
  vector: Float32Array.from([0.6, 0.8]),
  metadata: {
    doc_id: "W1",
    chunk_index: 0,
    title: "Vitamin D",
    journal: "Bone",
    publication_year: 2020,
    authorships: [{ name: "A. Author", id: "A1", orcid: "0000-0002-1825-0097", position: "first" }],
  },
};

describe("the chunk source fields a read asks for", () => {
  for (const info of [
    { dims: 2, embedding: null, vectorStorage: "knn", binaryVectors: true },
    { dims: 2, embedding: null, vectorStorage: "knn", binaryVectors: false },
    { dims: 2, embedding: null, vectorStorage: "binary", binaryVectors: true },
  ] satisfies IndexInfo[]) {
    it(`give the same record as the whole source (${info.vectorStorage}, binary ${info.binaryVectors})`, () => {
      const stored = toDocument(firstChunk, info, "fingerprint");
      expect(stored.work_facets).toBeDefined();
      const read = pick(stored, WITH_VECTORS.includes);
      expect(fromDocument("c1", read)).toEqual(fromDocument("c1", stored));
      expect(fromDocument("c1", read).vector).toEqual(firstChunk.vector);
      expect(read).not.toHaveProperty("work_facets");
      expect(read).not.toHaveProperty("content_hash");
    });
  }

  it("without vectors give the record without its vector, and nothing else left out", () => {
    const stored = toDocument(firstChunk, { dims: 2, embedding: null, vectorStorage: "knn", binaryVectors: true }, "f");
    const { vector: _vector, ...withoutVector } = fromDocument("c1", stored);
    expect(fromDocument("c1", pick(stored, WITHOUT_VECTORS.includes))).toEqual(withoutVector);
  });
});
