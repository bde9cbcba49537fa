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
