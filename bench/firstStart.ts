// Times a first start as a new user has it: a fresh clone of this repository's HEAD in a temporary directory with no
// ../shared beside it, `npm run up` on its embedded defaults, until the service listens (GET /healthz answers) and
// until every demo collection is searchable (/readyz lists none ingesting or failed), then a hybrid search of each
// demo collection. Prints JSON, then a readable line. The npm download cache (~/.npm) is used as it is; the
// provisioning cache is the usual one (--cache warm, the default) or a new empty one (--cache cold).
// Usage: npm run bench:firststart [-- --cache warm|cold] [--timeout 1200] [--keep]
import { execFileSync, spawn } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, createWriteStream } from "node:fs";
import { createServer } from "node:net";
import { cpus, loadavg, tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { parseArgs } from "node:util";
import { cacheDirFrom } from "../src/app/config.js";

const { values } = parseArgs({
  options: {
    cache: { type: "string", default: "warm" },
    timeout: { type: "string", default: "1200" },
    keep: { type: "boolean", default: false },
  },
});
if (values.cache !== "warm" && values.cache !== "cold") throw new Error("--cache takes warm or cold");
const repo = resolve(import.meta.dirname, "..");
const root = mkdtempSync(join(tmpdir(), "litsearch-firststart-"));
const clone = join(root, "litsearch");
const cache = values.cache === "warm" ? cacheDirFrom(process.env) : join(root, "cache");
const port = await new Promise<number>((done) => {
  const server = createServer().listen(0, "127.0.0.1", () => {
    const { port } = server.address() as { port: number };
    server.close(() => done(port));
  });
});

function cpuFacts(): { model: string; flags: string } {
  const info = readFileSync("/proc/cpuinfo", "utf8");
  const flags = new Set((/^flags\s*:\s*(.*)$/m.exec(info)?.[1] ?? "").split(/\s+/));
  return {
    model: cpus()[0]?.model ?? "unknown",
    flags:
      ["avx2", "avx512f", "avx512_vnni", "avx_vnni"].filter((f) => flags.has(f)).join(" ") ||
      "none of avx2/avx512/vnni",
  };
}

async function getJson(path: string): Promise<{ status: number; body: Record<string, unknown> } | null> {
  try {
    const res = await fetch(`http://127.0.0.1:${port}${path}`, { signal: AbortSignal.timeout(5000) });
    return { status: res.status, body: (await res.json()) as Record<string, unknown> };
  } catch {
    return null;
  }
}

execFileSync("git", ["clone", "-q", repo, clone]);
const log = join(root, "up.log");
const started = performance.now();
const seconds = () => Math.round((performance.now() - started) / 100) / 10;
// the clone's own defaults: its demo-data/ and data/
const { DATA_ROOT: _root, DATA_DIR: _dir, ...inherited } = process.env;
const env = { ...inherited, LITSEARCH_CACHE: cache, PORT: String(port) };
const up = spawn("npm", ["run", "up"], { cwd: clone, env, detached: true, stdio: ["ignore", "pipe", "pipe"] });
const out = createWriteStream(log);
up.stdout.pipe(out);
up.stderr.pipe(out);
const exited = new Promise<number | null>((done) => up.on("exit", (code) => done(code)));

let listening: number | null = null;
let ready: number | null = null;
let readiness: Record<string, unknown> | undefined;
const deadline = Number(values.timeout) * 1000;
try {
  while (performance.now() - started < deadline) {
    const code = await Promise.race([exited, new Promise<"running">((r) => setTimeout(() => r("running"), 1000))]);
    if (code !== "running") throw new Error(`npm run up exited with ${code} after ${seconds()} s (log: ${log})`);
    if (listening === null && (await getJson("/healthz"))?.status === 200) listening = seconds();
    if (listening !== null) {
      const res = await getJson("/readyz");
      const collections = (
        res?.body.details as { collections?: { ingesting?: unknown[]; failed?: unknown[] } } | undefined
      )?.collections;
      readiness = collections as Record<string, unknown> | undefined;
      if (res?.status === 200 && collections && (collections.ingesting?.length ?? 1) === 0) {
        if ((collections.failed?.length ?? 0) > 0)
          throw new Error(`collections failed: ${JSON.stringify(collections.failed)} (log: ${log})`);
        ready = seconds();
        break;
      }
    }
  }
  if (ready === null)
    throw new Error(`not ready after ${values.timeout} s: ${JSON.stringify(readiness)} (log: ${log})`);
} finally {
  try {
    process.kill(-up.pid!, "SIGTERM");
  } catch {
    // already gone
  }
  await Promise.race([exited, new Promise((r) => setTimeout(r, 15_000))]);
  try {
    process.kill(-up.pid!, "SIGKILL");
  } catch {
    // stopped
  }
}
const cpu = cpuFacts();
const result = {
  cache: values.cache,
  listeningSeconds: listening,
  readySeconds: ready,
  cpu: cpu.model,
  cpuFlags: cpu.flags,
  cores: cpus().length,
  loadAverage: loadavg().map((l) => Math.round(l * 10) / 10),
  at: new Date().toISOString(),
};
console.log(JSON.stringify(result));
console.log(
  `first start (${values.cache} provisioning cache, fresh clone, no ../shared): listening after ${listening} ` +
    `s, every demo collection ready after ${ready} s on ${cpu.model} (${cpu.flags}), load ` +
    `${result.loadAverage.join(" ")}`,
);
if (!values.keep) rmSync(root, { recursive: true, force: true });
else console.log(`kept ${root}`);
