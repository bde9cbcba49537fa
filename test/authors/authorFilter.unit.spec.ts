// Which values filters name for a field: the author ids a request narrowed to unknown people is refused for (404).
import { describe, expect, it } from "vitest";
import { valuesNamed, type FilterNode } from "../../src/filters/ast.js";

const authorIdsFiltered = (filters?: (FilterNode | "skip" | undefined)[]) => valuesNamed(filters ?? [], "author_id");
const plan = (...nodes: (FilterNode | "skip" | undefined)[]) => nodes;

describe("the author ids a filter names", () => {
  it("reads eq and in on author_id under and, or and not, in every collection, each id once", () => {
    const a: FilterNode = { kind: "eq", field: "author_id", value: "A1928796387" };
    const both: FilterNode = { kind: "in", field: "author_id", values: ["0000-0003-3707-4444", "A1928796387"] };
    const other: FilterNode = { kind: "eq", field: "journal", value: "Stress" };
    const nested: FilterNode = {
      kind: "and",
      children: [other, { kind: "or", children: [{ kind: "not", child: a }, both] }],
    };
    expect(authorIdsFiltered(plan(nested, "skip", undefined, a))).toEqual(["A1928796387", "0000-0003-3707-4444"]);
  });

  it("names none without filters or without author_id", () => {
    expect(authorIdsFiltered(undefined)).toEqual([]);
    expect(authorIdsFiltered(plan({ kind: "eq", field: "journal", value: "A1928796387" }, { kind: "all" }))).toEqual(
      [],
    );
  });
});
