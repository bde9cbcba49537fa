// Reads OpenAlex work records (JSON lines, 2023 schema) into source documents.
import { z } from "zod";
import { articleTypeFromOpenAlex } from "./articleType.js";
import { plainTextFromMarkup } from "./inlineMarkup.js";
import { doiFromSource, issnListFromSource, pmcidFromSource, pmidFromSource } from "./sourceIdentifiers.js";
import type { SourceDocument } from "./sourceDocument.js";
import type { DocumentSubject } from "../domain/inventory.js";
import { restoreGluedBoundaries } from "./sentences.js";
import { readableIssues, readJsonLineItems } from "./sourceFiles.js";
import { sourceNotice } from "../domain/integrity.js";
import {
  normalizeOrcid,
  openAlexAuthorId,
  positionInOrder,
  type AuthorPosition,
  type Authorship,
} from "../domain/authors.js";

const source = z
  .object({
    display_name: z.string().nullish(),
    issn_l: z.string().nullish(),
    issn: z.array(z.string()).nullish(),
    host_organization_name: z.string().nullish(),
    /** journal, repository, conference, ebook platform, ... */
    type: z.string().nullish(),
  })
  .nullish();

const location = z
  .object({
    landing_page_url: z.string().nullish(),
    license: z.string().nullish(),
    source,
  })
  .nullish();

const openAlexWork = z.object({
  id: z.string(),
  doi: z.string().nullish(),
  title: z.string().nullish(),
  publication_date: z.string().nullish(),
  type: z.string().nullish(),
  ids: z.record(z.string(), z.string().nullish()).nullish(),
  primary_location: location,
  best_oa_location: location,
  open_access: z.object({ is_oa: z.boolean().nullish(), oa_status: z.string().nullish() }).nullish(),
  authorships: z
    .array(
      z.object({
        author_position: z.string().nullish(),
        author: z
          .object({ id: z.string().nullish(), display_name: z.string().nullish(), orcid: z.string().nullish() })
          .nullish(),
      }),
    )
    .nullish(),
  is_retracted: z.boolean().nullish(),
  cited_by_count: z.number().int().nonnegative().nullish(),
  referenced_works: z.array(z.string()).nullish(),
  is_paratext: z.boolean().nullish(),
  concepts: z
    .array(z.object({ display_name: z.string(), score: z.union([z.string(), z.number()]).nullish() }))
    .nullish(),
  mesh: z.array(z.object({ descriptor_name: z.string(), is_major_topic: z.boolean().nullish() })).nullish(),
  // checked where it is used: validating every position of every word through zod doubled the read time
  abstract_inverted_index: z.record(z.string(), z.unknown()).nullish(),
});

type OpenAlexWork = z.infer<typeof openAlexWork>;

/** OpenAlex oa_status values that mean the work is free to read; "closed" is not, null is unknown. */
const OPEN_ACCESS_STATUSES = new Set(["gold", "green", "bronze", "hybrid", "diamond"]);

/**
 * Whether a work is free to read: OpenAlex's `is_oa` where it says, else its `oa_status` (a record may give either
 * alone: 386 works of the demo files say `is_oa: false` with no status); null when neither does.
 */
function openAccessOf(oa: { is_oa?: boolean | null; oa_status?: string | null } | null | undefined): boolean | null {
  if (typeof oa?.is_oa === "boolean") return oa.is_oa;
  const status = oa?.oa_status ?? null;
  return status === null ? null : OPEN_ACCESS_STATUSES.has(status);
}

/** Concepts at or above this score count as keywords when a work has no MeSH headings. */
const CONCEPT_KEYWORD_MIN_SCORE = 0.3;

/**
 * Rebuilds abstract text from OpenAlex's inverted index by placing every word at each of its positions. The index
 * splits on spaces only, so a line break between sections leaves words such as "unclear.To": the boundary is put back.
 */
export function abstractFromInvertedIndex(index: Record<string, unknown> | null | undefined): string {
  if (!index) return "";
  const words: string[] = [];
  for (const [word, positions] of Object.entries(index)) {
    if (!Array.isArray(positions)) throw new Error(`abstract_inverted_index["${word}"] is not a list of positions`);
    for (const position of positions) {
      if (!Number.isInteger(position) || position < 0 || position > 1_000_000) {
        throw new Error(`abstract_inverted_index["${word}"] holds an invalid position ${String(position)}`);
      }
      words[position as number] = word;
    }
  }
  // holes (positions nobody claims) are skipped rather than rendered as gaps
  const text = words.filter((word) => word !== undefined).join(" ");
  // some abstracts open with an "Abstract" heading and carry HTML section headings and inline tags
  return restoreGluedBoundaries(plainTextFromMarkup(text.replace(/^\s*<h[1-6]>\s*abstract\s*<\/h[1-6]>/i, "")));
}

function openAlexShortId(id: string): string {
  return id.replace(/^https?:\/\/openalex\.org\//i, "");
}

function keywordsOf(work: OpenAlexWork): string[] {
  const mesh = [...new Set((work.mesh ?? []).map((heading) => heading.descriptor_name))];
  if (mesh.length > 0) return mesh;
  return (work.concepts ?? [])
    .filter((concept) => Number(concept.score ?? 0) >= CONCEPT_KEYWORD_MIN_SCORE)
    .map((concept) => concept.display_name);
}

/**
 * The subjects a work is classified under: its OpenAlex concepts scored at least CONCEPT_KEYWORD_MIN_SCORE (any level,
 * "Medicine" to "Borderline personality disorder") and its major MeSH descriptors. The journals listing matches a
 * topic against them (src/usecases/catalogue/subjectMatch.ts).
 */
function subjectsOf(work: OpenAlexWork): DocumentSubject[] {
  return [
    ...(work.concepts ?? [])
      .filter((concept) => Number(concept.score ?? 0) >= CONCEPT_KEYWORD_MIN_SCORE)
      .map((concept) => ({ name: concept.display_name, scheme: "openalex_concept" as const })),
    ...(work.mesh ?? [])
      .filter((heading) => heading.is_major_topic === true)
      .map((heading) => ({ name: heading.descriptor_name, scheme: "mesh" as const })),
  ];
}

function isoDate(value: string | null | undefined): string | null {
  return value && /^\d{4}-\d{2}-\d{2}$/.test(value) ? value : null;
}

const POSITIONS: ReadonlySet<string> = new Set(["first", "middle", "last"]);

/** The named authorships, each with its OpenAlex author id and ORCID where OpenAlex resolved them. */
function authorshipsOf(work: z.infer<typeof openAlexWork>): Authorship[] {
  return (work.authorships ?? []).flatMap((authorship, i, all) => {
    const name = authorship.author?.display_name?.trim();
    if (!name) return [];
    const position = authorship.author_position ?? "";
    return [
      {
        name,
        id: openAlexAuthorId(authorship.author?.id),
        orcid: normalizeOrcid(authorship.author?.orcid),
        position: POSITIONS.has(position) ? (position as AuthorPosition) : positionInOrder(i, all.length),
      },
    ];
  });
}

interface Venue {
  journal: string | null;
  publisher: string | null;
  issns: (string | null | undefined)[];
}

/**
 * Where the work was published: its primary location's source, unless that is a repository (DOAJ, PubMed Central),
 * which holds a copy and is no journal: then none, rather than the repository's name printed as the journal.
 */
function venueOf(work: z.infer<typeof openAlexWork>): Venue {
  const primary = work.primary_location?.source;
  if (!primary || primary.type === "repository") return { journal: null, publisher: null, issns: [] };
  return {
    journal: primary.display_name ?? null,
    publisher: primary.host_organization_name ?? null,
    issns: [primary.issn_l, ...(primary.issn ?? [])],
  };
}

/** Maps one OpenAlex work record to a source document (doc_id = the short W-id). */
/**
 * A publisher that takes back an article in press leaves its record titled "WITHDRAWN: ..." (Elsevier's practice),
 * often with no list naming the withdrawal: the title is the record's own notice.
 */
const WITHDRAWN_TITLE = /^\s*withdrawn\s*:/i;

/** The record's own integrity notices: OpenAlex's is_retracted, and a title that says the work was withdrawn. */
function noticesOf(retracted: boolean, title: string | null): Pick<SourceDocument, "notices"> {
  const notices = [
    ...(retracted ? [sourceNotice("retraction", "openalex")] : []),
    ...(title && WITHDRAWN_TITLE.test(title) ? [sourceNotice("withdrawal", "openalex")] : []),
  ];
  return notices.length > 0 ? { notices } : {};
}

export function openAlexWorkToDocument(raw: unknown): SourceDocument {
  const parsed = openAlexWork.safeParse(raw);
  if (!parsed.success) throw new Error(readableIssues(parsed.error));
  const work = parsed.data;
  const venue = venueOf(work);
  const title = work.title ? plainTextFromMarkup(work.title) || null : null;
  const openAccess = openAccessOf(work.open_access);
  const abstract = abstractFromInvertedIndex(work.abstract_inverted_index);
  const authorships = authorshipsOf(work);
  const authors = authorships.map((a) => a.name);
  const issn = issnListFromSource(venue.issns);
  const keywords = keywordsOf(work);
  const subjects = subjectsOf(work);
  return {
    doc_id: openAlexShortId(work.id),
    title,
    sections: abstract ? [{ section: "abstract", text: abstract }] : [],
    metadata: {
      title,
      authors: authors.length > 0 ? authors : null,
      authorships: authorships.length > 0 ? authorships : null,
      doi: doiFromSource(work.doi ?? work.ids?.doi),
      pmid: pmidFromSource(work.ids?.pmid),
      pmcid: pmcidFromSource(work.ids?.pmcid),
      url: work.primary_location?.landing_page_url ?? null,
      journal: venue.journal,
      publisher: venue.publisher,
      issn: issn.length > 0 ? issn : null,
      keywords: keywords.length > 0 ? keywords : null,
      publication_date: isoDate(work.publication_date),
      article_type: articleTypeFromOpenAlex(work.type, title, work.is_paratext ?? false),
      open_access: openAccess,
      license: work.primary_location?.license ?? work.best_oa_location?.license ?? null,
      // as OpenAlex counted when the record was taken: what sort=cited_by_count orders by
      cited_by_count: work.cited_by_count ?? null,
    },
    retracted: work.is_retracted ?? false,
    ...noticesOf(work.is_retracted ?? false, title),
    ...(subjects.length > 0 ? { subjects } : {}),
    work: {
      openalex: openAlexShortId(work.id),
      cited_by_count: work.cited_by_count ?? null,
      // OpenAlex records a work's references as OpenAlex ids; a record without the field records none
      references_recorded: work.referenced_works ? work.referenced_works.length : null,
      references: (work.referenced_works ?? []).map((id) => ({ openalex: openAlexShortId(id) })),
      ...(work.mesh && work.mesh.length > 0
        ? { mesh: [...new Set(work.mesh.map((heading) => heading.descriptor_name))] }
        : {}),
    },
  };
}

/** The works of an OpenAlex JSON-lines file; a line that is not a work is listed by number and reason. */
export const readOpenAlexWorks = (path: string): AsyncGenerator<SourceDocument> =>
  readJsonLineItems(path, openAlexWorkToDocument);
