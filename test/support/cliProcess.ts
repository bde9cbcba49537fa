// The operator CLI in its own process (bin/litsearch.mjs), for tests that send it to a running service with --url.
import { spawn } from "node:child_process";
import { REPO_ROOT } from "../../src/app/config.js";

/** Runs the CLI with `args`; no local store, server or token from the environment: the flags say where it goes. */
export function runCli(...args: string[]): Promise<{ code: number | null; out: string; err: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, ["bin/litsearch.mjs", ...args], {
      cwd: REPO_ROOT,
      env: { ...process.env, DATABASE_URL: "", LITSEARCH_URL: "", ADMIN_TOKEN: "" },
    });
    let out = "";
    let err = "";
    child.stdout.on("data", (d: Buffer) => (out += d));
    child.stderr.on("data", (d: Buffer) => (err += d));
    child.on("close", (code) => resolve({ code, out, err }));
  });
}
