// The scaled shape's parts the benchmarks share: a fresh database on a PostgreSQL server, and N `src/app/worker.ts`
// processes polling the runtime's Temporal server (the runtime itself running no worker).
import { mkdirSync } from "node:fs";
import { basename, join } from "node:path";
import pg from "pg";
import { REPO_ROOT, configEnvironment, type Config } from "../src/app/config.js";
import { taskQueuePollers } from "../src/app/scaledTopology.js";
import { startSupervisedProcess, type SupervisedProcess } from "../src/infra/supervisedProcess.js";

/**
 * A fresh database on the bench's PostgreSQL server, its URL: one of that name left by an earlier run is dropped first
 * (another commit's schema starts from nothing).
 */
export async function createDatabase(serverUrl: string, name: string): Promise<string> {
  const admin = new pg.Client({ connectionString: serverUrl });
  await admin.connect();
  try {
    await admin.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
    await admin.query(`CREATE DATABASE ${name}`);
  } finally {
    await admin.end();
  }
  const url = new URL(serverUrl);
  url.pathname = `/${name}`;
  return url.toString();
}

/**
 * N `src/app/worker.ts` processes on the runtime's configuration and Temporal server, ready when Temporal lists each as
 * a poller.
 */
export async function startWorkers(
  config: Config,
  temporalAddress: string,
  count: number,
  logs: string,
  started: SupervisedProcess[],
  /** node options before the script (`--cpu-prof`: each worker writes its CPU profile when it stops) */
  nodeArgs: string[] = [],
): Promise<void> {
  mkdirSync(logs, { recursive: true });
  const env = {
    ...process.env,
    ...configEnvironment({ ...config, temporalAddress, inProcessWorker: false, ingestDemo: false }),
  };
  for (let i = 1; i <= count; i++) {
    started.push(
      startSupervisedProcess({
        name: `bench-worker-${i}`,
        command: process.execPath,
        args: [...nodeArgs, "--import", "tsx", join(REPO_ROOT, "src", "app", "worker.ts")],
        cwd: REPO_ROOT,
        logFile: join(logs, `${basename(config.dataDir)}-worker-${i}.log`),
        env,
        stopGraceMs: 30_000,
      }),
    );
  }
  const deadline = Date.now() + 180_000;
  for (;;) {
    const exited = started.find((w) => w.hasExited());
    if (exited) throw new Error(`${exited.name} exited before polling. Log ${exited.logFile}:\n${exited.logTail()}`);
    // the runtime runs no worker: every poller (identity pid@host) is one of these processes
    const polling = new Set(await taskQueuePollers(temporalAddress, config.temporalNamespace)).size;
    if (polling >= count) return;
    if (Date.now() > deadline)
      throw new Error(`${count - polling} of ${count} worker processes not polling after 180 s; logs in ${logs}`);
    await new Promise((r) => setTimeout(r, 500));
  }
}
