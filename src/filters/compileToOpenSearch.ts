// Compiles a filter AST into OpenSearch query DSL (used as a bool.filter) with the same semantics as
// compileToPredicate: keyword fields carry a lowercase normalizer, dates are compared as periods in epoch millis.
import type { FilterNode, RangeBounds, ScalarValue } from "./ast.js";
import { DATE_FIELDS, dateRangeMillis, filterDatePeriod } from "./compileToPredicate.js";

/** One OpenSearch query clause. */
export type OpenSearchQuery = { [clause: string]: unknown };

/** Where chunk metadata lives in the index documents. */
const METADATA_PATH = "metadata";

function fieldPath(field: string): string {
  return `${METADATA_PATH}.${field}`;
}

function datePeriodQuery(field: string, value: ScalarValue): OpenSearchQuery {
  const period = filterDatePeriod(field, value);
  return { range: { [fieldPath(field)]: { gte: period.start, lte: period.end, format: "epoch_millis" } } };
}

function anyOf(clauses: OpenSearchQuery[]): OpenSearchQuery {
  if (clauses.length === 0) return { match_none: {} };
  if (clauses.length === 1) return clauses[0];
  return { bool: { should: clauses, minimum_should_match: 1 } };
}

function rangeQuery(field: string, bounds: RangeBounds): OpenSearchQuery {
  if (DATE_FIELDS.has(field)) {
    return { range: { [fieldPath(field)]: { ...dateRangeMillis(field, bounds), format: "epoch_millis" } } };
  }
  const clause: Record<string, ScalarValue> = {};
  if (bounds.gt !== undefined) clause.gt = bounds.gt;
  if (bounds.gte !== undefined) clause.gte = bounds.gte;
  if (bounds.lt !== undefined) clause.lt = bounds.lt;
  if (bounds.lte !== undefined) clause.lte = bounds.lte;
  return { range: { [fieldPath(field)]: clause } };
}

/**
 * The OpenSearch clause selecting what `node` selects. A `term` on a multi-valued field matches when any value
 * matches; `must_not` keeps documents without the field, as the predicate's `not` does.
 */
export function compileToOpenSearch(node: FilterNode): OpenSearchQuery {
  switch (node.kind) {
    case "all":
      return { match_all: {} };
    case "none":
      return { match_none: {} };
    case "and":
      if (node.children.length === 0) return { match_all: {} };
      return { bool: { filter: node.children.map(compileToOpenSearch) } };
    case "or":
      return anyOf(node.children.map(compileToOpenSearch));
    case "not":
      return { bool: { must_not: [compileToOpenSearch(node.child)] } };
    case "eq":
      if (DATE_FIELDS.has(node.field)) return datePeriodQuery(node.field, node.value);
      return { term: { [fieldPath(node.field)]: node.value } };
    case "in":
      if (DATE_FIELDS.has(node.field)) return anyOf(node.values.map((value) => datePeriodQuery(node.field, value)));
      if (node.values.length === 0) return { match_none: {} };
      return { terms: { [fieldPath(node.field)]: node.values } };
    case "range":
      return rangeQuery(node.field, node.bounds);
    case "exists":
      return { exists: { field: fieldPath(node.field) } };
    default: {
      const unhandled: never = node;
      throw new Error(`unknown filter node ${JSON.stringify(unhandled)}`);
    }
  }
}
