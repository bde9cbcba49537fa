// A real embedding server serving the service's model: llama.cpp's llama-server (OpenAI-compatible /v1/embeddings,
// [CLS] pooling) over the GGUF file provisioning converts from model.dequantized.onnx
// (scripts/provision-llama-server.sh writes both and $LITSEARCH_CACHE/llama-server.json). Started on a free port;
// throws, naming the fix, when it was not provisioned, so a test that needs it fails rather than skips.
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { cacheDirFrom } from "../../src/app/config.js";
import { startServedChild, type ServedChild } from "./servedChild.js";

/** The name the server answers with (EMBEDDING_MODEL): the model's Hugging Face name. */
export const LLAMA_SERVED_MODEL = "BAAI/bge-small-en-v1.5";

/** startupLog: what it printed until /health answered, with its system_info line and the CPU backend it loaded */
export type LlamaServer = ServedChild;

interface LlamaManifest {
  /** the portable build: one static binary for AVX2 CPUs */
  server: string;
  /** the CPU-variants build, when provisioned with LLAMA_SERVER_CPU=variants: picks the CPU's best backend at start */
  serverVariants?: string;
  gguf: string;
  args: string[];
}

export function llamaServerManifest(cacheDir = cacheDirFrom(process.env)): LlamaManifest {
  const path = join(cacheDir, "llama-server.json");
  if (!existsSync(path))
    throw new Error(
      `${path} is missing: run npm run provision (scripts/provision-llama-server.sh builds llama-server)`,
    );
  const manifest = JSON.parse(readFileSync(path, "utf8")) as LlamaManifest;
  for (const file of [manifest.server, manifest.gguf])
    if (!existsSync(file)) throw new Error(`${file} is missing: run npm run provision again`);
  return manifest;
}

/** How llama-server runs: compute threads, request slots, word pieces computed together, extra environment. */
export interface LlamaServerOptions {
  threads?: number;
  parallel?: number;
  /**
   * word pieces per compute step (-b and -ub), 512 by default: the longest text. A larger step holds more texts, but
   * llama.cpp computes one attention matrix over all of a step's word pieces (masked between texts), whose cost grows
   * with the square of the step.
   */
  ubatch?: number;
  /** added to the server's environment; OMP_WAIT_POLICY is passive unless given */
  env?: Record<string, string>;
  /** which build runs: portable (the default) or variants (fails, naming the fix, when it was not provisioned) */
  build?: "portable" | "variants";
  /** another GGUF file than the provisioned one (the bench's trials of other weight types) */
  gguf?: string;
  /** llama-server's log verbosity (-lv); 4 prints its system_info line and the CPU backend it loaded */
  verbosity?: number;
}

/**
 * Starts llama-server with `threads` compute threads and `parallel` request slots (each slot holds one text of up to
 * 512 word pieces) and waits until /health answers 200.
 */
export async function startLlamaServer(options: LlamaServerOptions = {}): Promise<LlamaServer> {
  const manifest = llamaServerManifest();
  const binary = options.build === "variants" ? manifest.serverVariants : manifest.server;
  if (!binary || !existsSync(binary))
    throw new Error(
      options.build === "variants"
        ? "llama-server's CPU-variants build is missing: run " +
            "LLAMA_SERVER_CPU=variants bash scripts/provision-llama-server.sh"
        : "llama-server is missing: run npm run provision",
    );
  const parallel = options.parallel ?? 4;
  const threads = String(options.threads ?? 2);
  const ubatch = String(options.ubatch ?? 512);
  const served = await startServedChild({
    name: "llama-server",
    command: binary,
    args: (port) => [
      ...["--model", options.gguf ?? manifest.gguf, ...manifest.args, "--alias", LLAMA_SERVED_MODEL],
      ...["--host", "127.0.0.1", "--port", String(port), "--threads", threads, "--threads-batch", threads],
      ...["--parallel", String(parallel), "--ctx-size", String(512 * parallel), "--cont-batching"],
      ...["--batch-size", ubatch, "--ubatch-size", ubatch, "--flash-attn", "off", "--no-webui"],
      ...(options.verbosity === undefined ? [] : ["--log-verbosity", String(options.verbosity)]),
    ],
    // passive: OpenMP threads waiting at a barrier sleep rather than spin; on a shared, loaded CPU a spinning thread
    // takes the time slice its partner needs to reach the barrier (docs/measurements.md, "The remote embedding port")
    env: { ...process.env, OMP_WAIT_POLICY: "passive", ...options.env },
    readyPath: "/health",
    readyWithinMs: 60_000,
    pollMs: 200,
  });
  return served;
}
