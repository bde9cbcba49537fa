// The relevance model: a cross-encoder that reads a query and a passage together and scores how well the passage
// answers it (a logit; higher is more relevant). It is what a bi-encoder cannot be: the query's words attend to the
// passage's. One of the readers bench/calibrateJudge.ts tries as the judge's second stage (the service's judge has one
// stage and reads with no model). `bash scripts/provision-bge-small.sh --reranker` provisions
// cross-encoder/ms-marco-MiniLM-L-12-v2 (int8 ONNX) and writes reranker.json; the model runs on its own worker thread
// (crossEncoderWorker.mjs).
import { join } from "node:path";
import type { z } from "zod";
import { modelManifestSchema, readModelManifest } from "../../src/embedding/modelManifest.js";
import { loadWordpieceTokenizer, type WordpieceTokenizer } from "../../src/embedding/wordpieceTokenizer.js";
import { startInferenceWorker } from "../../src/infra/inferenceWorker.js";

/** Scores (query, passage) pairs; the same pair always gets the same score. */
export interface RelevanceModel {
  readonly modelName: string;
  /** one logit per passage, in order */
  score(query: string, passages: readonly string[]): Promise<number[]>;
  close(): Promise<void>;
}

/**
 * reranker.json: the embedding model's manifest format, without what only a bi-encoder has (dims, pooling, a query
 * prefix)
 */
const manifestSchema = modelManifestSchema.pick({
  name: true,
  dir: true,
  onnx: true,
  vocab: true,
  lowercase: true,
  maxTokens: true,
  license: true,
  source: true,
  sha256: true,
});

export type CrossEncoderManifest = z.infer<typeof manifestSchema>;

export class RelevanceModelNotProvisionedError extends Error {
  constructor(detail: string) {
    super(`relevance model not provisioned: run bash scripts/provision-bge-small.sh --reranker (${detail})`);
    this.name = "RelevanceModelNotProvisionedError";
  }
}

/** Where provisioning writes reranker.json in the cache directory (config.cacheDir). */
export const crossEncoderManifestPath = (cacheDir: string): string => join(cacheDir, "reranker.json");

export function loadCrossEncoderManifest(path: string): Promise<CrossEncoderManifest> {
  return readModelManifest(
    path,
    manifestSchema,
    "relevance model",
    (m) => [m.onnx, m.vocab],
    (detail) => new RelevanceModelNotProvisionedError(detail),
  );
}

/**
 * Pairs are read up to this many word pieces, [CLS] and both [SEP] included: an abstract's chunk with its title fits,
 * and a pair's cost grows faster than its length.
 */
export const PAIR_TOKENS = 320;
/** the query's share of a pair at most; the passage gets the rest */
export const QUERY_TOKENS = 64;

export interface EncodedPair {
  ids: number[];
  typeIds: number[];
}

/**
 * [CLS] query [SEP] passage [SEP] for each passage, the query cut to `queryTokens` and each passage to what is left of
 * `maxTokens`. The query is tokenized once for all of them.
 */
export function encodePairs(
  tokenizer: WordpieceTokenizer,
  query: string,
  passages: readonly string[],
  maxTokens = PAIR_TOKENS,
  queryTokens = QUERY_TOKENS,
): EncodedPair[] {
  const cls = tokenizer.idOf("[CLS]");
  const sep = tokenizer.idOf("[SEP]");
  if (cls === undefined || sep === undefined) throw new Error("the vocabulary has no [CLS] or [SEP]");
  const q = tokenizer.pieceIds(query).slice(0, queryTokens);
  return passages.map((passage) => {
    const p = tokenizer.pieceIds(passage).slice(0, Math.max(0, maxTokens - q.length - 3));
    const ids = [cls, ...q, sep, ...p, sep];
    return { ids, typeIds: ids.map((_, i) => (i < q.length + 2 ? 0 : 1)) };
  });
}

export interface CrossEncoderOptions {
  /** the manifest itself, or the path of reranker.json */
  manifest: CrossEncoderManifest | string;
  /** intra-op threads of the session (default 2: both cores of the machine this was measured on) */
  threads?: number;
}

export async function createCrossEncoder(options: CrossEncoderOptions): Promise<RelevanceModel> {
  const manifest =
    typeof options.manifest === "string" ? await loadCrossEncoderManifest(options.manifest) : options.manifest;
  const tokenizer = await loadWordpieceTokenizer(join(manifest.dir, manifest.vocab), {
    modelName: manifest.name,
    lowercase: manifest.lowercase,
  });
  const maxTokens = Math.min(PAIR_TOKENS, manifest.maxTokens);
  let worker: Promise<PairWorker> | undefined;
  let closed = false;
  return {
    modelName: manifest.name,
    async score(query, passages) {
      if (closed) throw new Error("relevance model is closed");
      if (passages.length === 0) return [];
      const pairs = encodePairs(tokenizer, query, passages, maxTokens);
      worker ??= startPairWorker({
        onnxPath: join(manifest.dir, manifest.onnx),
        name: manifest.name,
        threads: options.threads ?? 2,
      });
      // a worker that failed to start is forgotten, so the next call tries again
      const running = await worker.catch((err: unknown) => {
        worker = undefined;
        throw err;
      });
      return running.run(pairs);
    },
    async close() {
      if (closed) return;
      closed = true;
      if (worker) await (await worker.catch(() => null))?.terminate();
    },
  };
}

interface PairWorker {
  run(pairs: readonly EncodedPair[]): Promise<number[]>;
  terminate(): Promise<void>;
}

async function startPairWorker(workerData: { onnxPath: string; name: string; threads: number }): Promise<PairWorker> {
  const worker = await startInferenceWorker(
    new URL("./crossEncoderWorker.mjs", import.meta.url),
    workerData,
    "relevance model",
  );
  return {
    async run(pairs) {
      const lengths = Int32Array.from(pairs, (p) => p.ids.length);
      const ids = new Int32Array(pairs.flatMap((p) => p.ids));
      const typeIds = new Int32Array(pairs.flatMap((p) => p.typeIds));
      const reply = await worker.request({ ids, typeIds, lengths }, [ids.buffer, typeIds.buffer, lengths.buffer]);
      if (!(reply.logits instanceof Float32Array)) throw new Error("relevance model worker failed: no logits");
      return [...reply.logits];
    },
    terminate: () => worker.terminate(),
  };
}
