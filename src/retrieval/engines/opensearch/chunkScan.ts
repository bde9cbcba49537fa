// Every chunk of an index that a query selects, read a page at a time (search_after over the chunk id, so any number
// of pages), only the named metadata fields: a collection's inventory and the documents works/facets counts.
import { compileToOpenSearch } from "../../../filters/compileToOpenSearch.js";
import type { FilterNode } from "../../../filters/ast.js";
import { byDocId, pickFields } from "../../documentFields.js";
import type { ChunkMetadata } from "../../port.js";
import { FIELD } from "./indexMapping.js";
import type { SearchResponseBody } from "./queryBuilder.js";
import type { Call } from "./transport.js";

/** Calls `visit` with each selected chunk's metadata (the named fields only), in chunk-id order. */
export async function scanChunkMetadata(
  call: Call,
  name: string,
  scan: { query: unknown; fields: readonly string[]; pageSize: number },
  visit: (metadata: Partial<ChunkMetadata>) => void,
): Promise<void> {
  let after: unknown[] | undefined;
  for (;;) {
    // a shard that does not answer fails the scan: an inventory missing its chunks would be wrong, not short
    const { body } = await call<SearchResponseBody>("POST", `/${name}/_search?allow_partial_search_results=false`, {
      size: scan.pageSize,
      query: scan.query,
      _source: scan.fields.map((field) => `${FIELD.metadata}.${field}`),
      sort: [{ [FIELD.chunkId]: "asc" }],
      track_total_hits: false,
      ...(after ? { search_after: after } : {}),
    });
    const hits = body.hits.hits;
    for (const hit of hits) visit(hit._source?.[FIELD.metadata] ?? {});
    if (hits.length < scan.pageSize) return;
    after = hits[hits.length - 1]!.sort;
  }
}

/** chunks per page of listDocuments' scan (search_after, so any number of pages) */
const DOCUMENT_SCAN_PAGE = 5_000;

/** SearchEngine.listDocuments: each document once (the first of its chunks scanned), the named fields, by doc_id. */
export async function listIndexDocuments(
  call: Call,
  name: string,
  filter: FilterNode | undefined,
  fields: readonly string[],
): Promise<ChunkMetadata[]> {
  const documents = new Map<string, ChunkMetadata>();
  const query = filter ? { bool: { filter: [compileToOpenSearch(filter)] } } : { match_all: {} };
  await scanChunkMetadata(call, name, { query, fields: ["doc_id", ...fields], pageSize: DOCUMENT_SCAN_PAGE }, (m) => {
    if (typeof m.doc_id !== "string" || documents.has(m.doc_id)) return;
    documents.set(m.doc_id, pickFields(m, fields));
  });
  return [...documents.values()].sort(byDocId);
}
