// The normalized document every reader produces: text sections plus metadata under the spec's field names.
import type { ArticleType } from '../filters/articleTypes.js';

export interface DocumentSection {
  /** section name as stored in chunk metadata, e.g. "abstract", "methods", "results" */
  section: string;
  text: string;
}

/** Result metadata fields shared by scholarly and editorial documents (spec: "Result metadata fields"). */
export interface ScholarlyMetadata {
  title?: string | null;
  authors?: string[] | null;
  doi?: string | null;
  pmid?: string | null;
  pmcid?: string | null;
  url?: string | null;
  journal?: string | null;
  publisher?: string | null;
  /** normalized "1234-567X"; ISSN-L first when known */
  issn?: string[] | null;
  isbn?: string | null;
  keywords?: string[] | null;
  /** ISO date YYYY-MM-DD */
  publication_date?: string | null;
  article_type?: ArticleType | null;
  open_access?: boolean | null;
  license?: string | null;
}

/** Fields indexed on editorial collections only. */
export interface EditorialMetadata {
  topic?: string | null;
  url?: string | null;
  medical_board_approved?: boolean | null;
  /** ISO date YYYY-MM-DD */
  last_updated_date?: string | null;
  nct_id?: string | null;
  overall_status?: string | null;
  phases?: string[] | null;
  has_results?: boolean | null;
}

export type DocumentMetadata = ScholarlyMetadata & EditorialMetadata;

export interface SourceDocument {
  /** stable identifier within the collection (OpenAlex W-id, PMID, BEIR `_id`) */
  doc_id: string;
  title: string | null;
  sections: DocumentSection[];
  metadata: DocumentMetadata;
  /** the source itself flags the work as retracted (OpenAlex `is_retracted`); DOI lists are checked separately */
  retracted?: boolean;
}
