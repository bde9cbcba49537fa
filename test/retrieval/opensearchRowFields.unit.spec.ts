// What an OpenSearch search fetches of each hit's _source (chunkDocuments.ts): only the fields a row is made of, so a
// row read from them is the row read from the whole stored document (the first chunk's work_facets and the fingerprint
// are left on the node), with and without its vector.
import { describe, expect, it } from "vitest";
import {
  fromDocument,
  toDocument,
  WITH_VECTORS,
  WITHOUT_VECTORS,
  type ChunkDocument,
  type IndexInfo,
} from "../../src/retrieval/engines/opensearch/chunkDocuments.js";
import { FIELD } from "../../src/retrieval/engines/opensearch/indexMapping.js";
import type { ChunkRecord } from "../../src/retrieval/port.js";

/** the _source OpenSearch answers for `includes` (top-level fields, as ours are) */
const only = (document: ChunkDocument, includes: readonly string[]): Partial<ChunkDocument> =>
  Object.fromEntries(Object.entries(document).filter(([field]) => includes.includes(field)));

const vector = Float32Array.from([0.6, 0.8, 0]);
/** a first chunk (it carries work_facets) with a vector, metadata of every kind the facets read */
const chunk: ChunkRecord = {
  id: "w1#0",
  text: "Hair cortisol as a marker of chronic stress.",
  tokens: 9,
  vector,
  metadata: {
    doc_id: "w1",
    chunk_index: 0,
    title: "Hair cortisol",
    doi: "10.1000/x",
    journal: "Psychoneuroendocrinology",
    issn: ["0306-4530"],
    publication_date: "2019-05-01",
    keywords: ["Stress"],
    authors: ["A. Person"],
    authorships: [{ name: "A. Person", id: "A5000000001", orcid: "0000-0001-2345-6789", position: "first" }],
    open_access: true,
    article_type: "review",
  },
};
const layouts: IndexInfo[] = [
  { dims: 3, embedding: null, vectorStorage: "knn", binaryVectors: true },
  { dims: 3, embedding: null, vectorStorage: "binary", binaryVectors: true },
];

describe("the _source fields a search fetches", () => {
  it.each(layouts.map((l) => [l.vectorStorage, l] as const))(
    "make the same row as the whole document (%s storage), with its vector and without",
    (_storage, info) => {
      const stored = toDocument(chunk, info, "fingerprint");
      expect(stored[FIELD.workFacets]).toBeDefined(); // the fields left on the node are there to leave
      const whole = fromDocument(chunk.id, stored);
      expect(fromDocument(chunk.id, only(stored, WITH_VECTORS.includes))).toEqual(whole);
      const { vector: _, ...withoutVector } = whole;
      expect(fromDocument(chunk.id, only(stored, WITHOUT_VECTORS.includes))).toEqual(withoutVector);
    },
  );

  it("leave out the first chunk's work_facets and the fingerprint", () => {
    for (const includes of [WITH_VECTORS.includes, WITHOUT_VECTORS.includes]) {
      expect(includes).not.toContain(FIELD.workFacets);
      expect(includes).not.toContain(FIELD.fingerprint);
    }
  });
});
