// Non-fatal filter outcomes reported to the caller in `filterWarnings` (the spec's four codes).

type FilterWarningCode =
  | "unindexed_filter_field"
  | "doi_not_in_collection"
  | "journal_metric_matched_nothing"
  | "open_access_collection_excluded";

/**
 * Why a pinned DOI drew `doi_not_in_collection`: another collection the key reaches holds it, only collections the key
 * cannot reach hold it (never named), no collection of the service holds it, or a collection the key reaches holds it
 * retracted (kept out of search).
 */
type DoiNotInCollectionReason = "in_other_collection" | "outside_key_scope" | "not_held" | "retracted";

export interface FilterWarning {
  code: FilterWarningCode;
  message: string;
  field?: string;
  /** doi_not_in_collection: the DOI it concerns, canonical (lower case, no prefix) */
  doi?: string;
  /** doi_not_in_collection: which case it is, for a client that acts on it without reading the message */
  reason?: DoiNotInCollectionReason;
}

export function unindexedFieldWarning(field: string, collections: string[]): FilterWarning {
  return {
    code: "unindexed_filter_field",
    field,
    message:
      `Field "${field}" has no index on ${collections.join(", ")}; it was matched by scanning, ` +
      "which is slow and may time out on large collections. Prefer an indexed field.",
  };
}

/** Where a pinned DOI was found when none of the searched collections holds it. */
export type DoiWhereabouts =
  | { kind: "unsearched"; collections: string[] }
  | { kind: "out_of_scope" }
  | { kind: "nowhere" }
  | { kind: "retracted" };

const REASON_OF: Record<DoiWhereabouts["kind"], DoiNotInCollectionReason> = {
  unsearched: "in_other_collection",
  out_of_scope: "outside_key_scope",
  nowhere: "not_held",
  retracted: "retracted",
};

/**
 * `askedBy`: "query" when the query itself is the DOI (a search kept to the work it names), so the message does not
 * speak of a filter the caller never sent.
 */
export function doiNotInCollectionWarning(
  doi: string,
  searched: readonly string[],
  whereabouts: DoiWhereabouts,
  askedBy: "filter" | "query" = "filter",
): FilterWarning {
  return {
    code: "doi_not_in_collection",
    field: "doi",
    message: doiWhereaboutsMessage(
      doi,
      searched,
      whereabouts,
      askedBy === "query" ? "The query is" : "The filter asks for",
    ),
    doi,
    reason: REASON_OF[whereabouts.kind],
  };
}

function doiWhereaboutsMessage(
  doi: string,
  searched: readonly string[],
  whereabouts: DoiWhereabouts,
  asking: string,
): string {
  if (whereabouts.kind === "retracted")
    return (
      `${asking} DOI "${doi}", which is retracted: retracted works are kept out of search, so no row can ` +
      `match it. GET /api/v1/works/${doi} gives its retraction notices.`
    );
  const searchedText =
    searched.length === 0
      ? "no collection was searched"
      : `it is not in ${searched.map((name) => `"${name}"`).join(", ")}`;
  const where =
    whereabouts.kind === "unsearched"
      ? `${whereabouts.collections.map((name) => `"${name}"`).join(", ")} ` +
        `${whereabouts.collections.length === 1 ? "holds" : "hold"} it; search ` +
        `${whereabouts.collections.length === 1 ? "that collection" : "one of them"} to reach it`
      : whereabouts.kind === "out_of_scope"
        ? "it is held only by collections this API key cannot reach"
        : "no collection of this service holds it";
  return `${asking} DOI "${doi}", but ${searchedText}: ${where}.`;
}

export function metricMatchedNothingWarning(field: string, condition: string): FilterWarning {
  return {
    code: "journal_metric_matched_nothing",
    field,
    message: `No journal matches ${field} ${condition}; this condition selects no document.`,
  };
}

export function openAccessCollectionExcludedWarning(collection: string): FilterWarning {
  return {
    code: "open_access_collection_excluded",
    field: "open_access",
    message:
      `Collection "${collection}" holds only open-access content and was excluded: ` +
      "its documents all have open_access true, and the filter asks for false or uses open_access under or/not.",
  };
}

/** Merges warnings of the same code and field (e.g. one per scanned field across several collections). */
export function dedupeWarnings(warnings: FilterWarning[]): FilterWarning[] {
  const seen = new Set<string>();
  return warnings.filter((warning) => {
    const key = `${warning.code}\u0000${warning.field ?? ""}\u0000${warning.message}`;
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}
