// A retraction notice: what the retraction lists say about one retracted article (read by src/ingest/retractions.ts).

/**
 * What the retraction lists say about one retracted article: the notice's date, reason and DOI, and which list says so.
 */
export interface RetractionNotice {
  /** the retracted article's DOI, lower-case */
  doi: string;
  source: "retraction_watch" | "open_retractions";
  /**
   * YYYY-MM-DD: Retraction Watch's retraction date; for open-retractions the record's top-level timestamp (Crossref's
   * date, sometimes the notice's, sometimes the article's: the list has no better one); null when absent
   */
  date: string | null;
  /** Retraction Watch's reasons ("Plagiarism of Text", ...); open-retractions gives none: empty */
  reasons: string[];
  /** DOI of the notice itself, when the list names it */
  noticeDoi: string | null;
  /**
   * the update's kind as the list records it ("retraction", "erratum", ... for open-retractions; "Retraction" for
   * Retraction Watch)
   */
  noticeType: string | null;
}
