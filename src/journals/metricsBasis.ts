// What a journals table's metrics were computed from, and the one sentence every place showing metrics says about it.

/** Recorded in the journals table when it is built; the sentence is derived from it, never written by hand. */
export interface MetricsBasis {
  /** the OpenAlex works (this service's indexed sample) the metrics were computed from; null when none were read */
  works: { count: number; publicationYears: { first: number; last: number } | null } | null;
  /**
   * OpenAlex source records whose summary_stats give h_index, i10_index and 2yr_mean_citedness; null when none were
   * read
   */
  openAlexSources: { records: number; worksCount: number } | null;
  /** Y of the two-year metrics computed from works (citations received in Y by works of Y-1 and Y-2) */
  citationYear: number | null;
}

const count = (n: number): string => n.toLocaleString("en-US");

function worksPart(works: NonNullable<MetricsBasis["works"]>, citationYear: number | null): string {
  const span = works.publicationYears;
  const years =
    span === null
      ? "of unknown publication years"
      : span.first === span.last
        ? `published in ${span.first}`
        : `published ${span.first}-${span.last}`;
  const citations = citationYear !== null ? `, citations counted in ${citationYear}` : "";
  return `the ${count(works.count)} OpenAlex works this service indexes that name their journal (${years}${citations})`;
}

/** One sentence: how many works, which publication years, and whose output the metrics count. */
export function metricsBasisSentence(basis: MetricsBasis): string {
  const { works, openAlexSources: sources, citationYear } = basis;
  const withWorks = works !== null && works.count > 0 ? works : null;
  const withSources = sources !== null && sources.records > 0 ? sources : null;
  if (withSources && !withWorks) {
    return (
      `Journal metrics come from OpenAlex source records (${count(withSources.records)} journals, ` +
      `${count(withSources.worksCount)} works of every publication year): ` +
      ("h-index, i10-index and two-year mean citedness count each journal's whole output in OpenAlex, and " +
        "impact factor is absent because source records do not carry the citations to the two previous years' " +
        "articles and reviews that the JIF formula needs.")
    );
  }
  if (withSources && withWorks) {
    return (
      "h-index, i10-index and two-year mean citedness come from OpenAlex source records (" +
      `${count(withSources.records)} journals, ${count(withSources.worksCount)} works of every publication ` +
      "year); " +
      ("impact factor, and every metric of a journal without a source record, is computed from " +
        `${worksPart(withWorks, citationYear)} and counts only a journal's works among them.`)
    );
  }
  if (withWorks) {
    return (
      `Journal metrics are computed from ${worksPart(withWorks, citationYear)}: ` +
      ("a journal's h-index, i10-index, citedness and impact factor count only its works among them, not its " +
        "whole output, so they read far below the journal's published figures.")
    );
  }
  return "No journal metrics are loaded: the journals table holds no citation data, so every metric is absent.";
}
