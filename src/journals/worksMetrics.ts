// Computes journal metrics (h-index, i10-index, two-year mean citedness, JIF-rule impact factor) from OpenAlex work
// records.
import { canonicalIssn } from "../domain/identifiers.js";
import type { JournalRecord } from "./table.js";

/** Work types that count as "articles and reviews" for the impact factor (2023 and current OpenAlex schemas). */
const ARTICLE_OR_REVIEW_TYPES = new Set(["journal-article", "article", "review"]);

/** The JIF rule's thresholds (spec, "Metrics"). */
const MIN_ARTICLES_AND_REVIEWS = 20;
const MIN_ARTICLE_SHARE = 0.5;

interface WorkFacts {
  year: number | null;
  articleOrReview: boolean;
  citedByCount: number;
  citationsByYear: Map<number, number>;
}

interface JournalWorks {
  issnL: string;
  issns: Set<string>;
  title: string | null;
  publisher: string | null;
  works: WorkFacts[];
}

type JsonObject = Record<string, unknown>;

function asObject(value: unknown): JsonObject | null {
  return typeof value === "object" && value !== null && !Array.isArray(value) ? (value as JsonObject) : null;
}

function asCount(value: unknown): number {
  return typeof value === "number" && Number.isFinite(value) && value > 0 ? Math.floor(value) : 0;
}

function asText(value: unknown): string | null {
  return typeof value === "string" && value.trim().length > 0 ? value.trim() : null;
}

export function roundMetric(value: number): number {
  return Math.round(value * 1000) / 1000;
}

export function hIndex(citationCounts: readonly number[]): number {
  const descending = [...citationCounts].sort((a, b) => b - a);
  let h = 0;
  while (h < descending.length && descending[h] >= h + 1) h += 1;
  return h;
}

export function i10Index(citationCounts: readonly number[]): number {
  return citationCounts.filter((count) => count >= 10).length;
}

/**
 * Feed works with `add`, then `finish`. Works are grouped by their primary source's ISSN-L (an ISSN-L
 * names one journal); works without a primary source ISSN are not attributable and are ignored.
 */
export class WorkMetricsAccumulator {
  private readonly journals = new Map<string, JournalWorks>();
  private latestUpdateYear: number | null = null;
  private latestCitationYear: number | null = null;
  worksSeen = 0;
  worksAttributed = 0;
  /** earliest and latest publication year of the attributed works */
  publicationYears: { first: number; last: number } | null = null;

  add(record: unknown): void {
    const work = asObject(record);
    if (!work) return;
    this.worksSeen += 1;
    const updated = asText(work.updated_date);
    if (updated && /^\d{4}/.test(updated)) {
      const year = Number(updated.slice(0, 4));
      this.latestUpdateYear = Math.max(this.latestUpdateYear ?? year, year);
    }
    const source = asObject(asObject(work.primary_location)?.source);
    if (!source) return;
    const rawIssns = Array.isArray(source.issn) ? source.issn : [];
    const issnL =
      (typeof source.issn_l === "string" ? canonicalIssn(source.issn_l) : null) ??
      rawIssns.map((raw) => (typeof raw === "string" ? canonicalIssn(raw) : null)).find((issn) => issn !== null) ??
      null;
    if (!issnL) return;
    this.worksAttributed += 1;
    let journal = this.journals.get(issnL);
    if (!journal) {
      journal = { issnL, issns: new Set([issnL]), title: null, publisher: null, works: [] };
      this.journals.set(issnL, journal);
    }
    for (const raw of rawIssns) {
      const issn = typeof raw === "string" ? canonicalIssn(raw) : null;
      if (issn) journal.issns.add(issn);
    }
    journal.title ??= asText(source.display_name);
    journal.publisher ??= asText(source.host_organization_name);

    const citationsByYear = new Map<number, number>();
    for (const entry of Array.isArray(work.counts_by_year) ? work.counts_by_year : []) {
      const yearly = asObject(entry);
      if (!yearly || typeof yearly.year !== "number") continue;
      citationsByYear.set(yearly.year, (citationsByYear.get(yearly.year) ?? 0) + asCount(yearly.cited_by_count));
      this.latestCitationYear = Math.max(this.latestCitationYear ?? yearly.year, yearly.year);
    }
    const type = asText(work.type);
    if (typeof work.publication_year === "number") {
      const year = work.publication_year;
      this.publicationYears = {
        first: Math.min(this.publicationYears?.first ?? year, year),
        last: Math.max(this.publicationYears?.last ?? year, year),
      };
    }
    journal.works.push({
      year: typeof work.publication_year === "number" ? work.publication_year : null,
      articleOrReview: type !== null && ARTICLE_OR_REVIEW_TYPES.has(type) && work.is_paratext !== true,
      citedByCount: asCount(work.cited_by_count),
      citationsByYear,
    });
  }

  /**
   * The citation year Y defaults to the year before the snapshot's latest `updated_date` (the latest
   * complete year: OpenAlex's own rule is "the year prior to the current year"); without update dates,
   * the year before the latest year with citation counts.
   */
  defaultCitationYear(): number | null {
    if (this.latestUpdateYear !== null) return this.latestUpdateYear - 1;
    if (this.latestCitationYear !== null) return this.latestCitationYear - 1;
    return null;
  }

  finish(citationYear: number | null = this.defaultCitationYear()): {
    citationYear: number | null;
    journals: JournalRecord[];
  } {
    const journals: JournalRecord[] = [];
    for (const journal of this.journals.values()) {
      const counts = journal.works.map((work) => work.citedByCount);
      let citedness = 0;
      let impactFactor: number | null = null;
      if (citationYear !== null) {
        const window = journal.works.filter((work) => work.year === citationYear - 1 || work.year === citationYear - 2);
        const citations = window.reduce((sum, work) => sum + (work.citationsByYear.get(citationYear) ?? 0), 0);
        const articlesAndReviews = window.filter((work) => work.articleOrReview).length;
        citedness = window.length > 0 ? roundMetric(citations / window.length) : 0;
        const enoughArticles =
          articlesAndReviews >= MIN_ARTICLES_AND_REVIEWS && articlesAndReviews >= MIN_ARTICLE_SHARE * window.length;
        impactFactor = enoughArticles ? roundMetric(citations / articlesAndReviews) : null;
      }
      journals.push({
        issnL: journal.issnL,
        issns: [...journal.issns],
        title: journal.title,
        publisher: journal.publisher,
        h_index: hIndex(counts),
        i10_index: i10Index(counts),
        two_yr_mean_citedness: citedness,
        impact_factor: impactFactor,
        works_count: journal.works.length,
      });
    }
    return { citationYear, journals };
  }
}
