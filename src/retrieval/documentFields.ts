// What SearchEngine.listDocuments answers for a document, the same on both engines: its doc_id and the named
// document-level fields it carries, the documents ordered by doc_id (code-unit order, whatever the locale).
import type { ChunkMetadata } from "./port.js";

/** `doc_id` and those of `fields` the metadata holds (absent fields stay absent). */
export function pickFields(metadata: Partial<ChunkMetadata>, fields: readonly string[]): ChunkMetadata {
  // a document's record, not a chunk's: no chunk_index
  const picked = { doc_id: String(metadata.doc_id) } as ChunkMetadata;
  for (const field of fields) if (metadata[field] !== undefined) picked[field] = metadata[field];
  return picked;
}

export const byDocId = (a: Pick<ChunkMetadata, "doc_id">, b: Pick<ChunkMetadata, "doc_id">): number =>
  a.doc_id < b.doc_id ? -1 : a.doc_id > b.doc_id ? 1 : 0;
