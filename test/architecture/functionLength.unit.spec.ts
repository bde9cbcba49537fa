// No function in src/, workflows/, activities/ or projections/ runs past 150 lines (issue 50): a large factory becomes
// named functions along its seams, or a file per operation. The ones still longer are listed with the lines they
// span; the list only shrinks: a function not listed fails, a listed one that grew fails, and one split under the
// limit must leave the list. `npx tsx scripts/functionLengths.ts` prints them all, longest first.
import { describe, expect, it } from "vitest";
import { REPO_ROOT } from "../../src/app/config.js";
import { functionSpans, longFunctions } from "../../scripts/functionLengths.js";

const LIMIT = 150;
const FOLDERS = ["src", "workflows", "activities", "projections"];

/** Functions over the limit today, "file name": lines; split one and remove it here. */
const STILL_LONG: Record<string, number> = {
};

describe("function length", () => {
  const found = longFunctions(REPO_ROOT, FOLDERS, LIMIT);
  const key = (f: { file: string; name: string }) => `${f.file} ${f.name}`;

  it(`no function over ${LIMIT} lines but the listed ones`, () => {
    expect(found.filter((f) => !(key(f) in STILL_LONG)).map((f) => `${key(f)} (${f.lines})`)).toEqual([]);
  });

  it("a listed function does not grow", () => {
    expect(found.filter((f) => f.lines > STILL_LONG[key(f)]!).map((f) => `${key(f)}: ${f.lines}`)).toEqual([]);
  });

  it("the list shrinks: a function split under the limit leaves it", () => {
    const long = new Set(found.map(key));
    expect(Object.keys(STILL_LONG).filter((k) => !long.has(k))).toEqual([]);
  });

  it("measures a function from its first line to its last, nested ones under their outer's name", () => {
    const body = Array.from({ length: 3 }, (_, i) => `  const v${i} = ${i};`).join("\n");
    const text = `export function outer() {\n${body}\n  const inner = () => {\n    return 1;\n  };\n}\n`;
    expect(functionSpans("x.ts", text).map((f) => [f.name, f.line, f.lines])).toEqual([
      ["outer", 1, 8],
      ["outer.inner", 5, 3],
    ]);
  });
});
