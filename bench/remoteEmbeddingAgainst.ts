// The remote embedding port against an embedding server that already runs, on any machine: the way to measure the port
// against a server on other hardware (a GPU host) where this repository's services and model files are not.
// Two steps:
//   1. here, with the provisioned model: `npx tsx bench/remoteEmbeddingAgainst.ts --write-sample DIR [--reference 256]`
//      writes every SciFact chunk's embedding input (title + chunk, as ingestion forms them) and the in-process vectors
//      of an evenly spread subset and of the port's probe texts (DIR/sample.json);
//   2. there: `node remoteEmbeddingAgainst.mjs --url URL --sample DIR [--grid 16:2,64:8] [--rounds 3] [--label L]
//      [--limit N]` (the esbuild bundle of this file, which bench/gpuRemoteEmbedding.sh packs; it needs no model and
//      no service): the service's opening probe of the server, then for each batch:concurrency setting of the port a
//      warm-up and timed rounds over every chunk, the worst cosine to the in-process vectors, and the port's own CPU
//      per chunk. Prints one JSON line per setting, then a readable line each.
import { readFileSync, writeFileSync, mkdirSync } from "node:fs";
import { join } from "node:path";
import { availableParallelism, cpus, loadavg } from "node:os";
import { parseArgs } from "node:util";
import { createRemoteEmbedder, PROBE_TEXTS, probeDisagreement } from "../src/embedding/remoteEmbedder.js";
import { cosineOfUnit, embeddingServerUrls } from "../src/embedding/remoteProtocol.js";
import type { PlainCollection } from "../src/domain/collectionDefinitions.js";

interface Sample {
  date: string;
  cpu: string;
  model: string;
  dims: number;
  texts: string[];
  referenceIndexes: number[];
  /** float32, little-endian, base64: the vectors of the texts at referenceIndexes, in their order */
  reference: string;
  /** the same for the service's probe texts (PROBE_TEXTS) */
  probe: string;
}

const { values: args } = parseArgs({
  options: {
    "write-sample": { type: "string" },
    reference: { type: "string", default: "256" },
    url: { type: "string" },
    sample: { type: "string" },
    grid: { type: "string", default: "32:4" },
    rounds: { type: "string", default: "3" },
    label: { type: "string", default: "" },
    model: { type: "string" },
    // times the first N chunks only (a smoke run on a slow server)
    limit: { type: "string" },
  },
});
const round = (n: number, digits = 1): number => Math.round(n * 10 ** digits) / 10 ** digits;
const packed = (vectors: Float32Array[]): string =>
  Buffer.concat(vectors.map((v) => Buffer.from(v.buffer, v.byteOffset, v.byteLength))).toString("base64");
const unpacked = (base64: string, dims: number): Float32Array[] => {
  const bytes = Buffer.from(base64, "base64");
  const flat = new Float32Array(bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength));
  return Array.from({ length: flat.length / dims }, (_, i) => flat.slice(i * dims, (i + 1) * dims));
};

if (args["write-sample"]) await writeSample(args["write-sample"], Number(args.reference));
else await measure();

async function writeSample(dir: string, referenceCount: number): Promise<void> {
  // the model and the service's configuration are needed only here, so the bundle for the other side loads neither
  const { loadCollectionCatalog } = await import("../src/app/collectionsFile.js");
  const { loadConfig } = await import("../src/app/config.js");
  const { embeddingModelManifestPath } = await import("../src/embedding/modelManifest.js");
  const { createOnnxEmbedder } = await import("../src/embedding/onnxEmbedder.js");
  const { prepareCollection } = await import("../src/ingest/pipelineRules.js");
  const { loadRetractedDois } = await import("../src/ingest/retractions.js");
  const config = loadConfig({ ...process.env, ADMIN_TOKEN: process.env.ADMIN_TOKEN ?? "bench-admin-token-0123456789" });
  const catalog = await loadCollectionCatalog(config.collectionsConfig);
  const scifact = catalog.resolveCollection("scifact") as PlainCollection | null;
  if (!scifact) throw new Error("the collections file has no scifact collection");
  const local = await createOnnxEmbedder({
    manifest: embeddingModelManifestPath(config.cacheDir),
    workers: config.embeddingWorkers,
  });
  const prepared = await prepareCollection({
    collection: scifact,
    dataRoot: config.dataRoot,
    tokenizer: local.tokenizer,
    retracted: await loadRetractedDois(config.dataRoot),
  });
  const texts = prepared.embeddingInputs;
  const count = Math.min(referenceCount, texts.length);
  const referenceIndexes = Array.from({ length: count }, (_, i) => Math.floor((i * texts.length) / count));
  const reference = await local.embedPassages(referenceIndexes.map((i) => texts[i]!));
  const probe = await local.embedPassages([...PROBE_TEXTS]);
  const sample: Sample = {
    date: new Date().toISOString(),
    cpu: `${cpus()[0]?.model ?? "unknown"}, ${availableParallelism()} cores`,
    model: local.modelName,
    dims: local.dims,
    texts,
    referenceIndexes,
    reference: packed(reference),
    probe: packed(probe),
  };
  await local.close();
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, "sample.json"), JSON.stringify(sample));
  console.log(`wrote ${texts.length} texts and ${count} reference vectors of ${sample.model} to ${dir}/sample.json`);
}

async function measure(): Promise<void> {
  if (!args.url || !args.sample) throw new Error("give --url (the running server) and --sample (the written sample)");
  const sample = JSON.parse(readFileSync(join(args.sample, "sample.json"), "utf8")) as Sample;
  const reference = unpacked(sample.reference, sample.dims);
  const probeReference = unpacked(sample.probe, sample.dims);
  const settings = args.grid.split(",").map((pair) => {
    const [batch, concurrency] = pair.split(":").map(Number);
    if (!(batch! >= 1) || !(concurrency! >= 1)) throw new Error(`--grid takes batch:concurrency pairs, got ${pair}`);
    return { batch: batch!, concurrency: concurrency! };
  });
  const rounds = Number(args.rounds);
  const texts = args.limit ? sample.texts.slice(0, Number(args.limit)) : sample.texts;
  const lines: string[] = [];
  for (const setting of settings) {
    const remote = createRemoteEmbedder({
      urls: embeddingServerUrls(args.url),
      protocol: "openai",
      ...(args.model ? { model: args.model } : {}),
      path: { modelName: sample.model, dims: sample.dims },
      batchSize: setting.batch,
      concurrency: setting.concurrency,
      timeoutMs: 120_000,
      onRetry: (reason) => console.error(`retry: ${reason}`),
    });
    // the service's own opening check of EMBEDDING_URL: the probe texts' vectors against the in-process ones
    const probe = probeDisagreement((await remote.embedBatch(PROBE_TEXTS)).vectors, probeReference);
    if (probe) throw new Error(`the server fails the service's probe: ${probe}`);
    await remote.embedPassages(texts.slice(0, 1024)); // warm-up: connections, the server's buffers
    const rates: number[] = [];
    let clientCpu = 0;
    for (let r = 0; r < rounds; r++) {
      const cpuBefore = process.cpuUsage();
      const start = performance.now();
      await remote.embedPassages(texts);
      rates.push(texts.length / ((performance.now() - start) / 1000));
      const used = process.cpuUsage(cpuBefore);
      clientCpu += (used.user + used.system) / 1e6;
    }
    const served = await remote.embedPassages(sample.referenceIndexes.map((i) => sample.texts[i]!));
    const worstCosine = Math.min(...served.map((v, i) => cosineOfUnit(v, reference[i]!)));
    await remote.close();
    const sorted = [...rates].sort((a, b) => a - b);
    const result = {
      date: new Date().toISOString(),
      label: args.label,
      cpu: `${cpus()[0]?.model ?? "unknown"}, ${availableParallelism()} cores`,
      loadAverage: round(loadavg()[0] ?? 0, 2),
      model: sample.model,
      referenceFrom: `${sample.cpu}, ${sample.date}`,
      chunks: texts.length,
      rounds,
      batch: setting.batch,
      concurrency: setting.concurrency,
      chunksPerSecond: { median: round(sorted[Math.floor(rounds / 2)]!, 1), each: rates.map((r) => round(r, 1)) },
      portCpuMsPerChunk: round((clientCpu * 1000) / (texts.length * rounds), 3),
      worstCosine: round(worstCosine, 6),
      probe: "passed",
    };
    console.log(JSON.stringify(result));
    lines.push(
      `${args.label} batch ${setting.batch} x ${setting.concurrency} in flight: ${result.chunksPerSecond.median} ` +
        `chunks/s (${result.chunksPerSecond.each.join(", ")}), port CPU ${result.portCpuMsPerChunk} ms a chunk, ` +
        `worst cosine ${result.worstCosine} over ${served.length}`,
    );
  }
  for (const line of lines) console.log(line);
}
