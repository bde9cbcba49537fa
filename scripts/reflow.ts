// The long-line codemod: folds every line past 120 characters that scripts/longLines.ts can fold (comments re-wrapped,
// string literals split into concatenations), then lets Prettier lay the file out, until nothing changes. Idempotent:
// a file without a foldable long line is left as it is, so it can run again after a merge.
//   npx tsx scripts/reflow.ts            every tracked TypeScript and JavaScript file
//   npx tsx scripts/reflow.ts FILE...    only these
//   npx tsx scripts/reflow.ts --check    lists the long lines left, exits 1 when there is one
import { execFileSync } from "node:child_process";
import { readFileSync, writeFileSync } from "node:fs";
import * as prettier from "prettier";
import { longLines, reflowText } from "./longLines.js";

/** The files the check and the codemod cover: tracked sources Prettier does not ignore. */
export async function sourceFiles(root: string): Promise<string[]> {
  const tracked = execFileSync("git", ["ls-files", "*.ts", "*.mts", "*.mjs", "*.js"], { cwd: root, encoding: "utf8" })
    .split("\n")
    .filter(Boolean);
  const kept: string[] = [];
  for (const file of tracked) {
    const info = await prettier.getFileInfo(`${root}/${file}`, { ignorePath: `${root}/.prettierignore` });
    if (!info.ignored) kept.push(file);
  }
  return kept;
}

async function reflowFile(path: string): Promise<boolean> {
  const original = readFileSync(path, "utf8");
  let text: string;
  try {
    text = await reflowText(path, original, (await prettier.resolveConfig(path)) ?? {});
  } catch (error) {
    // a fold this codemod got wrong: the file stays as it was, and the report names it
    console.error(`${path}: not reflowed, the folded text does not parse (${(error as Error).message.split("\n")[0]})`);
    process.exitCode = 1;
    return false;
  }
  if (text === original) return false;
  writeFileSync(path, text);
  return true;
}

async function main(): Promise<void> {
  const args = process.argv.slice(2);
  const check = args.includes("--check");
  const named = args.filter((arg) => !arg.startsWith("--"));
  const root = process.cwd();
  const files = named.length ? named : await sourceFiles(root);
  if (check) {
    let count = 0;
    for (const file of files)
      for (const long of longLines(file, readFileSync(file, "utf8"))) {
        count++;
        console.log(`${file}:${long.line}: ${long.length} characters`);
      }
    console.log(`${count} line(s) past 120 characters`);
    process.exitCode = count ? 1 : 0;
    return;
  }
  let changed = 0;
  for (const file of files) if (await reflowFile(file)) changed++;
  console.log(`reflowed ${changed} of ${files.length} files`);
}

await main();
