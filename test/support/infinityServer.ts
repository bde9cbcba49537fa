// Infinity (PyPI infinity-emb), a second real embedding server, opt-in: an OpenAI-compatible server (/v1/embeddings)
// running ONNX Runtime over the service's own float32 graph, with [CLS] pooling (scripts/provision-infinity.sh installs
// it and writes $LITSEARCH_CACHE/infinity-server.json). bench:remote-embedding --server infinity measures the port
// against it, and REAL_EMBEDDING_SERVER=infinity runs the real-server test on it. Started on a free port; throws,
// naming the fix, when it was not provisioned.
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { cacheDirFrom } from "../../src/app/config.js";
import { startServedChild } from "./servedChild.js";

/** The folder of the sitecustomize module that sets ONNX Runtime's threads from LITSEARCH_ORT_THREADS. */
const ORT_THREADS_PATH = fileURLToPath(new URL("../../scripts/python/ort-threads", import.meta.url));

interface InfinityManifest {
  server: string;
  model: string;
  servedModelName: string;
  args: string[];
}

export interface InfinityServer {
  url: string;
  pid: number;
  /** the name it serves the model under (EMBEDDING_MODEL) */
  model: string;
  close(): Promise<void>;
}

/**
 * Starts Infinity with `batch` texts per forward pass at most and waits until it lists its model. `threads`: the
 * session the service opens in-process, on that many threads: Infinity's own graph optimization off
 * (INFINITY_ONNX_DISABLE_OPTIMIZE), and ONNX Runtime's threads, their busy-waiting and its SkipLayerNorm fusion set by
 * scripts/python/ort-threads/sitecustomize.py (Infinity has no option for them; by default one thread a core,
 * busy-waiting between steps).
 */
export async function startInfinityServer(options: { batch: number; threads?: number }): Promise<InfinityServer> {
  const path = join(cacheDirFrom(process.env), "infinity-server.json");
  if (!existsSync(path)) throw new Error(`${path} is missing: run bash scripts/provision-infinity.sh`);
  const manifest = JSON.parse(readFileSync(path, "utf8")) as InfinityManifest;
  if (!existsSync(manifest.server)) throw new Error(`${manifest.server} is missing: run scripts/provision-infinity.sh`);
  // its temporary files in a folder of its own, removed when it stops
  const scratch = mkdtempSync(join(tmpdir(), "litsearch-infinity-"));
  const served = await startServedChild({
    name: "Infinity",
    command: manifest.server,
    args: (port) => [
      ...["v2", "--model-id", manifest.model, "--served-model-name", manifest.servedModelName, ...manifest.args],
      ...["--host", "127.0.0.1", "--port", String(port), "--batch-size", String(options.batch)],
    ],
    // offline, no usage reports: nothing outside this machine is called
    env: {
      ...process.env,
      TMPDIR: scratch,
      HF_HUB_OFFLINE: "1",
      DO_NOT_TRACK: "1",
      INFINITY_ANONYMOUS_USAGE_STATS: "0",
      ...(options.threads
        ? {
            LITSEARCH_ORT_THREADS: String(options.threads),
            PYTHONPATH: ORT_THREADS_PATH,
            INFINITY_ONNX_DISABLE_OPTIMIZE: "1",
          }
        : {}),
    },
    readyPath: "/v1/models",
    // the first start optimizes the graph (tens of seconds on 2 cores)
    readyWithinMs: 300_000,
    pollMs: 500,
    onExit: () => rmSync(scratch, { recursive: true, force: true }),
  });
  return { url: served.url, pid: served.pid, model: manifest.servedModelName, close: served.close };
}
