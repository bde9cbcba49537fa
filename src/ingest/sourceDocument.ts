// The normalized document every reader produces: text sections plus metadata under the spec's field names.
import type { ArticleType } from "../filters/articleTypes.js";
import type { ChunkMetadata } from "../retrieval/port.js";
import type { DocumentSubject } from "../domain/inventory.js";
import type { IntegrityNotice } from "../domain/integrity.js";

export interface DocumentSection {
  /** section name as stored in chunk metadata, e.g. "abstract", "methods", "results" */
  section: string;
  text: string;
  /**
   * the heading as the source prints it, where it says more than `section` (MEDLINE's "TRIAL REGISTRATION" under
   * NLM's category BACKGROUND): exports lead the part with it
   */
  label?: string;
}

/**
 * Result metadata fields shared by scholarly and editorial documents: the port's chunk fields, article_type narrowed.
 */
type ScholarlyMetadata = Pick<
  ChunkMetadata,
  | "title"
  | "authors"
  | "authorships"
  | "doi"
  | "pmid"
  | "pmcid"
  | "url"
  | "journal"
  | "publisher"
  | "issn"
  | "isbn"
  | "keywords"
  | "publication_date"
  | "open_access"
  | "license"
  | "figures"
  | "cited_by_count"
> & { article_type?: ArticleType | null };

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

/** A work another one cites, by the identifiers its source gives (at least one). */
export interface CitedWorkIds {
  doi?: string | null;
  pmid?: string | null;
  /** OpenAlex short id ("W123") */
  openalex?: string | null;
}

/** What a source says about a document as a work besides its chunk metadata: its graph edges and citation count. */
export interface SourceWork {
  /** OpenAlex short id, where the source has one */
  openalex?: string | null;
  /** the source's count of works citing it (OpenAlex cited_by_count); absent where the source has none */
  cited_by_count?: number | null;
  /**
   * how many references the source records for it (OpenAlex referenced_works, a JATS ref-list, MEDLINE "Cites"
   * entries); absent or null where the source records none
   */
  references_recorded?: number | null;
  /** the references that carry an identifier, in the source's order */
  references?: CitedWorkIds[];
  /** the abstract whole, where the reader knows it apart from the body (JATS, MEDLINE); else the "abstract" section */
  abstract?: string | null;
  /** every MeSH heading the source gives (the subjects keep only the major ones) */
  mesh?: string[];
}

/** A document has no `deleted` field: narrow a SourceItem with `'deleted' in item`. */
export interface SourceDocument {
  /** stable identifier within the collection (OpenAlex W-id, PMID, BEIR `_id`) */
  doc_id: string;
  title: string | null;
  sections: DocumentSection[];
  metadata: DocumentMetadata;
  /**
   * retracted by the retraction rule when it was staged (src/domain/integrity.ts: its own notices, or a list in force
   * then); a source line may say so itself (`"retracted": true`)
   */
  retracted?: boolean;
  /**
   * what its own source record says of its integrity (OpenAlex `is_retracted`, MEDLINE publication types and
   * CommentsCorrections links): a `retraction` notice here flags it retracted
   */
  notices?: IntegrityNotice[];
  /** what the source says of it as a work (identifiers beyond the metadata, references, citation count) */
  work?: SourceWork;
  /** the subject classification the source carries (OpenAlex concepts, MeSH headings); counted per journal */
  subjects?: DocumentSubject[];
}

/** The source says a document is gone (a JSONL `{"id", "deleted": true}` line, a MEDLINE `DeleteCitation`). */
interface SourceDeletion {
  deleted: true;
  /** the doc_id of the document to remove, in the same identity the document was read under */
  doc_id: string;
}

/** What a reader yields: a document (new or revised: the ingestion compares fingerprints) or a deletion. */
export type SourceItem = SourceDocument | SourceDeletion;

/**
 * Abstract sections as one text: a structured abstract's parts each led by its heading as printed ("Trial
 * registration: …"), else its section ("Methods: …"), an unlabelled one as it is; null without any text.
 */
export function joinedAbstract(sections: readonly DocumentSection[]): string | null {
  const parts = sections.filter((s) => s.text.trim());
  if (parts.length === 0) return null;
  if (parts.length === 1) return parts[0]!.text.trim();
  return parts
    .map((s) => {
      const heading = s.label ?? (s.section === "abstract" ? null : s.section);
      return heading ? `${heading[0]!.toUpperCase()}${heading.slice(1)}: ${s.text.trim()}` : s.text.trim();
    })
    .join("\n");
}

/** Why a record holding U+0000 is refused: no stored text may hold it (PostgreSQL refuses it). */
export const NUL_REFUSAL = "holds a NUL character (U+0000), which no stored text may hold";

/**
 * Whether any string of a record holds U+0000: a document holding one is refused at reading, before any of it reaches
 * the index.
 */
export function holdsNul(value: unknown): boolean {
  if (typeof value === "string") return value.includes("\u0000");
  if (Array.isArray(value)) return value.some(holdsNul);
  if (value !== null && typeof value === "object") return Object.values(value).some(holdsNul);
  return false;
}
