// Starts the Temporal CLI dev server as a child process, persisting to a SQLite file in the data directory so a restart
// keeps workflow history.
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import { Connection } from "@temporalio/client";
import type { TemporalCliComponent } from "./components.js";
import { findFreePort } from "./freePort.js";
import { waitForReady } from "./readiness.js";
import { startSupervisedProcess } from "./supervisedProcess.js";

interface TemporalDevServerOptions {
  /** Holds temporal.sqlite and temporal.log; created if missing. */
  dataDir: string;
  /** gRPC frontend port; a free one when omitted. */
  port?: number;
  /** Web UI port; the UI is off (headless) when omitted. */
  uiPort?: number;
  /** Namespace created at launch (default "default", which always exists). */
  namespace?: string;
  /** The provisioned CLI: readComponent('temporal', cacheDir). */
  component: TemporalCliComponent;
  startTimeoutMs?: number;
}

export interface TemporalDevServer {
  /** host:port for @temporalio/client and worker connections. */
  address: string;
  namespace: string;
  /** Set when uiPort was given. */
  uiUrl?: string;
  logFile: string;
  stop(): Promise<void>;
}

export async function startTemporalDevServer(options: TemporalDevServerOptions): Promise<TemporalDevServer> {
  const component = options.component;
  const namespace = options.namespace ?? "default";
  const port = options.port ?? (await findFreePort());
  const address = `127.0.0.1:${port}`;
  mkdirSync(options.dataDir, { recursive: true });
  const logFile = join(options.dataDir, "temporal.log");

  const args = [
    "server",
    "start-dev",
    "--db-filename",
    join(options.dataDir, "temporal.sqlite"),
    "--ip",
    "127.0.0.1",
    "--port",
    String(port),
    "--namespace",
    namespace,
    "--log-level",
    "warn",
    "--color",
    "never",
    ...(options.uiPort === undefined ? ["--headless"] : ["--ui-port", String(options.uiPort)]),
  ];
  const child = startSupervisedProcess({
    name: "temporal",
    command: component.cli,
    args,
    logFile,
    stopGraceMs: 15_000,
  });

  try {
    await waitForReady({
      what: `Temporal dev server on ${address}`,
      process: child,
      timeoutMs: options.startTimeoutMs ?? 60_000,
      intervalMs: 250,
      probe: () => namespaceAnswers(address, namespace),
    });
  } catch (error) {
    await child.stop();
    throw error;
  }

  return {
    address,
    namespace,
    uiUrl: options.uiPort === undefined ? undefined : `http://127.0.0.1:${options.uiPort}`,
    logFile,
    stop: () => child.stop(),
  };
}

// Ready means the frontend answers and the namespace is registered, not merely that the port is open.
async function namespaceAnswers(address: string, namespace: string): Promise<true> {
  const connection = await Connection.connect({ address, connectTimeout: 2_000 });
  try {
    await connection.workflowService.describeNamespace({ namespace });
    return true;
  } finally {
    await connection.close();
  }
}
