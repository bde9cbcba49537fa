// What the OpenSearch adapter stores per chunk, what it knows of a collection index, and how a chunk record maps onto
// the stored document and back.
import type { ChunkMetadata, ChunkRecord } from "../../port.js";
import {
  authorPeopleValues,
  workFacetValues,
  type AuthorPeopleValues,
  type WorkFacetValues,
} from "../../workFacetValues.js";
import { decodeVector, encodeVector } from "./denseScoring.js";
import { FIELD, type VectorStorage } from "./indexMapping.js";

/** The document stored per chunk. */
export interface ChunkDocument {
  [FIELD.chunkId]: string;
  [FIELD.text]: string;
  [FIELD.tokens]: number;
  [FIELD.metadata]: ChunkMetadata;
  [FIELD.fingerprint]: string;
  [FIELD.vectorBinary]?: string;
  [FIELD.vectorKnn]?: number[];
  /** on a document's first chunk (chunk_index 0) only: one chunk per work for the facets' aggregations */
  [FIELD.workFacets]?: WorkFacetValues & AuthorPeopleValues;
}

/** What the adapter knows of a collection index, from its mapping. */
export interface IndexInfo {
  dims: number;
  /** the embedding path recorded at creation (the mapping's _meta.embedding); null when none */
  embedding: string | null;
  vectorStorage: VectorStorage;
  /**
   * the vector is also in the binary doc-values field (always with binary storage; k-NN indexes since mapping version
   * 2)
   */
  binaryVectors: boolean;
}

/** Vector fields a search response needs in _source only where this adapter computes exact cosines from them. */
export const WITHOUT_VECTORS = { excludes: [FIELD.vectorBinary, FIELD.vectorKnn] };

export interface MgetResponseBody {
  docs: Array<{ _id: string; found: boolean; _source?: Partial<ChunkDocument> }>;
}

export function toDocument(chunk: ChunkRecord, info: IndexInfo, fingerprint: string): ChunkDocument {
  const document: ChunkDocument = {
    [FIELD.chunkId]: chunk.id,
    [FIELD.text]: chunk.text,
    [FIELD.tokens]: chunk.tokens,
    [FIELD.metadata]: chunk.metadata,
    [FIELD.fingerprint]: fingerprint,
  };
  if (chunk.metadata.chunk_index === 0)
    document[FIELD.workFacets] = { ...workFacetValues(chunk.metadata), ...authorPeopleValues(chunk.metadata) };
  if (chunk.vector) {
    if (chunk.vector.length !== info.dims) {
      throw new Error(
        `opensearch engine: chunk ${chunk.id} has a ${chunk.vector.length}-dim vector, index has ${info.dims}`,
      );
    }
    if (info.vectorStorage === "knn") document[FIELD.vectorKnn] = Array.from(chunk.vector);
    if (info.binaryVectors) document[FIELD.vectorBinary] = encodeVector(chunk.vector);
  }
  return document;
}

export function fromDocument(id: string, source: Partial<ChunkDocument>): ChunkRecord {
  const record: ChunkRecord = {
    id: source[FIELD.chunkId] ?? id,
    text: source[FIELD.text] ?? "",
    tokens: source[FIELD.tokens] ?? 0,
    metadata: source[FIELD.metadata] ?? { chunk_index: 0, doc_id: "" },
  };
  const binary = source[FIELD.vectorBinary];
  const knn = source[FIELD.vectorKnn];
  if (typeof binary === "string") record.vector = decodeVector(binary);
  else if (Array.isArray(knn)) record.vector = Float32Array.from(knn);
  return record;
}
