// The spec's article_type vocabulary and the synonyms accepted for it; ingestion maps source types through the same
// table.

export const ARTICLE_TYPES = [
  "research-article",
  "review",
  "case-report",
  "editorial",
  "letter",
  "correction",
  "retraction",
  "brief-report",
  "protocol",
  "commentary",
  "book",
  "book-chapter",
  "preprint",
  "monograph",
  "dataset",
  "trial-registration",
  "other",
] as const;

export type ArticleType = (typeof ARTICLE_TYPES)[number];

/** Synonyms, written in the normalized spelling (lower case, words joined by hyphens). */
const ARTICLE_TYPE_SYNONYMS = new Map<string, ArticleType>(
  Object.entries({
    article: "research-article",
    "journal-article": "research-article",
    "original-article": "research-article",
    "original-research": "research-article",
    "research-paper": "research-article",
    "review-article": "review",
    "systematic-review": "review",
    "case-reports": "case-report",
    "letter-to-the-editor": "letter",
    "letter-to-editor": "letter",
    correspondence: "letter",
    erratum: "correction",
    corrigendum: "correction",
    "retraction-notice": "retraction",
    "retracted-article": "retraction",
    "short-communication": "brief-report",
    "brief-communication": "brief-report",
    "rapid-communication": "brief-report",
    "study-protocol": "protocol",
    comment: "commentary",
    "book-part": "book-chapter",
    chapter: "book-chapter",
    "posted-content": "preprint",
    "data-set": "dataset",
    "clinical-trial-registration": "trial-registration",
  } satisfies Record<string, ArticleType>),
);

/** "Review Article", "review_article", "REVIEW" → "review"; null when neither a type nor a synonym. */
export function canonicalArticleType(raw: string): ArticleType | null {
  const normalized = raw
    .trim()
    .toLowerCase()
    .replace(/[\s_]+/g, "-");
  if ((ARTICLE_TYPES as readonly string[]).includes(normalized)) return normalized as ArticleType;
  return ARTICLE_TYPE_SYNONYMS.get(normalized) ?? null;
}
