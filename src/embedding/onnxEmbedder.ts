// Embedder adapter: runs the provisioned sentence-embedding model with onnxruntime-node (batched, pooled,
// L2-normalized), in this thread or on worker threads (one ONNX session each), so bulk embedding uses every core.
import { join } from "node:path";
import { startInferenceWorker } from "../infra/inferenceWorker.js";
import { loadModelManifest, type ModelManifest } from "./modelManifest.js";
import type { Embedder } from "./port.js";
import { loadModelTokenizer, type WordpieceTokenizer } from "./wordpieceTokenizer.js";
import { openEncoderSession, type EncoderSessionOptions } from "./encoderSession.mjs";

/** Which graph of the manifest runs: the fp32 export, or its int8 quantization (manifest `onnxInt8`). */
export type EmbeddingPrecision = "fp32" | "int8";

interface OnnxEmbedderOptions {
  /** the manifest itself, or the path of model.json */
  manifest: ModelManifest | string;
  /** default fp32; int8 needs a manifest that names an int8 graph */
  precision?: EmbeddingPrecision;
  /**
   * texts per inference run; default 1. On this 2-core EPYC batching cost more than it saved: a batch's activations
   * outgrow the caches (SciFact chunks per CPU-second, int8: 94 one text a run, 66 at 32; fp32: 42 and 29), and a
   * lone text needs no padding. The int8 graph also quantizes a run's activations with one scale, so only one text a
   * run gives each text the vector it gets alone (queries are embedded alone).
   */
  batchSize?: number;
  /** intra-op threads of each ONNX session (default: 2 in-process, 1 per worker) */
  threads?: number;
  /**
   * 0 (default): one session in this thread; onnxruntime-node's run blocks this thread while it computes, which suits
   * queries (a few milliseconds). N: N worker threads with a session each, started on first use; for bulk embedding
   * (ingestion), so the work spreads over N cores and this thread stays free.
   */
  workers?: number;
  /** ONNX Runtime's graph optimisation level and CPU memory arena (defaults: "all", on) */
  graphOptimizationLevel?: EncoderSessionOptions["graphOptimizationLevel"];
  memArena?: boolean;
}

export interface OnnxEmbedder extends Embedder {
  readonly tokenizer: WordpieceTokenizer;
  /** longest input in word pieces, [CLS] and [SEP] included; longer texts are truncated */
  readonly maxTokens: number;
  readonly precision: EmbeddingPrecision;
}

/** Runs one batch (word-piece ids per text) and returns one vector per text, in batch order. */
type BatchRunner = (batch: readonly number[][]) => Promise<Float32Array[]>;

interface EncodedText {
  index: number;
  ids: number[];
}

/**
 * The embedding path vectors are known by: the model, the arithmetic and the exact graph (the first 12 hex digits of
 * its pinned SHA-256), e.g. `bge-small-en-v1.5@fp32:afc83b99beef`. Vectors of another path are not comparable: an index
 * records the path it was built with (ingest fingerprints and the engines' index records use it), and a process whose
 * queries take another path neither serves nor extends it.
 */
export function embeddingModelName(manifest: ModelManifest, precision: EmbeddingPrecision): string {
  const graph = manifest.sha256[onnxFileOf(manifest, precision)];
  return `${manifest.name}@${precision}:${graph ? graph.slice(0, 12) : "unpinned"}`;
}

function onnxFileOf(manifest: ModelManifest, precision: EmbeddingPrecision): string {
  if (precision === "fp32") return manifest.onnx;
  if (!manifest.onnxInt8)
    throw new Error(
      `the manifest of ${manifest.name} names no int8 graph (onnxInt8): re-run npm run provision, or embed ` +
        "with its fp32 graph",
    );
  return manifest.onnxInt8;
}

export async function createOnnxEmbedder(options: OnnxEmbedderOptions): Promise<OnnxEmbedder> {
  const manifest = typeof options.manifest === "string" ? await loadModelManifest(options.manifest) : options.manifest;
  const precision = options.precision ?? "fp32";
  const batchSize = options.batchSize ?? 1;
  if (!Number.isInteger(batchSize) || batchSize < 1)
    throw new RangeError(`batchSize must be a positive integer, got ${batchSize}`);
  const workerCount = options.workers ?? 0;
  if (!Number.isInteger(workerCount) || workerCount < 0)
    throw new RangeError(`workers must be a non-negative integer, got ${workerCount}`);

  const tokenizer = await loadModelTokenizer(manifest);
  const sessionOptions: EncoderSessionOptions = {
    onnxPath: join(manifest.dir, onnxFileOf(manifest, precision)),
    name: manifest.name,
    dims: manifest.dims,
    pooling: manifest.pooling,
    padId: tokenizer.idOf("[PAD]") ?? 0,
    threads: options.threads ?? (workerCount > 0 ? 1 : 2),
    ...(options.graphOptimizationLevel ? { graphOptimizationLevel: options.graphOptimizationLevel } : {}),
    ...(options.memArena !== undefined ? { memArena: options.memArena } : {}),
  };
  let closed = false;
  /** what runs batches: the in-process session, or one runner per worker thread (started on first use) */
  let lanes: () => Promise<BatchRunner[]>;
  let release: () => Promise<void>;
  if (workerCount === 0) {
    const session = await openEncoderSession(sessionOptions);
    const runner: BatchRunner = (batch) => session.encode(batch);
    lanes = async () => [runner];
    release = () => session.release();
  } else {
    let pool: Promise<EmbeddingWorker[]> | undefined;
    lanes = async () => (await (pool ??= startWorkers(workerCount, sessionOptions))).map((w) => w.run);
    release = async () => {
      for (const w of pool ? await pool.catch(() => []) : []) await w.terminate();
    };
  }

  async function embed(texts: readonly string[], onEmbedded?: (done: number) => void): Promise<Float32Array[]> {
    if (closed) throw new Error("embedder is closed");
    const encoded: EncodedText[] = texts.map((text, index) => ({
      index,
      ids: tokenizer.encode(text, manifest.maxTokens).inputIds,
    }));
    // Longest first: with several lanes the long texts start first, so the lanes finish together; with batches of
    // more than one text, texts of like length share a batch (little compute goes to padding).
    encoded.sort((a, b) => b.ids.length - a.ids.length);
    const batches: EncodedText[][] = [];
    for (let start = 0; start < encoded.length; start += batchSize)
      batches.push(encoded.slice(start, start + batchSize));
    const vectors = new Array<Float32Array>(texts.length);
    let next = 0;
    let done = 0;
    await Promise.all(
      (await lanes()).map(async (run) => {
        while (next < batches.length) {
          const batch = batches[next++]!;
          const batchVectors = await run(batch.map((t) => t.ids));
          batch.forEach((text, i) => {
            vectors[text.index] = batchVectors[i] as Float32Array;
          });
          done += batch.length;
          onEmbedded?.(done);
        }
      }),
    );
    return vectors;
  }

  return {
    modelName: embeddingModelName(manifest, precision),
    dims: manifest.dims,
    tokenizer,
    maxTokens: manifest.maxTokens,
    precision,
    embedPassages: (texts, onEmbedded) => embed(texts, onEmbedded),
    async embedQuery(text) {
      // each query runs alone: batching concurrent queries into one padded run saved no CPU at 16 in flight and
      // tripled their latency (docs/measurements.md, issue 54, 30 Nov)
      const [vector] = await embed([manifest.queryPrefix + text]);
      return vector as Float32Array;
    },
    async close() {
      if (closed) return;
      closed = true;
      await release();
    },
  };
}

interface EmbeddingWorker {
  run: BatchRunner;
  terminate(): Promise<void>;
}

async function startWorkers(count: number, options: EncoderSessionOptions): Promise<EmbeddingWorker[]> {
  const started = await Promise.allSettled(Array.from({ length: count }, () => startWorker(options)));
  const failed = started.find((s): s is PromiseRejectedResult => s.status === "rejected");
  if (failed) {
    for (const s of started) if (s.status === "fulfilled") await s.value.terminate();
    throw failed.reason;
  }
  return started.map((s) => (s as PromiseFulfilledResult<EmbeddingWorker>).value);
}

async function startWorker(options: EncoderSessionOptions): Promise<EmbeddingWorker> {
  const worker = await startInferenceWorker(new URL("./embeddingWorker.mjs", import.meta.url), options, "embedding");
  return {
    async run(batch) {
      const lengths = Int32Array.from(batch, (ids) => ids.length);
      const ids = new Int32Array(lengths.reduce((sum, n) => sum + n, 0));
      let offset = 0;
      for (const text of batch) {
        ids.set(text, offset);
        offset += text.length;
      }
      const reply = await worker.request({ ids, lengths }, [ids.buffer, lengths.buffer]);
      const flat = reply.vectors;
      if (!(flat instanceof Float32Array)) throw new Error("embedding worker failed: no vectors");
      const vectors: Float32Array[] = [];
      for (let row = 0; row * options.dims < flat.length; row++)
        vectors.push(flat.slice(row * options.dims, (row + 1) * options.dims));
      return vectors;
    },
    terminate: () => worker.terminate(),
  };
}
