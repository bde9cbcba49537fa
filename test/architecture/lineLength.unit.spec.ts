// No source line past 120 characters but a URL or test data (scripts/longLines.ts says what counts as test data).
// `npm run reflow` folds comments and strings; a test title, HTML, SQL and a regular expression are folded by hand.
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { REPO_ROOT } from "../../src/app/config.js";
import { longLines, reflowText } from "../../scripts/longLines.js";

const ROOTS = ["src", "test", "bench", "scripts", "workflows", "activities", "projections", "bin"];
/** Trees Prettier ignores too (.prettierignore): vendored launchers, generated data. */
const SKIPPED = ["scripts/opensearch-launcher", "scripts/temporal-test-server", "test/fixtures"];
function sourceFiles(dir: string): string[] {
  if (SKIPPED.includes(dir)) return [];
  return readdirSync(join(REPO_ROOT, dir), { withFileTypes: true }).flatMap((entry) => {
    const path = `${dir}/${entry.name}`;
    if (entry.isDirectory()) return sourceFiles(path);
    return /\.(ts|mts|mjs|js)$/.test(entry.name) ? [path] : [];
  });
}

describe("line length", () => {
  it("no source line runs past 120 characters (npm run reflow folds comments and strings)", () => {
    const long = ROOTS.flatMap(sourceFiles).flatMap((file) =>
      longLines(file, readFileSync(join(REPO_ROOT, file), "utf8")).map((l) => `${file}:${l.line} (${l.length})`),
    );
    expect(long).toEqual([]);
  });

  it("the codemod wraps a long comment, splits a long string, keeps a URL, leaves its output as is", async () => {
    const words = Array.from({ length: 40 }, (_, i) => `word${i}`).join(" ");
    const url = `"https://example.org/${"x".repeat(130)}"`;
    const text = `// ${words}\nexport const message = "${words}";\nexport const url = ${url};\n`;
    const options = { printWidth: 120, trailingComma: "all" } as const;
    const folded = await reflowText("example.ts", text, options);
    expect(folded.split("\n").filter((line) => line.length > 120 && !line.includes("https://"))).toEqual([]);
    expect(folded).toContain(url);
    const comment = folded.split("\n").filter((line) => line.startsWith("// "));
    expect(comment.length).toBeGreaterThan(1);
    expect(comment.map((line) => line.slice(3)).join(" ")).toBe(words);
    const expression = /message =([^;]+);/.exec(folded)![1];
    expect(expression).toContain('" +');
    expect(new Function(`return (${expression})`)()).toBe(words);
    expect(await reflowText("example.ts", folded, options)).toBe(folded);
  });
});
