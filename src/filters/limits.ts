// Numeric limits of the filter language (the spec's, plus a nesting cap that keeps parsing bounded).
export { MAX_ISSNS_PER_METRIC_CONDITION } from "../journals/bounds.js";

/** every metric expansion plus the lengths of `in` and `not_in` lists, per request */
export const MAX_FILTER_VALUES_PER_REQUEST = 70_000;

/** `journal_metric` conditions per filter (both bounds of one metric belong in one condition) */
export const MAX_METRIC_CONDITIONS_PER_FILTER = 8;

/**
 * Not in the spec: combinators and flat `not` may nest this deep. Real filters nest two or three
 * levels; the cap keeps a hostile body from exhausting the stack.
 */
export const MAX_FILTER_NESTING_DEPTH = 32;
