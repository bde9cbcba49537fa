// The scale-out shape on one machine (`npm run up -- --scaled`): a PostgreSQL server, a Temporal dev server standing in
// for the cluster, an OpenSearch node with k-NN, the collections ingested once, then stateless API processes that run
// no worker and Temporal worker processes of their own, each a child with its log in DATA_DIR/logs.
import { existsSync, mkdirSync, readFileSync } from "node:fs";
import { hostname } from "node:os";
import { join } from "node:path";
import { Connection } from "@temporalio/client";
import { REPO_ROOT, configEnvironment, type Config } from "./config.js";
import { TASK_QUEUE } from "../../workflows/shared.js";
import { readComponent } from "../infra/components.js";
import { findFreePort } from "../infra/freePort.js";
import { startOpenSearchNode } from "../infra/opensearchNode.js";
import { startPostgresServer } from "../infra/postgresServer.js";
import { waitForReady } from "../infra/readiness.js";
import { startSupervisedProcess, type SupervisedProcess } from "../infra/supervisedProcess.js";
import { startTemporalDevServer } from "../infra/temporalDevServer.js";

interface ScaledTopologyOptions {
  /**
   * The launcher's configuration: DATA_DIR holds the components' data, the logs and what the API processes share
   * (journals table, figures, admin token); DATABASE_URL, TEMPORAL_ADDRESS and OPENSEARCH_URL, when set, are used
   * instead of starting that component; PORT is the first API process's port (the next ones follow; 0: free ports).
   */
  config: Config;
  /** the environment the children inherit beside the topology's own variables (PATH, HOME, ...) */
  inheritedEnv: NodeJS.ProcessEnv;
  apiProcesses?: number;
  workerProcesses?: number;
  /** progress lines ("[scaled] ...") */
  say?: (line: string) => void;
}

interface ScaledProcess {
  name: string;
  /** pid of the supervising shell (the process group leader) */
  pid: number;
  logFile: string;
}

interface ScaledWorker extends ScaledProcess {
  /** the worker's Temporal identity (pid@host of its Node process), as pollers and workflow histories show it */
  identity: string;
}

interface ScaledTopology {
  apis: Array<ScaledProcess & { url: string }>;
  workers: ScaledWorker[];
  databaseUrl: string;
  temporalAddress: string;
  temporalNamespace: string;
  opensearchUrl: string;
  adminToken: string;
  /** API processes and workers first, then the components this launcher started */
  stop(): Promise<void>;
}

const NODE_ARGS = ["--import", "tsx"];

export async function startScaledTopology(options: ScaledTopologyOptions): Promise<ScaledTopology> {
  const { config } = options;
  const say = options.say ?? (() => undefined);
  const apiCount = options.apiProcesses ?? 2;
  const workerCount = options.workerProcesses ?? 1;
  const logs = join(config.dataDir, "logs");
  mkdirSync(logs, { recursive: true });
  const stops: Array<() => Promise<void>> = [];
  const stop = async (): Promise<void> => {
    for (const step of stops.reverse()) await step().catch(() => undefined);
    stops.length = 0;
  };

  try {
    const [databaseUrl, temporalAddress, opensearchUrl] = await Promise.all([
      config.databaseUrl ??
        startPostgresServer({
          dataDir: join(config.dataDir, "postgres"),
          component: readComponent("postgres", config.cacheDir),
        }).then((server) => {
          stops.push(server.stop);
          say(`PostgreSQL server ${server.url} (data in ${join(config.dataDir, "postgres")})`);
          return server.url;
        }),
      config.temporalAddress ??
        startTemporalDevServer({
          dataDir: join(config.dataDir, "temporal"),
          namespace: config.temporalNamespace,
          component: readComponent("temporal", config.cacheDir),
        }).then((server) => {
          stops.push(server.stop);
          say(`Temporal dev server ${server.address}, namespace ${server.namespace}`);
          return server.address;
        }),
      config.opensearchUrl ??
        startOpenSearchNode({
          dataDir: join(config.dataDir, "opensearch"),
          component: readComponent("opensearch", config.cacheDir),
        }).then((node) => {
          stops.push(node.stop);
          say(`OpenSearch node ${node.url}`);
          return node.url;
        }),
    ]);

    const env = (extra: Record<string, string> = {}): NodeJS.ProcessEnv => ({
      ...options.inheritedEnv,
      ...configEnvironment({
        ...config,
        databaseUrl,
        temporalAddress,
        opensearchUrl,
        inProcessWorker: false,
        ingestDemo: false,
      }),
      ...extra,
    });

    // one ingest before the API processes start, so they never race to index the same collections
    for (const [name, args] of [
      ["journals", ["journals", "build"]],
      ["ingest", ["ingest"]],
    ] as const) {
      if (name === "journals" && existsSync(join(config.dataDir, "journals.json"))) continue;
      say(`${name}: npm run cli -- ${args.join(" ")} (log ${join(logs, `${name}.log`)})`);
      await runToEnd(
        `litsearch-${name}`,
        [join(REPO_ROOT, "src", "app", "cli", "main.ts"), ...args],
        join(logs, `${name}.log`),
        env(),
      );
    }

    const startWorker = async (i: number): Promise<ScaledWorker> => {
      const logFile = join(logs, `worker-${i}.log`);
      const child = startNode(`litsearch-worker-${i}`, join(REPO_ROOT, "src", "app", "worker.ts"), logFile, env());
      stops.push(child.stop);
      // ready when Temporal lists the worker's Node process among the task queue's pollers
      const identity = await waitForReady({
        what: `worker ${i} polling ${TASK_QUEUE}`,
        process: child,
        timeoutMs: 180_000,
        intervalMs: 500,
        probe: async () => {
          const mine = childPids(child.pid).map((pid) => `${pid}@${hostname()}`);
          return (await taskQueuePollers(temporalAddress, config.temporalNamespace)).find((poller) =>
            mine.includes(poller),
          );
        },
      });
      say(`worker ${i} polling task queue ${TASK_QUEUE} as ${identity} (log ${logFile})`);
      return { name: `worker-${i}`, pid: child.pid, logFile, identity };
    };
    const startApi = async (i: number, port: number): Promise<ScaledTopology["apis"][number]> => {
      const url = `http://${config.host}:${port}`;
      const logFile = join(logs, `api-${i}.log`);
      const child = startNode(
        `litsearch-api-${i}`,
        join(REPO_ROOT, "src", "app", "main.ts"),
        logFile,
        env({ PORT: String(port) }),
      );
      stops.push(child.stop);
      await waitForReady({
        what: `API process ${i} at ${url}`,
        process: child,
        timeoutMs: 300_000,
        intervalMs: 250,
        probe: async (signal) => ((await fetch(`${url}/readyz`, { signal })).ok ? true : undefined),
      });
      say(`API process ${i} at ${url} (WORKER_MODE=separate, log ${logFile})`);
      return { name: `api-${i}`, pid: child.pid, logFile, url };
    };
    const ports: number[] = [];
    for (let i = 1; i <= apiCount; i++)
      ports.push(config.port === 0 ? await findFreePort(config.host) : config.port + i - 1);
    const [workers, apis] = await Promise.all([
      Promise.all(Array.from({ length: workerCount }, (_, i) => startWorker(i + 1))),
      Promise.all(ports.map((port, i) => startApi(i + 1, port))),
    ]);

    return {
      apis,
      workers,
      databaseUrl,
      temporalAddress,
      temporalNamespace: config.temporalNamespace,
      opensearchUrl,
      adminToken: config.adminToken,
      stop,
    };
  } catch (error) {
    await stop();
    throw error;
  }
}

function startNode(name: string, script: string, logFile: string, env: NodeJS.ProcessEnv): SupervisedProcess {
  return startSupervisedProcess({
    name,
    command: process.execPath,
    args: [...NODE_ARGS, script],
    cwd: REPO_ROOT,
    logFile,
    env,
    stopGraceMs: 30_000,
  });
}

/** Runs a one-off command (the CLI) as a supervised child and waits for it; a non-zero status fails with its log. */
async function runToEnd(name: string, args: string[], logFile: string, env: NodeJS.ProcessEnv): Promise<void> {
  const child = startSupervisedProcess({
    name,
    command: process.execPath,
    args: [...NODE_ARGS, ...args],
    cwd: REPO_ROOT,
    logFile,
    env,
  });
  const { serverStatus } = await child.exit;
  if (serverStatus !== 0)
    throw new Error(`${name} exited with status ${serverStatus ?? "unknown"}. Log ${logFile}:\n${child.logTail()}`);
}

/** Direct children of a process (the supervising shell's: the server it runs and its watcher), from /proc. */
function childPids(pid: number): number[] {
  try {
    return readFileSync(`/proc/${pid}/task/${pid}/children`, "utf8").trim().split(/\s+/).filter(Boolean).map(Number);
  } catch {
    return [];
  }
}

/** Pollers on the service's task queue as Temporal sees them (identity is pid@host of each worker process). */
export async function taskQueuePollers(address: string, namespace: string): Promise<string[]> {
  const connection = await Connection.connect({ address });
  try {
    const response = await connection.workflowService.describeTaskQueue({
      namespace,
      taskQueue: { name: TASK_QUEUE },
      taskQueueType: 1,
    });
    return (response.pollers ?? []).map((poller) => poller.identity ?? "");
  } finally {
    await connection.close();
  }
}
