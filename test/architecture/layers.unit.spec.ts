// The layout's one rule: imports run down the layers (README "Architecture"). Every relative import of src/,
// workflows/, activities/ and projections/ is checked against the layer table; an import that runs up is allowed only
// when it is listed below with its reason, and there are at most five.
import { readdirSync, readFileSync } from "node:fs";
import { dirname, join, normalize, relative } from "node:path";
import { describe, expect, it } from "vitest";
import { REPO_ROOT } from "../../src/app/config.js";

/** Lower layers first; a path takes the rank of its longest matching entry. */
export const LAYERS: [string, number][] = [
  ["src/domain", 0],
  // leaves every layer above may read: the retrieval port's types, the filter AST, text analysis, stores and models
  ["src/retrieval/port.ts", 1],
  ["src/retrieval/text", 1],
  ["src/filters/ast.ts", 1],
  ["src/eventstore", 1],
  ["src/infra", 1],
  ["src/embedding", 1],
  ["src/journals", 1],
  ["projections", 2],
  ["src/filters", 2],
  ["src/retrieval", 3],
  ["src/ingest", 3],
  ["src/reasoner", 4],
  ["src/usecases", 5],
  ["workflows", 5],
  ["activities", 5],
  // what REST and MCP share: request schemas, the error type, response shapers
  ["src/http/schemas.ts", 6],
  ["src/http/errors.ts", 6],
  ["src/http/presenters", 6],
  ["src/http", 7],
  ["src/mcp", 7],
  ["src/app", 8],
];

/** Imports that run up, each with the reason it stays. */
const ALLOWED_UPWARD: Record<string, string> = {
  "src/eventstore/streamCommand.ts -> projections/sqlProjection.ts":
    "a command appends and projects its events in one transaction (a charge and its balance commit together); the projector is the one thing the store must call",
};

function rankOf(path: string): number | undefined {
  let best: [string, number] | undefined;
  for (const entry of LAYERS)
    if ((path === entry[0] || path.startsWith(`${entry[0]}/`)) && (!best || entry[0].length > best[0].length))
      best = entry;
  return best?.[1];
}

function sourceFiles(dir: string): string[] {
  return readdirSync(join(REPO_ROOT, dir), { withFileTypes: true }).flatMap((entry) => {
    const path = `${dir}/${entry.name}`;
    if (entry.isDirectory()) return sourceFiles(path);
    return /\.(ts|mts|mjs)$/.test(entry.name) ? [path] : [];
  });
}

function upwardImports(): string[] {
  const found: string[] = [];
  for (const file of ["src", "workflows", "activities", "projections"].flatMap(sourceFiles)) {
    const from = rankOf(file);
    if (from === undefined) continue;
    for (const match of readFileSync(join(REPO_ROOT, file), "utf8").matchAll(
      /(?:from\s+|import\s*\(\s*)['"](\.{1,2}\/[^'"]+)['"]/g,
    )) {
      const target = relative(REPO_ROOT, normalize(join(REPO_ROOT, dirname(file), match[1]!))).replace(/\.js$/, ".ts");
      const to = rankOf(target);
      if (to !== undefined && to > from) found.push(`${file} -> ${target}`);
    }
  }
  return found;
}

describe("the layers", () => {
  it("every file of src/ has a layer, and src/ holds about a dozen entries", () => {
    expect(sourceFiles("src").filter((f) => rankOf(f) === undefined)).toEqual([]);
    expect(readdirSync(join(REPO_ROOT, "src")).length).toBeLessThanOrEqual(13);
  });

  it("imports run down, but for the few listed with their reason", () => {
    expect(upwardImports().filter((i) => !(i in ALLOWED_UPWARD))).toEqual([]);
    expect(Object.keys(ALLOWED_UPWARD).length).toBeLessThanOrEqual(5);
  });
});
