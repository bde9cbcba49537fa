// How each source's own type labels (OpenAlex type and title, MEDLINE PublicationType) map onto the spec's
// article_type.
import type { ArticleType } from "../filters/articleTypes.js";
import { canonicalArticleType } from "../filters/articleTypes.js";

// OpenAlex `type`. The 2023 records we ship carry Crossref's types (nearly all "journal-article"); the later
// OpenAlex schema adds its own (review, editorial, letter, erratum, ...), so both vocabularies are mapped.
// Only the OpenAlex/Crossref labels the shared synonym table (canonicalArticleType) does not already cover.
const OPENALEX_TYPES: Record<string, ArticleType> = {
  "proceedings-article": "research-article",
  "edited-book": "book",
  "reference-book": "book",
  "book-section": "book-chapter",
};

/**
 * Types that a generic "journal-article" may turn out to be, recognised from the title. Order matters: first match
 * wins.
 */
const TITLE_CUES: Array<[RegExp, ArticleType]> = [
  // "Correction of low levels of astigmatism" is a study of correcting something, not a notice
  [/^(erratum|corrigendum)\b|^corrections?\b(?!\s+(of|in|with|by|using)\b)/i, "correction"],
  [/^retraction( notice| statement)?\b/i, "retraction"],
  [/\b(study|trial|review) protocol\b|\bprotocol for (a|an|the)\b/i, "protocol"],
  [/\bcase reports?\b/i, "case-report"],
  [/^letters?\b|\bletter to the editor\b/i, "letter"],
  [/^editorial\b/i, "editorial"],
  // "Comment on ...", "Comment: ...", never the French "Comment traiter ..." ("how to treat")
  [/^(comments? (on|to|about)\b|comments?\s*:|commentary\b|reply\b|response to\b)/i, "commentary"],
  [
    new RegExp(
      String.raw`\b(systematic|scoping|narrative|literature|umbrella|rapid|integrative|critical` +
        String.raw`|comprehensive|updated?) review\b|\bmeta-?analys[ie]s\b|\breview of (the )?(literature` +
        String.raw`|evidence)\b|^(an? )?(brief )?review\b|: (an? )?review\b` +
        String.raw`|\boverview of (systematic )?reviews\b`,
      "i",
    ),
    "review",
  ],
];

/**
 * OpenAlex work → article_type. An explicit OpenAlex type wins (review, editorial, letter, erratum → correction, ...).
 * A journal or proceedings article becomes research-article unless its title marks it as a correction, retraction
 * notice, protocol, case report, letter, editorial, commentary or review (OpenAlex's 2023 schema has no such types).
 * Paratext and the remaining types (journal-issue, reference-entry, dissertation, other, ...) become "other".
 */
/** `title` is plain text (markup already removed). */
export function articleTypeFromOpenAlex(
  type: string | null | undefined,
  title: string | null,
  isParatext: boolean,
): ArticleType {
  if (isParatext) return "other";
  const mapped = type ? (OPENALEX_TYPES[type] ?? canonicalArticleType(type)) : null;
  if (!mapped) return "other";
  return mapped === "research-article" ? researchArticleByTitle(title) : mapped;
}

/** A research article, unless its title marks it as another type (TITLE_CUES). */
function researchArticleByTitle(title: string | null | undefined): ArticleType {
  if (title) for (const [cue, articleType] of TITLE_CUES) if (cue.test(title.trim())) return articleType;
  return "research-article";
}

// MEDLINE PublicationType → article_type, highest priority first (a review that is also a journal article is a review).
const PUBMED_TYPES: Array<[string, ArticleType]> = [
  ["Retraction of Publication", "retraction"],
  ["Published Erratum", "correction"],
  ["Clinical Trial Protocol", "protocol"],
  ["Study Protocol", "protocol"],
  ["Systematic Review", "review"],
  ["Meta-Analysis", "review"],
  ["Review", "review"],
  ["Case Reports", "case-report"],
  ["Editorial", "editorial"],
  ["Letter", "letter"],
  ["Comment", "commentary"],
  ["Preprint", "preprint"],
  ["Dataset", "dataset"],
  ["News", "other"],
  ["Video-Audio Media", "other"],
  ["Introductory Journal Article", "other"],
];

/**
 * MEDLINE PublicationTypeList → article_type: the first listed mapping that applies, else for a journal article what
 * its title marks it as (a record still being indexed lists only "Journal Article", so "...: a systematic review"
 * would otherwise read as research), else research-article; anything else is other.
 */
export function articleTypeFromPubMed(publicationTypes: readonly string[], title?: string | null): ArticleType {
  const present = new Set(publicationTypes.map((type) => type.trim()));
  for (const [publicationType, articleType] of PUBMED_TYPES) if (present.has(publicationType)) return articleType;
  if ([...present].some((type) => /Trial|Study|Studies/.test(type))) return "research-article";
  return present.has("Journal Article") ? researchArticleByTitle(title) : "other";
}

// JATS `article@article-type` values (JATS 1.3 tag library, plus PMC's) that the shared synonym table does not cover.
const JATS_TYPES: Record<string, ArticleType> = {
  "article-commentary": "commentary",
  discussion: "commentary",
  reply: "commentary",
  "partial-retraction": "retraction",
  "methods-article": "research-article",
  "data-paper": "dataset",
};

/** JATS article-type → article_type; a type outside the vocabulary (news, obituary, book-review, ...) is "other". */
export function articleTypeFromJats(articleType: string): ArticleType {
  const normalized = articleType.trim().toLowerCase();
  return JATS_TYPES[normalized] ?? canonicalArticleType(normalized) ?? "other";
}
