// The exports of src/, workflows/, activities/ and projections/ that no other file imports (dead, or an `export` the
// file does not need), and those that only test/ or bench/ import (test-only), read with the TypeScript compiler:
// what the architecture test holds (test/architecture/unusedExports.unit.spec.ts) and what
// `npx tsx scripts/unusedExports.ts` prints.
import { dirname, join, relative } from "node:path";
import ts from "typescript";
import { sourceFilesUnder } from "./functionLengths.js";

export const PRODUCTION_FOLDERS = ["src", "workflows", "activities", "projections"] as const;
/** Folders whose imports count as a use, beside the production ones; test/ and bench/ make an export test-only. */
const OTHER_FOLDERS = ["scripts", "test", "bench"] as const;

export interface ExportUse {
  /** repository-relative path of the file that declares the export */
  file: string;
  name: string;
  /** "unused": no other file imports it; "test-only": only files under test/ or bench/ do */
  kind: "unused" | "test-only";
}

type Importers = Map<string, Set<string>>; // "file#name" (or "file#*" for a whole module) → importing files

function record(importers: Importers, key: string, importer: string): void {
  const set = importers.get(key) ?? new Set<string>();
  set.add(importer);
  importers.set(key, set);
}

/** The file and name a symbol is declared as, following import and re-export aliases to the end. */
function declaredAs(checker: ts.TypeChecker, symbol: ts.Symbol, root: string): string | undefined {
  const target = symbol.flags & ts.SymbolFlags.Alias ? checker.getAliasedSymbol(symbol) : symbol;
  const declaration = target.declarations?.[0];
  if (!declaration) return undefined;
  const file = relative(root, declaration.getSourceFile().fileName);
  return `${file}#${target.escapedName === "default" ? "default" : target.name}`;
}

/** The module a specifier of `from` resolves to, repository-relative. */
function moduleFile(program: ts.Program, from: ts.SourceFile, specifier: string, root: string): string | undefined {
  const resolved = ts.resolveModuleName(specifier, from.fileName, program.getCompilerOptions(), ts.sys);
  const file = resolved.resolvedModule?.resolvedFileName;
  return file && !file.includes("node_modules") ? relative(root, file) : undefined;
}

/** Every import, re-export and dynamic import of one file, keyed by the declaration it reaches. */
function collectImports(program: ts.Program, source: ts.SourceFile, root: string, importers: Importers): void {
  const checker = program.getTypeChecker();
  const me = relative(root, source.fileName);
  // both the module named and the declaration reached count: a barrel's re-export is used only through the barrel
  const note = (node: ts.Identifier | ts.StringLiteral, target: string | undefined) => {
    if (target) record(importers, `${target}#${node.text}`, me);
    const symbol = checker.getSymbolAtLocation(node);
    const key = symbol && declaredAs(checker, symbol, root);
    if (key) record(importers, key, me);
  };
  const visit = (node: ts.Node): void => {
    if (ts.isImportDeclaration(node) && node.importClause && ts.isStringLiteral(node.moduleSpecifier)) {
      const clause = node.importClause;
      const target = moduleFile(program, source, node.moduleSpecifier.text, root);
      if (clause.name && target) record(importers, `${target}#default`, me);
      const bindings = clause.namedBindings;
      if (bindings && ts.isNamespaceImport(bindings) && target) record(importers, `${target}#*`, me);
      if (bindings && ts.isNamedImports(bindings))
        for (const element of bindings.elements) note(element.propertyName ?? element.name, target);
    } else if (ts.isExportDeclaration(node) && node.moduleSpecifier && ts.isStringLiteral(node.moduleSpecifier)) {
      const target = moduleFile(program, source, node.moduleSpecifier.text, root);
      if (!node.exportClause && target) record(importers, `${target}#*`, me);
      if (node.exportClause && ts.isNamedExports(node.exportClause))
        for (const element of node.exportClause.elements) note(element.propertyName ?? element.name, target);
    } else if (
      ts.isModuleDeclaration(node) &&
      ts.isStringLiteral(node.name) &&
      node.body &&
      ts.isModuleBlock(node.body)
    ) {
      // `declare module "…" { interface X … }` augments X: a use of it
      const target = moduleFile(program, source, node.name.text, root);
      for (const statement of node.body.statements)
        if (target && (ts.isInterfaceDeclaration(statement) || ts.isTypeAliasDeclaration(statement)))
          record(importers, `${target}#${statement.name.text}`, me);
    } else if (ts.isCallExpression(node) && node.expression.kind === ts.SyntaxKind.ImportKeyword) {
      const [argument] = node.arguments;
      const target = argument && ts.isStringLiteral(argument) && moduleFile(program, source, argument.text, root);
      if (target) {
        // `const { a, b } = await import("…")` uses a and b; any other dynamic import uses the whole module
        const declaration = ts.isAwaitExpression(node.parent) ? node.parent.parent : undefined;
        if (declaration && ts.isVariableDeclaration(declaration) && ts.isObjectBindingPattern(declaration.name))
          for (const element of declaration.name.elements) {
            const name = (element.propertyName ?? element.name).getText(source);
            record(importers, `${target}#${name}`, me);
          }
        else record(importers, `${target}#*`, me);
      }
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
}

/** Files loaded by path rather than imported: Temporal bundles the workflows from their index. */
const ENTRY_POINTS = ["workflows/index.ts"];

const isTestSide = (file: string) => file.startsWith("test/") || file.startsWith("bench/");

/** The exports of the production folders that nothing else imports, or that only test/ and bench/ import. */
export function unusedExports(root: string): ExportUse[] {
  const folders = [...PRODUCTION_FOLDERS, ...OTHER_FOLDERS];
  const files = folders.flatMap((dir) => sourceFilesUnder(root, dir)).map((file) => join(root, file));
  const config = ts.readConfigFile(join(root, "tsconfig.json"), ts.sys.readFile).config;
  const options = ts.parseJsonConfigFileContent(config, ts.sys, root).options;
  // our files alone: no library or package types, which the question (who imports what) does not need and which
  // cost seconds
  const program = ts.createProgram(files, { ...options, noEmit: true, noLib: true, types: [], noResolve: true });
  const checker = program.getTypeChecker();
  const importers: Importers = new Map();
  const sources = program.getSourceFiles().filter((source) => !source.fileName.includes("node_modules"));
  for (const source of sources) collectImports(program, source, root, importers);

  const found: ExportUse[] = [];
  for (const source of sources) {
    const file = relative(root, source.fileName);
    if (!PRODUCTION_FOLDERS.some((dir) => file.startsWith(`${dir}/`)) || ENTRY_POINTS.includes(file)) continue;
    const moduleSymbol = checker.getSymbolAtLocation(source);
    if (!moduleSymbol || importers.has(`${file}#*`)) continue;
    for (const symbol of checker.getExportsOfModule(moduleSymbol)) {
      const home = declaredAs(checker, symbol, root);
      const keys = [`${file}#${symbol.name}`, ...(home?.startsWith(`${file}#`) ? [home] : [])];
      const users = [...new Set(keys.flatMap((key) => [...(importers.get(key) ?? [])]))].filter(
        (user) => user !== file,
      );
      if (users.length === 0) found.push({ file, name: symbol.name, kind: "unused" });
      else if (users.every(isTestSide)) found.push({ file, name: symbol.name, kind: "test-only" });
    }
  }
  return found.sort((a, b) => a.kind.localeCompare(b.kind) || a.file.localeCompare(b.file));
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const found = unusedExports(join(dirname(new URL(import.meta.url).pathname), ".."));
  for (const f of found) console.log(`${f.kind.padEnd(9)}  ${f.file}  ${f.name}`);
  const unused = found.filter((f) => f.kind === "unused").length;
  console.log(`${unused} unused exports, ${found.length - unused} test-only exports`);
}
