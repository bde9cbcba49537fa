// Starts `src/app/main.ts` as `npm start` does (embedded defaults, its own Temporal dev server) and reads its banner.
import { spawn, type ChildProcess } from "node:child_process";
import { REPO_ROOT } from "../../src/app/config.js";

export interface StartedMain {
  child: ChildProcess;
  url: string;
  token: string;
  output: () => string;
}

/** Runs the service on `dataDir` over the data under `dataRoot` and waits for its banner (5 minutes at most). */
export async function startMain(dataDir: string, dataRoot: string): Promise<StartedMain> {
  const env = {
    ...process.env,
    DATA_DIR: dataDir,
    DATA_ROOT: dataRoot,
    PORT: "0",
    TEMPORAL_ADDRESS: "",
    DATABASE_URL: "",
    OPENSEARCH_URL: "",
    ADMIN_TOKEN: "",
    LOG_LEVEL: "warn",
  };
  const child = spawn(process.execPath, ["--import", "tsx", "src/app/main.ts"], {
    cwd: REPO_ROOT,
    env,
    stdio: ["ignore", "pipe", "pipe"],
  });
  let out = "";
  child.stdout!.on("data", (d) => (out += d));
  child.stderr!.on("data", (d) => (out += d));
  const deadline = Date.now() + 300_000;
  while (Date.now() < deadline) {
    const m = /running at (http:\/\/\S+)\s+Admin token[^:]*: (\S+)/.exec(out);
    if (m && out.includes("Ctrl-C stops everything")) return { child, url: m[1]!, token: m[2]!, output: () => out };
    if (child.exitCode !== null) throw new Error(`service exited early (${child.exitCode}):\n${out}`);
    await new Promise((r) => setTimeout(r, 200));
  }
  child.kill("SIGKILL");
  throw new Error(`service did not start in time:\n${out}`);
}
