// No function in src/, workflows/, activities/ or projections/ runs past 150 lines: a large factory becomes named
// functions along its seams, or a file per operation over a context built once. `npx tsx scripts/functionLengths.ts`
// prints the longest, longest first.
import { describe, expect, it } from "vitest";
import { REPO_ROOT } from "../../src/app/config.js";
import { functionSpans, longFunctions } from "../../scripts/functionLengths.js";

const LIMIT = 150;
const FOLDERS = ["src", "workflows", "activities", "projections"];

describe("function length", () => {
  it(`no function over ${LIMIT} lines`, () => {
    const found = longFunctions(REPO_ROOT, FOLDERS, LIMIT);
    expect(found.map((f) => `${f.file} ${f.name} (${f.lines})`)).toEqual([]);
  });

  it("measures a function from its first line to its last, nested ones under their outer's name", () => {
    const body = Array.from({ length: 3 }, (_, i) => `  const v${i} = ${i};`).join("\n");
    const text = `export function outer() {\n${body}\n  const inner = () => {\n    return 1;\n  };\n}\n`;
    expect(functionSpans("x.ts", text).map((f) => [f.name, f.line, f.lines])).toEqual([
      ["outer", 1, 8],
      ["outer.inner", 5, 3],
    ]);
  });

  it("finds a function over the limit", () => {
    const body = Array.from({ length: LIMIT }, (_, i) => `  const v${i} = ${i};`).join("\n");
    const spans = functionSpans("x.ts", `export function long() {\n${body}\n}\n`);
    expect(spans.filter((f) => f.lines > LIMIT).map((f) => f.name)).toEqual(["long"]);
  });
});
