// The operator CLI in its own process (bin/litsearch.mjs), for tests that send it to a running service with --url.
import { spawn } from "node:child_process";
import { REPO_ROOT } from "../../src/app/config.js";

type CliResult = { code: number | null; out: string; err: string };

/** Runs the CLI with `args`; no local store, server or token from the environment: the flags say where it goes. */
export function runCli(...args: string[]): Promise<CliResult> {
  return runCliFrom(undefined, ...args);
}

/**
 * runCli as `npm run cli` runs it from `callerDir`: in the project folder, the caller's folder in INIT_CWD (undefined:
 * no caller's folder but the project's).
 */
export function runCliFrom(callerDir: string | undefined, ...args: string[]): Promise<CliResult> {
  return runCliWith({ callerDir }, ...args);
}

/** runCliFrom with more of the environment: DATA_DIR and DATA_ROOT, to find the server running on a data directory. */
export function runCliWith(
  options: { callerDir?: string; env?: Record<string, string> },
  ...args: string[]
): Promise<CliResult> {
  const caller = options.callerDir ? { INIT_CWD: options.callerDir, npm_lifecycle_event: "cli" } : {};
  return new Promise((resolve) => {
    const child = spawn(process.execPath, ["bin/litsearch.mjs", ...args], {
      cwd: REPO_ROOT,
      env: { ...process.env, DATABASE_URL: "", LITSEARCH_URL: "", ADMIN_TOKEN: "", ...caller, ...options.env },
    });
    let out = "";
    let err = "";
    child.stdout.on("data", (d: Buffer) => (out += d));
    child.stderr.on("data", (d: Buffer) => (err += d));
    child.on("close", (code) => resolve({ code, out, err }));
  });
}
