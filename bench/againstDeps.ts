// bench:speed --against: the other commit runs on this checkout's node_modules (linked into its worktree). A runtime
// dependency it declares that this checkout no longer installs (b98b6e0: cli-progress, dropped since) stops its
// service at start with ERR_MODULE_NOT_FOUND; those few are installed with npm into the bench's folder, above the
// worktree on the module path, never into this checkout's node_modules or lock file. When npm cannot install them
// (no registry), the bench stops before any timing and says which packages and why.
import { execFileSync } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { join, relative, resolve } from "node:path";
import { pathToFileURL } from "node:url";

/** The runtime dependencies a package.json declares that `installed` does not find: `name@range`. */
export function missingDependencies(
  packageJson: { dependencies?: Record<string, string> },
  installed: (name: string) => boolean,
): string[] {
  return Object.entries(packageJson.dependencies ?? {})
    .filter(([name]) => !installed(name))
    .map(([name, range]) => `${name}@${range}`);
}

/**
 * The other tree's missing runtime dependencies installed under `benchDir` (its node_modules is on the module path of
 * a worktree checked out below it); throws, naming them, when npm cannot.
 */
export function installMissingDependencies(treeRoot: string, commit: string, repoRoot: string, benchDir: string): void {
  const packageJson = JSON.parse(readFileSync(join(treeRoot, "package.json"), "utf8")) as {
    dependencies?: Record<string, string>;
  };
  const found = (name: string) =>
    [repoRoot, benchDir].some((dir) => existsSync(join(dir, "node_modules", name, "package.json")));
  const missing = missingDependencies(packageJson, found);
  if (missing.length === 0) return;
  console.error(`[speed] ${commit} needs ${missing.join(", ")}, which this checkout does not install; installing`);
  try {
    execFileSync(
      "npm",
      ["install", "--no-save", "--no-package-lock", "--no-audit", "--no-fund", "--prefer-offline"].concat(
        ["--prefix", benchDir],
        missing,
      ),
      { stdio: ["ignore", "pipe", "pipe"], encoding: "utf8" },
    );
  } catch (err) {
    const stderr = String((err as { stderr?: string }).stderr ?? (err as Error).message).trim();
    throw new Error(
      `${commit} cannot run here: its package.json needs ${missing.join(", ")}, which this checkout's ` +
        `node_modules lacks, and npm could not install it into ${join(benchDir, "node_modules")}: ` +
        stderr.split("\n").slice(-3).join(" "),
      { cause: err },
    );
  }
}

/**
 * The data root the other commit would read had it been checked out where this checkout is: its default is relative
 * to its clone (b98b6e0: ../shared/data beside the clone; later trees: demo-data inside it), and its worktree lies in
 * the bench's folder, where neither is. Undefined when that place does not exist here (the commit's own default
 * stands) or the commit names none.
 */
export async function againstDataRoot(treeRoot: string, repoRoot: string): Promise<string | undefined> {
  let theirs: string | undefined;
  try {
    const config = (await import(pathToFileURL(join(treeRoot, "src", "app", "config.ts")).href)) as {
      DEFAULT_DATA_ROOT?: string;
    };
    theirs = config.DEFAULT_DATA_ROOT;
  } catch {
    return undefined;
  }
  if (theirs === undefined) return undefined;
  const here = resolve(repoRoot, relative(treeRoot, theirs));
  return existsSync(here) ? here : undefined;
}
