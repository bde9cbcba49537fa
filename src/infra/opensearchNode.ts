// Starts an OpenSearch node (the Java launcher provision.sh builds) as a child process with its data in the given
// directory: alone, or as one node of a cluster on this machine (opensearchCluster.ts).
import { mkdirSync, readFileSync, rmSync } from "node:fs";
import { join } from "node:path";
import type { OpenSearchComponent } from "./components.js";
import { waitForReady } from "./readiness.js";
import { startSupervisedProcess } from "./supervisedProcess.js";

interface OpenSearchNodeOptions {
  /** Node home (config, data, logs) plus opensearch.log; created if missing. Reusing it keeps the indices. */
  dataDir: string;
  /** HTTP port; when omitted the node binds a free one itself and reports it. */
  port?: number;
  /** The provisioned launcher: readComponent('opensearch', cacheDir). */
  component: OpenSearchComponent;
  startTimeoutMs?: number;
  /** one node of a cluster: its name, transport port and the cluster's seed hosts; alone when omitted */
  cluster?: OpenSearchClusterMember;
  /** the node's heap, e.g. "384m" (-Xms and -Xmx); the provisioned default when omitted */
  heap?: string;
}

interface OpenSearchClusterMember {
  clusterName: string;
  nodeName: string;
  transportPort: number;
  /** every node's transport address, 127.0.0.1:port */
  seedHosts: string[];
  /** the names of the nodes that bootstrap the cluster's first election */
  initialClusterManagers: string[];
}

export interface OpenSearchNode {
  /** e.g. http://127.0.0.1:40271 */
  url: string;
  logFile: string;
  /** the node's process id (the speed benchmark reads its CPU time) */
  pid: number;
  stop(): Promise<void>;
  /** SIGKILL to the node's process group, as a crashed machine would go; resolves once it is gone */
  kill(): Promise<void>;
}

export async function startOpenSearchNode(options: OpenSearchNodeOptions): Promise<OpenSearchNode> {
  const component = options.component;
  mkdirSync(options.dataDir, { recursive: true });
  const logFile = join(options.dataDir, "opensearch.log");
  const readyFile = join(options.dataDir, "opensearch.ready");
  rmSync(readyFile, { force: true });

  const child = startSupervisedProcess({
    name: "opensearch",
    command: component.java,
    args: [
      ...component.jvmArgs,
      // the last -Xms/-Xmx wins
      ...(options.heap ? [`-Xms${options.heap}`, `-Xmx${options.heap}`] : []),
      "-cp",
      component.classpath,
      component.mainClass,
      "--home",
      options.dataDir,
      "--http-port",
      String(options.port ?? 0),
      "--ready-file",
      readyFile,
      "--cluster-name",
      options.cluster?.clusterName ?? "litsearch",
      ...(options.cluster ? clusterArgs(options.cluster) : []),
    ],
    logFile,
    stopGraceMs: 30_000,
  });

  try {
    const url = await waitForReady({
      what: `OpenSearch node in ${options.dataDir}`,
      process: child,
      timeoutMs: options.startTimeoutMs ?? 120_000,
      intervalMs: 250,
      probe: (signal) => healthyUrl(readyFile, signal),
    });
    const kill = async (): Promise<void> => {
      if (child.hasExited()) return;
      try {
        process.kill(-child.pid, "SIGKILL");
      } catch {
        // already gone
      }
      await child.exit;
    };
    return { url, logFile, pid: child.pid, stop: () => child.stop(), kill };
  } catch (error) {
    await child.stop();
    throw error;
  }
}

function clusterArgs(member: OpenSearchClusterMember): string[] {
  return [
    "--node-name",
    member.nodeName,
    "--transport-port",
    String(member.transportPort),
    "--seed-hosts",
    member.seedHosts.join(","),
    "--initial-cluster-managers",
    member.initialClusterManagers.join(","),
  ];
}

// The launcher writes its URL to the ready file once the cluster is yellow; confirm over HTTP.
async function healthyUrl(readyFile: string, signal: AbortSignal): Promise<string | undefined> {
  let url: string;
  try {
    url = readFileSync(readyFile, "utf8").trim();
  } catch {
    return undefined;
  }
  const response = await fetch(`${url}/_cluster/health`, { signal });
  if (!response.ok) throw new Error(`GET /_cluster/health answered ${response.status}`);
  const health = (await response.json()) as { status?: string };
  return health.status === "green" || health.status === "yellow" ? url : undefined;
}
