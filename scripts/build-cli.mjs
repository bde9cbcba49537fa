// Compiles the operator CLI (src/app/cli/main.ts and what it imports) into JavaScript under dist/app/ with esbuild, so
// `litsearch` starts without transpiling TypeScript at every call. What only a command run beside the store needs is
// split into chunks loaded when such a command runs. dist/app keeps src/app's depth, so the paths modules derive
// from their own location (the repository root, workflows/) still resolve; the files they open beside themselves
// (worker scripts, dashboard assets) are copied there. Run by setup; bin/litsearch.mjs runs it again when a source
// file is newer than the build (a second or so), so the CLI never runs stale code.
import { copyFileSync, existsSync, mkdirSync, readdirSync, renameSync, rmSync, statSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const ROOT = fileURLToPath(new URL("..", import.meta.url));
export const CLI_BUILD = join(ROOT, "dist", "app", "cli.mjs");
const STAMP = join(ROOT, "dist", "app", ".built");
const SOURCE_DIRS = ["src", "projections", "workflows", "activities"].map((d) => join(ROOT, d));
/** files modules open beside themselves, by their path under src/ */
const BESIDE = [
  "eventstore/pgliteThread.worker.mjs",
  "embedding/embeddingWorker.mjs",
  "embedding/encoderSession.mjs",
  "usecases/search/deflateThread.worker.mjs",
];

/** The newest modification time of the sources the CLI is built from (and of this script and package.json). */
function newestSource() {
  let newest = Math.max(statSync(fileURLToPath(import.meta.url)).mtimeMs, statSync(join(ROOT, "package.json")).mtimeMs);
  for (const dir of SOURCE_DIRS) {
    for (const entry of readdirSync(dir, { recursive: true, withFileTypes: true })) {
      if (entry.isFile() && /\.(ts|mjs|js|json)$/.test(entry.name))
        newest = Math.max(newest, statSync(join(entry.parentPath ?? entry.path, entry.name)).mtimeMs);
    }
  }
  return newest;
}

/** Whether dist/app holds a build at least as new as every source. */
export function cliBuildIsFresh() {
  return existsSync(STAMP) && existsSync(CLI_BUILD) && statSync(STAMP).mtimeMs >= newestSource();
}

export async function buildCli() {
  const { build } = await import("esbuild");
  const target = dirname(CLI_BUILD);
  const dist = dirname(target);
  // built beside, then swapped in by renames: a CLI started meanwhile (a test's other process) keeps a whole build
  const suffix = `${process.pid}-${Date.now()}`;
  const out = join(dist, `app-building-${suffix}`);
  mkdirSync(out, { recursive: true });
  for (const old of existsSync(dist) ? readdirSync(dist) : []) {
    if (old.startsWith("app-old-") && Date.now() - statSync(join(dist, old)).mtimeMs > 60_000)
      rmSync(join(dist, old), { recursive: true, force: true });
  }
  const started = Date.now();
  await build({
    entryPoints: { cli: join(ROOT, "src", "app", "cli", "main.ts") },
    bundle: true,
    splitting: true,
    format: "esm",
    platform: "node",
    target: "node20",
    packages: "external",
    outdir: out,
    outExtension: { ".js": ".mjs" },
    // beside cli.mjs, never deeper: a module's own location decides the paths it derives
    logLevel: "warning",
  });
  // a worker script is looked up beside the module that starts it
  for (const file of BESIDE) copyFileSync(join(ROOT, "src", file), join(out, file.split("/").pop()));
  writeFileSync(join(out, ".built"), new Date().toISOString());
  try {
    if (existsSync(target)) renameSync(target, join(dist, `app-old-${suffix}`));
    renameSync(out, target);
  } catch {
    // another process swapped its build in at the same moment: that one serves, this one is left to be cleared
    if (existsSync(out)) renameSync(out, join(dist, `app-old-${suffix}-unused`));
  }
  return Date.now() - started;
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const ms = await buildCli();
  console.log(`[build] operator CLI compiled into dist/app in ${ms} ms`);
}
