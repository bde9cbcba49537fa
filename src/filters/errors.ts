// The one error the filter language raises: what was wrong, where, and (for metric bounds) which bounds apply.
import { INDEXED_FIELDS } from "./fields.js";

interface FilterErrorDetails {
  /** the filter field the error concerns */
  field?: string;
  /** the offending part of the filter as sent (a condition, a combinator, or the whole filter) */
  filter?: unknown;
  /** journal-metric errors: the lowest `gte` accepted alone (null: no one-ended lower bound accepted) */
  min_gte?: number | null;
  /** journal-metric errors: the highest `lte` accepted alone (null: no one-ended upper bound accepted) */
  max_lte?: number | null;
  /** limit errors: which limit and its value */
  limit?: { name: FilterLimitName; max: number; actual: number };
  /** the fields a filter can use, by where they are indexed (set on every error) */
  indexedFields?: typeof INDEXED_FIELDS;
}

type FilterLimitName =
  "issns_per_metric_condition" | "filter_values_per_request" | "metric_conditions_per_filter" | "nesting_depth";

/**
 * Thrown for any filter that cannot be applied. The HTTP layer maps it to 422 INVALID_FILTER
 * with `details` as `error.details`; nothing else in this module knows about HTTP.
 */
export class FilterError extends Error {
  readonly field?: string;
  readonly filter?: unknown;
  readonly details: FilterErrorDetails;

  constructor(message: string, details: FilterErrorDetails = {}) {
    super(message);
    this.name = "FilterError";
    this.field = details.field;
    this.filter = details.filter;
    this.details = Object.fromEntries(
      Object.entries({ ...details, indexedFields: INDEXED_FIELDS }).filter(([, value]) => value !== undefined),
    ) as FilterErrorDetails;
  }
}
