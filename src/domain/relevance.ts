// The min_relevance rule, in one place: search, the works list, facet counts and alert runs all count a row by it.
// Pure.

/**
 * A row counts toward min_relevance when it has a relevance and that relevance is at or above the threshold; a row
 * without one (a list sorted by something else, a work with no passage scored) never meets a threshold.
 */
export function meetsMinRelevance(relevance: number | null, minRelevance: number): boolean {
  return relevance !== null && relevance >= minRelevance;
}
