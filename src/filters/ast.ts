// Typed filter AST: what the parser produces and what each engine's compiler consumes.
// Values are already normalized by the parser (ISSNs as "1234-567X", DOIs lower-case without prefix,
// dates as ISO strings, booleans as booleans), so compilers only translate, never re-validate.

export type ScalarValue = string | number | boolean;

export interface RangeBounds {
  gt?: ScalarValue;
  gte?: ScalarValue;
  lt?: ScalarValue;
  lte?: ScalarValue;
}

export type FilterNode =
  | { kind: "and"; children: FilterNode[] }
  | { kind: "or"; children: FilterNode[] }
  | { kind: "not"; child: FilterNode }
  /** field equals one value (multi-valued fields: any element equals) */
  | { kind: "eq"; field: string; value: ScalarValue }
  /** field equals any of the values (multi-valued fields: any element in the set) */
  | { kind: "in"; field: string; values: ScalarValue[] }
  /** inclusive/exclusive range on a comparable field (numbers, ISO date strings) */
  | { kind: "range"; field: string; bounds: RangeBounds }
  /** field is present with a non-null value */
  | { kind: "exists"; field: string }
  /** matches everything / nothing (used when a collection answers a condition itself, e.g. open_access) */
  | { kind: "all" }
  | { kind: "none" };

/**
 * The values filters name for one field (eq and in, under and, or and not), each once, in the order first met; "skip"
 * and absent filters name none. `outsideNot`: only those a document must match, not those under a `not`.
 */
export function valuesNamed(
  filters: Iterable<FilterNode | "skip" | undefined>,
  field: string,
  { outsideNot = false }: { outsideNot?: boolean } = {},
): string[] {
  const values = new Set<string>();
  const walk = (node: FilterNode): void => {
    if (node.kind === "and" || node.kind === "or") node.children.forEach(walk);
    else if (node.kind === "not") {
      if (!outsideNot) walk(node.child);
    } else if (node.kind === "eq" && node.field === field) values.add(String(node.value));
    else if (node.kind === "in" && node.field === field) node.values.forEach((v) => values.add(String(v)));
  };
  for (const node of filters) if (node && node !== "skip") walk(node);
  return [...values];
}
