// Starts a cluster of OpenSearch nodes on this machine (tests only), each its own process with its own home (data,
// logs), HTTP port and transport port, each listing the others as seed hosts: the scaled shape's failure test kills
// one.
import { join } from "node:path";
import type { OpenSearchComponent } from "../../src/infra/components.js";
import { findFreePort } from "../../src/infra/freePort.js";
import { startOpenSearchNode, type OpenSearchNode } from "../../src/infra/opensearchNode.js";

export interface OpenSearchClusterOptions {
  /** each node's home is <dir>/<node name> */
  dir: string;
  component: OpenSearchComponent;
  /** 2 or more */
  nodes: number;
  /** each node's heap, e.g. "384m" */
  heap?: string;
  clusterName?: string;
  startTimeoutMs?: number;
}

export interface OpenSearchClusterNode extends OpenSearchNode {
  name: string;
}

export interface OpenSearchCluster {
  nodes: OpenSearchClusterNode[];
  /** every node's address, comma-separated: what OPENSEARCH_URL takes */
  urls: string;
  stop(): Promise<void>;
}

export async function startOpenSearchCluster(options: OpenSearchClusterOptions): Promise<OpenSearchCluster> {
  if (!Number.isInteger(options.nodes) || options.nodes < 2)
    throw new Error(`an OpenSearch cluster takes 2 nodes or more, got ${options.nodes}`);
  const names = Array.from({ length: options.nodes }, (_, i) => `node-${i + 1}`);
  const transportPorts: number[] = [];
  for (const _ of names) transportPorts.push(await distinctFreePort(transportPorts));
  const seedHosts = transportPorts.map((port) => `127.0.0.1:${port}`);
  const clusterName = options.clusterName ?? "litsearch-cluster";
  // all at once: each node waits for the others to elect a cluster manager before it is ready
  const started = await Promise.allSettled(
    names.map((name, i) =>
      startOpenSearchNode({
        dataDir: join(options.dir, name),
        component: options.component,
        heap: options.heap,
        startTimeoutMs: options.startTimeoutMs,
        cluster: {
          clusterName,
          nodeName: name,
          transportPort: transportPorts[i]!,
          seedHosts,
          initialClusterManagers: names,
        },
      }).then((node) => ({ ...node, name })),
    ),
  );
  const nodes = started.flatMap((s) => (s.status === "fulfilled" ? [s.value] : []));
  const stop = async (): Promise<void> => {
    await Promise.allSettled(nodes.map((node) => node.stop()));
  };
  const failed = started.find((s): s is PromiseRejectedResult => s.status === "rejected");
  if (failed) {
    await stop();
    throw failed.reason;
  }
  return { nodes, urls: nodes.map((node) => node.url).join(","), stop };
}

async function distinctFreePort(taken: number[]): Promise<number> {
  for (;;) {
    const port = await findFreePort();
    if (!taken.includes(port)) return port;
  }
}
