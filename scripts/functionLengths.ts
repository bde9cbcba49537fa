// The functions of a source file and how many lines each spans, read with the TypeScript parser: what the architecture
// test holds under 150 lines (test/architecture/functionLength.unit.spec.ts) and what `tsx scripts/functionLengths.ts`
// prints, longest first.
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import ts from "typescript";

export interface FunctionSpan {
  file: string;
  /** the declared name, or the variable, property or call the function is written in; nested: outer.inner */
  name: string;
  line: number;
  lines: number;
}

/** The name a function goes by: its own, its variable's, its property's, or the call it is passed to. */
function nameOf(node: ts.Node, source: ts.SourceFile): string {
  if ((ts.isFunctionDeclaration(node) || ts.isMethodDeclaration(node) || ts.isFunctionExpression(node)) && node.name)
    return node.name.getText(source);
  if (ts.isConstructorDeclaration(node)) return "constructor";
  if ((ts.isGetAccessor(node) || ts.isSetAccessor(node)) && node.name) return node.name.getText(source);
  const parent = node.parent;
  if (ts.isVariableDeclaration(parent) || ts.isPropertyAssignment(parent) || ts.isPropertyDeclaration(parent))
    return parent.name.getText(source);
  if (ts.isCallExpression(parent)) return `${parent.expression.getText(source).split("\n")[0]}(…)`;
  return "(anonymous)";
}

const isFunction = (node: ts.Node): node is ts.FunctionLikeDeclaration =>
  ts.isFunctionDeclaration(node) ||
  ts.isFunctionExpression(node) ||
  ts.isArrowFunction(node) ||
  ts.isMethodDeclaration(node) ||
  ts.isConstructorDeclaration(node) ||
  ts.isGetAccessor(node) ||
  ts.isSetAccessor(node);

/** Every function of one file with a body, nested ones too, each with the lines from its first to its last. */
export function functionSpans(file: string, text: string): FunctionSpan[] {
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true);
  const spans: FunctionSpan[] = [];
  const visit = (node: ts.Node, outer: string[]) => {
    let path = outer;
    if (isFunction(node) && node.body) {
      path = [...outer, nameOf(node, source)];
      const first = source.getLineAndCharacterOfPosition(node.getStart(source)).line;
      const last = source.getLineAndCharacterOfPosition(node.getEnd()).line;
      spans.push({ file, name: path.join("."), line: first + 1, lines: last - first + 1 });
    }
    ts.forEachChild(node, (child) => visit(child, path));
  };
  visit(source, []);
  return spans;
}

/** The TypeScript and JavaScript files under a folder of the repository, recursively. */
export function sourceFilesUnder(root: string, dir: string): string[] {
  return readdirSync(join(root, dir), { withFileTypes: true }).flatMap((entry) => {
    const path = `${dir}/${entry.name}`;
    if (entry.isDirectory()) return sourceFilesUnder(root, path);
    return /\.(ts|mts|mjs)$/.test(entry.name) ? [path] : [];
  });
}

/** The functions over `limit` lines in the given folders, longest first. */
export function longFunctions(root: string, dirs: readonly string[], limit: number): FunctionSpan[] {
  return dirs
    .flatMap((dir) => sourceFilesUnder(root, dir))
    .flatMap((file) => functionSpans(file, readFileSync(join(root, file), "utf8")))
    .filter((span) => span.lines > limit)
    .sort((a, b) => b.lines - a.lines);
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const limit = Number(process.argv[2] ?? 150);
  const found = longFunctions(process.cwd(), ["src", "workflows", "activities", "projections"], limit);
  for (const f of found) console.log(`${String(f.lines).padStart(4)}  ${f.file}:${f.line}  ${f.name}`);
  console.log(`${found.length} functions over ${limit} lines`);
}
