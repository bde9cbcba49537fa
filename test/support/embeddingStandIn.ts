// A scripted stand-in for an operator's embedding server, for fault tests only: it speaks the OpenAI-compatible
// POST /v1/embeddings and TEI POST /embed, answers with the service's own model (so its vectors pass the probe), and
// plays the faults a test scripts at POST /__faults, one per request: 429 (Retry-After 1), 500, 503, a hang (never
// answers), a wrong width or another model's name. GET /__stats counts requests and texts answered. Run as a child
// process (startEmbeddingStandIn) so a test can kill it mid-ingestion and start it again on the same port.
import { spawn, type ChildProcess } from "node:child_process";
import { createServer, type IncomingMessage } from "node:http";
import { createInterface } from "node:readline";
import { fileURLToPath } from "node:url";

/** the service's model (bge-small), or the other provisioned one (all-MiniLM-L6-v2: 384 wide too, other vectors) */
export type StandInWeights = "service" | "other";

export type StandInFault = "429" | "500" | "503" | "hang" | "dims" | "model";

export interface EmbeddingStandIn {
  url: string;
  port: number;
  /** the next requests, one fault each, before it answers normally again (replacing what is still queued) */
  queueFaults(faults: StandInFault[]): Promise<void>;
  stats(): Promise<{ requests: number; texts: number }>;
  /** SIGKILL, as a server that dies mid-request */
  kill(): Promise<void>;
  /** a new process on the same port */
  restart(): Promise<void>;
  close(): Promise<void>;
}

/** Starts the stand-in on `port` (default: a free one) and waits until it listens. */
export async function startEmbeddingStandIn(
  options: { port?: number; servedModel?: string; weights?: StandInWeights } = {},
): Promise<EmbeddingStandIn> {
  const servedModel = options.servedModel ?? "BAAI/bge-small-en-v1.5";
  const weights = options.weights ?? "service";
  let child: ChildProcess | undefined;
  let listening = options.port ?? 0;
  const launch = async (): Promise<void> => {
    const started = spawn(
      process.execPath,
      ["--import", "tsx", fileURLToPath(import.meta.url), String(listening), servedModel, weights],
      { stdio: ["ignore", "pipe", "inherit"], env: process.env },
    );
    child = started;
    const line = await new Promise<string>((resolve, reject) => {
      started.once("exit", (code) => reject(new Error(`the embedding stand-in exited (${code}) before listening`)));
      createInterface({ input: started.stdout! }).once("line", resolve);
    });
    listening = Number(JSON.parse(line).port);
  };
  await launch();
  const base = () => `http://127.0.0.1:${listening}`;
  const stop = async (signal: NodeJS.Signals): Promise<void> => {
    const running = child;
    child = undefined;
    if (!running || running.exitCode !== null || running.signalCode !== null) return;
    await new Promise<void>((resolve) => {
      running.once("exit", () => resolve());
      running.kill(signal);
    });
  };
  return {
    get url() {
      return base();
    },
    get port() {
      return listening;
    },
    async queueFaults(faults) {
      const res = await fetch(`${base()}/__faults`, { method: "POST", body: JSON.stringify(faults) });
      if (!res.ok) throw new Error(`the stand-in refused the faults: ${res.status}`);
    },
    async stats() {
      return (await (await fetch(`${base()}/__stats`)).json()) as { requests: number; texts: number };
    },
    kill: () => stop("SIGKILL"),
    restart: launch,
    close: () => stop("SIGTERM"),
  };
}

async function body(req: IncomingMessage): Promise<unknown> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return JSON.parse(Buffer.concat(chunks).toString("utf8") || "null");
}

/** The child process: the server itself. */
async function serve(port: number, servedModel: string, weights: StandInWeights): Promise<void> {
  const { createOnnxEmbedder } = await import("../../src/embedding/onnxEmbedder.js");
  const { embeddingModelManifestPath } = await import("../../src/embedding/modelManifest.js");
  const { modelManifestPath } = await import("./modelFiles.js");
  const { cacheDirFrom } = await import("../../src/app/config.js");
  const cacheDir = cacheDirFrom(process.env);
  const embedder = await createOnnxEmbedder({
    manifest: weights === "service" ? embeddingModelManifestPath(cacheDir) : modelManifestPath(cacheDir),
    // the throughput benchmark gives the server the worker threads in-process ingestion has; tests need one session
    workers: Number(process.env.EMBEDDING_STANDIN_WORKERS ?? 0),
  });
  const faults: StandInFault[] = [];
  const stats = { requests: 0, texts: 0 };
  const server = createServer((req, res) => {
    void (async () => {
      const send = (status: number, payload: unknown, headers: Record<string, string> = {}) => {
        res.writeHead(status, { "content-type": "application/json", ...headers });
        res.end(JSON.stringify(payload));
      };
      if (req.url === "/__faults" && req.method === "POST") {
        faults.splice(0, faults.length, ...((await body(req)) as StandInFault[]));
        return send(200, { queued: faults.length });
      }
      if (req.url === "/__stats") return send(200, stats);
      const tei = req.url === "/embed";
      if (req.method !== "POST" || (!tei && req.url !== "/v1/embeddings")) return send(404, { error: "not found" });
      const request = (await body(req)) as { input?: string[]; inputs?: string[] };
      const texts = (tei ? request.inputs : request.input) ?? [];
      stats.requests++;
      const fault = faults.shift();
      if (fault === "hang") return; // the connection stays open, unanswered
      if (fault === "429") return send(429, { error: "slow down" }, { "retry-after": "1" });
      if (fault === "500" || fault === "503") return send(Number(fault), { error: `scripted ${fault}` });
      const vectors = (await embedder.embedPassages(texts)).map((v) => [...(fault === "dims" ? v.slice(1) : v)]);
      stats.texts += texts.length;
      if (tei) return send(200, vectors);
      send(200, {
        object: "list",
        model: fault === "model" ? "some-other-model" : servedModel,
        data: vectors.map((embedding, index) => ({ object: "embedding", index, embedding })),
      });
    })().catch((err: unknown) => {
      res.writeHead(500);
      res.end(String(err));
    });
  });
  server.listen(port, "127.0.0.1", () => {
    const address = server.address();
    process.stdout.write(`${JSON.stringify({ port: typeof address === "object" && address ? address.port : port })}\n`);
  });
  process.on("SIGTERM", () => {
    server.closeAllConnections();
    server.close(() => process.exit(0));
  });
}

if (process.argv[1] === fileURLToPath(import.meta.url))
  await serve(Number(process.argv[2]), process.argv[3]!, process.argv[4] as StandInWeights);
