// docs/architecture.md's "where a behaviour lives" table has a row for each behaviour a customer or operator sees and
// points at files that exist: every path it names (its rule, what carries it, its test), and every function or constant
// it names beside a path in that file.
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { REPO_ROOT } from "../../src/app/config.js";

const START = "<!-- where-a-behaviour-lives: start -->";
const END = "<!-- where-a-behaviour-lives: end -->";
const PATH = /^[\w.-]+(\/[\w.-]+)+\.(ts|mts|mjs|js|json|md)$/;
const IDENTIFIER = /^[A-Za-z_$][\w$]*$/;

/** The table's body rows, each a list of its cells. */
function tableRows(): string[][] {
  const doc = readFileSync(join(REPO_ROOT, "docs", "architecture.md"), "utf8");
  const start = doc.indexOf(START);
  const end = doc.indexOf(END);
  expect(start, `${START} in docs/architecture.md`).toBeGreaterThan(-1);
  expect(end, END).toBeGreaterThan(start);
  return doc
    .slice(start, end)
    .split("\n")
    .filter((line) => line.startsWith("|"))
    .slice(2) // the header and its separator
    .map((line) =>
      line
        .slice(1, line.lastIndexOf("|"))
        .split("|")
        .map((cell) => cell.trim()),
    );
}

const backticked = (text: string): string[] => [...text.matchAll(/`([^`]+)`/g)].map((match) => match[1]!);

describe("where a behaviour lives (docs/architecture.md)", () => {
  const rows = tableRows();

  it("has a row of four cells for each behaviour", () => {
    expect(rows.length).toBeGreaterThan(20);
    for (const row of rows) expect(row, row[0]).toHaveLength(4);
  });

  it("has a row for each behaviour a customer or operator sees", () => {
    const behaviours = rows.map((row) => row[0]!.toLowerCase()).join("\n");
    const seen = [
      ...["search modes", "preview", "unlock", "the cache", "assisted", "alert", "webhook", "works", "cursors"],
      ...["authors", "facets", "vector backfill", "exports", "console", "replay (operators)", "quotas", "sandbox"],
    ];
    expect(seen.filter((behaviour) => !behaviours.includes(behaviour))).toEqual([]);
  });

  it("names only files that exist", () => {
    const paths = rows.flatMap((row) => row.slice(1).flatMap(backticked)).filter((text) => PATH.test(text));
    expect(paths.length).toBeGreaterThan(50);
    expect(paths.filter((path) => !existsSync(join(REPO_ROOT, path)))).toEqual([]);
  });

  it("names beside a path only what that file holds", () => {
    const missing: string[] = [];
    for (const row of rows)
      for (const cell of row.slice(1))
        for (const match of cell.matchAll(/`([^`]+)` \(([^)]*)\)/g)) {
          const path = match[1]!;
          if (!PATH.test(path) || !existsSync(join(REPO_ROOT, path))) continue;
          const text = readFileSync(join(REPO_ROOT, path), "utf8");
          for (const name of backticked(match[2]!).filter((name) => IDENTIFIER.test(name)))
            if (!new RegExp(`\\b${name.replace(/\$/g, "\\$")}\\b`).test(text)) missing.push(`${path}: ${name}`);
        }
    expect(missing).toEqual([]);
  });
});
