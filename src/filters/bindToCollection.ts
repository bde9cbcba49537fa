// Checks a parsed filter against one collection's field capabilities and yields that collection's AST, or why it is
// left out.
import type { FilterNode } from "./ast.js";
import { FilterError } from "./errors.js";
import { fieldsInGroup, indexedFieldsSentence } from "./fields.js";
import type { ConditionTree, FieldTest, MetricTest } from "./syntax.js";

/** What the filter language needs to know about a physical collection being searched. */
export interface CollectionFilterProfile {
  name: string;
  /** indexes the editorial-only fields (topic, url, medical_board_approved, last_updated_date, ...) */
  editorial: boolean;
  /** holds only open-access content and carries no open_access field */
  openAccessOnly: boolean;
  /** can match unindexed result metadata fields (pmid, title, authors, ...) by scanning */
  scanFilterable: boolean;
  /** searched as a member of a meta-collection rather than named directly */
  isMetaMember: boolean;
}

/**
 * - search: run the search with `ast`.
 * - skip: leave this collection out of the search. `editorial_field_not_indexed` is a meta-collection
 *   member lacking an editorial index (spec: "a meta-collection skips a member lacking the index");
 *   `open_access_collection_excluded` is an open-access-only collection the open_access condition excludes.
 */
export type CollectionFilterPlan =
  | { collection: string; outcome: "search"; ast: FilterNode }
  | { collection: string; outcome: "skip"; reason: "editorial_field_not_indexed"; field: string }
  | { collection: string; outcome: "skip"; reason: "open_access_collection_excluded"; field: "open_access" };

interface CollectionBinding {
  plan: CollectionFilterPlan;
  /** unindexed fields this collection will match by scanning (only when it is searched) */
  scannedFields: string[];
}

interface FieldUse {
  editorial: FieldTest[];
  scan: FieldTest[];
}

/**
 * Order of checks: a meta member lacking an editorial index is skipped before anything else is asked
 * of it; then fields the collection cannot serve reject the filter; only then does an open-access-only
 * collection answer open_access conditions.
 */
export function bindToCollection(
  tree: ConditionTree | null,
  metricNodes: ReadonlyMap<MetricTest, FilterNode>,
  profile: CollectionFilterProfile,
): CollectionBinding {
  if (tree === null)
    return { plan: { collection: profile.name, outcome: "search", ast: { kind: "all" } }, scannedFields: [] };
  const use: FieldUse = { editorial: [], scan: [] };
  collectFieldUse(tree, use);

  if (use.editorial.length > 0 && !profile.editorial) {
    const first = use.editorial[0];
    if (profile.isMetaMember) {
      return {
        plan: { collection: profile.name, outcome: "skip", reason: "editorial_field_not_indexed", field: first.field },
        scannedFields: [],
      };
    }
    throw new FilterError(
      `Field "${first.field}" is indexed on editorial collections only; collection "${profile.name}" has no ` +
        "index for it. " +
        `Editorial-only fields: ${fieldsInGroup("editorial").join(", ")}. ${indexedFieldsSentence()}`,
      { field: first.field, filter: first.source },
    );
  }
  if (use.scan.length > 0 && !profile.scanFilterable) {
    const first = use.scan[0];
    throw new FilterError(
      `Field "${first.field}" has no index on collection "${profile.name}", which cannot match unindexed ` +
        "fields by scanning. " +
        indexedFieldsSentence(),
      { field: first.field, filter: first.source },
    );
  }

  let excludedByOpenAccess = false;
  const bind = (node: ConditionTree, underOrOrNot: boolean): FilterNode => {
    switch (node.kind) {
      case "and":
        return foldJunction(
          "and",
          node.children.map((child) => bind(child, underOrOrNot)),
        );
      case "or":
        return foldJunction(
          "or",
          node.children.map((child) => bind(child, true)),
        );
      case "not":
        return foldNot(bind(node.child, true));
      case "metric":
        return metricNodes.get(node) ?? { kind: "none" };
      case "field":
        if (node.field === "open_access" && profile.openAccessOnly) {
          if (underOrOrNot || !acceptsTrue(node.node)) excludedByOpenAccess = true;
          return { kind: "all" };
        }
        return node.node;
    }
  };
  const ast = bind(tree, false);
  if (excludedByOpenAccess) {
    return {
      plan: {
        collection: profile.name,
        outcome: "skip",
        reason: "open_access_collection_excluded",
        field: "open_access",
      },
      scannedFields: [],
    };
  }
  return {
    plan: { collection: profile.name, outcome: "search", ast },
    scannedFields: [...new Set(use.scan.map((test) => test.field))],
  };
}

function collectFieldUse(node: ConditionTree, use: FieldUse): void {
  switch (node.kind) {
    case "and":
    case "or":
      node.children.forEach((child) => collectFieldUse(child, use));
      return;
    case "not":
      collectFieldUse(node.child, use);
      return;
    case "metric":
      return;
    case "field":
      if (node.spec.group === "editorial") use.editorial.push(node);
      else if (node.spec.group === "scan") use.scan.push(node);
  }
}

/** A positive open_access condition that every document of an open-access-only collection satisfies. */
function acceptsTrue(node: FilterNode): boolean {
  if (node.kind === "eq") return node.value === true;
  if (node.kind === "in") return node.values.includes(true);
  return false;
}

/**
 * and/or with constants folded: `all` is and's identity and or's absorbing element, `none` the reverse;
 * nested nodes of the same kind are flattened.
 */
function foldJunction(kind: "and" | "or", children: FilterNode[]): FilterNode {
  const identity = kind === "and" ? "all" : "none";
  const absorbing = kind === "and" ? "none" : "all";
  const kept: FilterNode[] = [];
  for (const child of children) {
    if (child.kind === absorbing) return { kind: absorbing };
    if (child.kind === identity) continue;
    if (child.kind === kind) kept.push(...child.children);
    else kept.push(child);
  }
  if (kept.length === 0) return { kind: identity };
  return kept.length === 1 ? kept[0] : { kind, children: kept };
}

function foldNot(child: FilterNode): FilterNode {
  if (child.kind === "all") return { kind: "none" };
  if (child.kind === "none") return { kind: "all" };
  if (child.kind === "not") return child.child;
  return { kind: "not", child };
}
