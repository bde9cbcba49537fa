// A chunk's metadata as stored with it, and the row a query record keeps of it: shapes the engines, the use cases and
// the workflows (an assisted run carries rows) all name, so they sit below every one of them.
import type { Authorship } from "./authors.js";

/** Metadata stored with a chunk; field names are the spec's (snake_case). */
export interface ChunkMetadata {
  chunk_index: number;
  doc_id: string;
  section?: string | null;
  title?: string | null;
  authors?: string[] | null;
  /** each author with its OpenAlex id, ORCID and position where the source gives them (src/domain/authors.ts) */
  authorships?: Authorship[] | null;
  /**
   * the authorships' OpenAlex ids and ORCIDs, which the `author_id` filter matches (indexed, never shown in a row)
   */
  author_id?: string[] | null;
  doi?: string | null;
  pmid?: string | null;
  pmcid?: string | null;
  url?: string | null;
  journal?: string | null;
  publisher?: string | null;
  issn?: string[] | null;
  isbn?: string | null;
  keywords?: string[] | null;
  publication_date?: string | null;
  article_type?: string | null;
  open_access?: boolean | null;
  license?: string | null;
  figures?: FigureRef[] | null;
  /** works citing this one, where the source counts them (OpenAlex) */
  cited_by_count?: number | null;
  [field: string]: unknown;
}

export interface FigureRef {
  id: string;
  label: string;
  caption: string;
  /**
   * path of the image file relative to the collection's figure directory (images the ingestion draws); never returned
   * to clients
   */
  path?: string;
  /**
   * the image file a source ships beside its article (a JATS `<graphic>`), relative to the data root; never returned to
   * clients
   */
  source?: string;
}

/** One row of a query record: a chunk as delivered (or previewed), with its price. */
export interface CachedRow {
  id: string;
  /** the collection as requested (a meta-collection's name for its members' rows) */
  collection: string;
  /** the physical collection holding the chunk */
  physical: string;
  text: string;
  teaser: string;
  metadata: ChunkMetadata;
  relevance: number | null;
  tokens: number;
  /** per-row cost to unlock, micro-credits, as a decimal string */
  costMicros: string;
  pricePer1000Micros: string;
  figureCount: number;
}
