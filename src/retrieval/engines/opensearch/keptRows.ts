// A search whose caller keeps its best `rows` after demoting repeats (SearchRequest.keep): which candidates the adapter
// fetches (sources and vectors, one _mget) before it knows their exact scores, when the rows it fetched settle the
// list (hybrid), and when a BM25 list fetches its ids before its sources (sparse).
import { nthDocumentEnd } from "../../repeats.js";

/**
 * The lowest estimated score a candidate needs to be fetched: one more than `margin` (twice the most a row's exact
 * score may differ from its estimate) below the first candidate, by estimate, of the `rows`-th document ranks below a
 * chunk of each of `rows` documents whatever the exact scores, so below the first chunk of each of them, which
 * demotion never lowers. -Infinity when the candidates hold fewer documents. `documentOf` may merge two documents
 * (doc values are lower-cased) or know none (a candidate without its doc value): either only lowers the floor.
 */
export function fetchFloor(
  byEstimate: readonly { id: string; score: number }[],
  rows: number,
  documentOf: (id: string) => string | undefined,
  margin: number,
): number {
  const end = nthDocumentEnd(byEstimate, rows, (candidate) => documentOf(candidate.id));
  return end === undefined || end === 0 ? -Infinity : byEstimate[end - 1].score - margin;
}

/**
 * Whether the rows fetched, ranked by their exact scores, settle the list through its `end` (one past the first chunk
 * of the `rows`-th document, undefined when the rows fetched hold fewer): every candidate not fetched, at its
 * estimated score plus `error`, still ranks below that chunk. When it does not (a fetched row was a dropped chunk,
 * or the exact scores moved the cut), the adapter fetches the rest.
 */
export function fetchSettles(
  ranked: readonly { score: number }[],
  end: number | undefined,
  unfetchedEstimates: readonly number[],
  error: number,
): boolean {
  if (unfetchedEstimates.length === 0) return true;
  if (end === undefined || end === 0) return false;
  const last = ranked[end - 1].score;
  return unfetchedEstimates.every((estimate) => estimate + error < last);
}

/**
 * Chunks a BM25 list must hold beyond the caller's rows before its sources are fetched after its ids (a second round
 * trip) rather than with them: a 10-row search's list of 20 costs less in one request; a facets request's 600 chunks,
 * of which its 200 works need about a third, cost less in two.
 */
const IDS_FIRST_SPARE = 100;

/** Whether a BM25 list of `limit` chunks whose caller keeps `rows` fetches its ids first (see IDS_FIRST_SPARE). */
export function fetchesIdsFirst(limit: number, rows: number): boolean {
  return limit - rows >= IDS_FIRST_SPARE;
}

/** A hybrid search's selection for SearchRequest.keep: see fetchKeptRows. */
interface KeptRowsSelection<Row extends { id: string; score: number }> {
  /** the rows the caller keeps after demoting repeats */
  rows: number;
  /** the most a row's exact score differs from its estimated one */
  error: number;
  /** whether a candidate's estimate is within `error` (one without an estimate is always fetched) */
  estimated: (id: string) => boolean;
  /** a candidate's document from doc values, when known (maybe lower-cased) */
  documentHint: (id: string) => string | undefined;
  /**
   * fetches these candidates and returns every candidate fetched so far with its exact score, ranked as the list ranks
   * them (the list's length at most)
   */
  rank: (candidates: readonly Row[]) => Promise<Row[]>;
  /** a fetched row's document; undefined for a chunk the caller drops */
  documentOf: (row: Row) => string | undefined;
}

/**
 * The first rows of the list the candidates make, through the first chunk of its `rows`-th document (all of it when it
 * holds fewer), fetching the candidates above fetchFloor first and the rest only when those do not settle it
 * (fetchSettles). `byEstimate`: the candidates that may be in the list, by estimated score. The rows returned are the
 * first of what ranking every candidate by its exact score returns, and the same rows.
 */
export async function fetchKeptRows<Row extends { id: string; score: number }>(
  byEstimate: readonly Row[],
  select: KeptRowsSelection<Row>,
): Promise<Row[]> {
  const floor = fetchFloor(byEstimate, select.rows, select.documentHint, 2 * select.error);
  const first = byEstimate.filter((c) => c.score >= floor || !select.estimated(c.id));
  let ranked = await select.rank(first);
  let end = nthDocumentEnd(ranked, select.rows, select.documentOf);
  const fetched = new Set(first.map((c) => c.id));
  const rest = byEstimate.filter((c) => !fetched.has(c.id));
  if (
    !fetchSettles(
      ranked,
      end,
      rest.map((c) => c.score),
      select.error,
    )
  ) {
    ranked = await select.rank(rest);
    end = nthDocumentEnd(ranked, select.rows, select.documentOf);
  }
  return ranked.slice(0, end ?? ranked.length);
}
