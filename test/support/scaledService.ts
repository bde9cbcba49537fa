// The scaled shape for end-to-end tests: the API process on PostgreSQL (and OpenSearch, when asked) running no worker,
// and src/app/worker.ts processes beside it, as `npm run worker` runs them, on the same data directory, store, engine
// and Temporal. A test starts workers with the faults it needs, kills them, and starts healthy ones.
import { spawn, type ChildProcess } from "node:child_process";
import { REPO_ROOT } from "../../src/app/config.js";
import { requireComponent } from "../setup/components.js";
import { createPostgresDatabase } from "./stores.js";
import { startTestService, type TestService, type TestServiceOptions } from "./testService.js";

export interface ScaledServiceOptions extends Omit<TestServiceOptions, "store" | "databaseUrl" | "worker"> {
  dataRoot: string;
  /** The run's OpenSearch node for the service and its workers (else the embedded engine). */
  opensearch?: boolean;
  /** Added to every worker's environment. */
  workerEnv?: Record<string, string>;
}

export interface ScaledService {
  svc: TestService;
  databaseUrl: string;
  /** A worker process; `faults` adds to its environment (a pause, a crash point). */
  spawnWorker(faults?: Record<string, string>): ChildProcess;
  /** Kills the workers still running and waits for them, then stops the service. */
  close(): Promise<void>;
}

/** Kills `child` with SIGKILL and waits for it to exit (nothing when it has already exited). */
export async function killed(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise((resolve) => child.once("exit", resolve));
  child.kill("SIGKILL");
  await exited;
}

/** A fresh PostgreSQL database, the service on it (no worker in the API process) and what starts its workers. */
export async function startScaledService(options: ScaledServiceOptions): Promise<ScaledService> {
  const { opensearch, workerEnv, ...serviceOptions } = options;
  const databaseUrl = await createPostgresDatabase();
  const opensearchUrl = opensearch ? requireComponent("opensearchUrl") : undefined;
  const svc = await startTestService({
    ...serviceOptions,
    store: "postgres",
    databaseUrl,
    worker: false,
    opensearchUrl,
  });
  const workers: ChildProcess[] = [];
  const spawnWorker = (faults: Record<string, string> = {}): ChildProcess => {
    const child = spawn(process.execPath, ["--import", "tsx", "src/app/worker.ts"], {
      cwd: REPO_ROOT,
      env: {
        ...process.env,
        DATA_DIR: svc.dataDir,
        DATA_ROOT: options.dataRoot,
        DATABASE_URL: databaseUrl,
        ...(opensearchUrl === undefined ? {} : { OPENSEARCH_URL: opensearchUrl }),
        TEMPORAL_ADDRESS: svc.runtime.temporal.address,
        ADMIN_TOKEN: svc.adminToken,
        LOG_LEVEL: "warn",
        INGEST_DEMO: "0",
        COLLECTIONS_CONFIG: svc.runtime.config.collectionsConfig,
        ...workerEnv,
        ...faults,
      },
      stdio: ["ignore", "inherit", "inherit"],
    });
    workers.push(child);
    return child;
  };
  const close = async (): Promise<void> => {
    await Promise.all(workers.map(killed));
    await svc.close();
  };
  return { svc, databaseUrl, spawnWorker, close };
}
