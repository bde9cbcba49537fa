// Embedder adapter: runs the provisioned sentence-embedding model with onnxruntime-node (batched, pooled, L2-normalized).
import { join } from 'node:path';
import * as ort from 'onnxruntime-node';
import { loadModelManifest, type ModelManifest } from './modelManifest.js';
import type { Embedder } from './port.js';
import { loadModelTokenizer, type WordpieceTokenizer } from './wordpieceTokenizer.js';

export interface OnnxEmbedderOptions {
  /** the manifest itself, or the path of model.json */
  manifest: ModelManifest | string;
  /** texts per inference run; 32 suits a 2-core CPU */
  batchSize?: number;
  /** intra-op threads of the ONNX session */
  threads?: number;
}

export interface OnnxEmbedder extends Embedder {
  readonly tokenizer: WordpieceTokenizer;
  /** longest input in word pieces, [CLS] and [SEP] included; longer texts are truncated */
  readonly maxTokens: number;
}

interface EncodedText {
  index: number;
  ids: number[];
}

export async function createOnnxEmbedder(options: OnnxEmbedderOptions): Promise<OnnxEmbedder> {
  const manifest = typeof options.manifest === 'string' ? await loadModelManifest(options.manifest) : options.manifest;
  const batchSize = options.batchSize ?? 32;
  if (!Number.isInteger(batchSize) || batchSize < 1) throw new RangeError(`batchSize must be a positive integer, got ${batchSize}`);

  const tokenizer = await loadModelTokenizer(manifest);
  const session = await ort.InferenceSession.create(join(manifest.dir, manifest.onnx), {
    intraOpNumThreads: options.threads ?? 2,
    interOpNumThreads: 1,
    executionMode: 'sequential',
    graphOptimizationLevel: 'all',
  });
  const needsTokenTypes = session.inputNames.includes('token_type_ids');
  for (const input of ['input_ids', 'attention_mask']) {
    if (!session.inputNames.includes(input)) throw new Error(`model ${manifest.name} has no ${input} input (inputs: ${session.inputNames.join(', ')})`);
  }
  const outputName = session.outputNames.includes('last_hidden_state') ? 'last_hidden_state' : session.outputNames[0];
  if (outputName === undefined) throw new Error(`model ${manifest.name} has no outputs`);
  const padId = tokenizer.idOf('[PAD]') ?? 0;
  let closed = false;

  /** Runs one padded batch; returns one normalized vector per text, in batch order. */
  async function runBatch(batch: readonly EncodedText[]): Promise<Float32Array[]> {
    const seqLen = Math.max(...batch.map((t) => t.ids.length));
    const size = batch.length * seqLen;
    const inputIds = new BigInt64Array(size).fill(BigInt(padId));
    const mask = new BigInt64Array(size);
    batch.forEach((text, row) => {
      text.ids.forEach((id, col) => {
        inputIds[row * seqLen + col] = BigInt(id);
        mask[row * seqLen + col] = 1n;
      });
    });
    const dims = [batch.length, seqLen];
    const feeds: Record<string, ort.Tensor> = {
      input_ids: new ort.Tensor('int64', inputIds, dims),
      attention_mask: new ort.Tensor('int64', mask, dims),
    };
    if (needsTokenTypes) feeds.token_type_ids = new ort.Tensor('int64', new BigInt64Array(size), dims);
    const results = await session.run(feeds, [outputName]);
    const output = results[outputName];
    if (!output) throw new Error(`model ${manifest.name} returned no ${outputName}`);
    try {
      return pool(output, batch, seqLen);
    } finally {
      for (const tensor of Object.values(results)) tensor.dispose();
    }
  }

  function pool(output: ort.Tensor, batch: readonly EncodedText[], seqLen: number): Float32Array[] {
    const data = output.data as Float32Array;
    const d = manifest.dims;
    const pooledByModel = output.dims.length === 2;
    const last = output.dims[output.dims.length - 1];
    if (last !== d) throw new Error(`model ${manifest.name} returned ${last} dims, manifest says ${d}`);
    return batch.map((text, row) => {
      const vector = new Float32Array(d);
      if (pooledByModel) {
        vector.set(data.subarray(row * d, row * d + d));
      } else if (manifest.pooling === 'cls') {
        const base = row * seqLen * d;
        vector.set(data.subarray(base, base + d));
      } else {
        // Mean over the real tokens only ([CLS] and [SEP] included, padding excluded), as sentence-transformers does.
        const n = text.ids.length;
        for (let t = 0; t < n; t++) {
          const base = (row * seqLen + t) * d;
          for (let k = 0; k < d; k++) vector[k] += data[base + k];
        }
        for (let k = 0; k < d; k++) vector[k] /= n;
      }
      return normalize(vector);
    });
  }

  async function embed(texts: readonly string[]): Promise<Float32Array[]> {
    if (closed) throw new Error('embedder is closed');
    const encoded: EncodedText[] = texts.map((text, index) => ({ index, ids: tokenizer.encode(text, manifest.maxTokens).inputIds }));
    // Sorting by length keeps texts of similar length in one batch, so little compute goes to padding.
    const byLength = [...encoded].sort((a, b) => a.ids.length - b.ids.length);
    const vectors = new Array<Float32Array>(texts.length);
    for (let start = 0; start < byLength.length; start += batchSize) {
      const batch = byLength.slice(start, start + batchSize);
      const batchVectors = await runBatch(batch);
      batch.forEach((text, i) => {
        vectors[text.index] = batchVectors[i] as Float32Array;
      });
    }
    return vectors;
  }

  return {
    modelName: manifest.name,
    dims: manifest.dims,
    tokenizer,
    maxTokens: manifest.maxTokens,
    embedPassages: (texts) => embed(texts),
    async embedQuery(text) {
      const [vector] = await embed([manifest.queryPrefix + text]);
      return vector as Float32Array;
    },
    async close() {
      if (closed) return;
      closed = true;
      await session.release();
    },
  };
}

function normalize(vector: Float32Array): Float32Array {
  let sum = 0;
  for (const v of vector) sum += v * v;
  const norm = Math.max(Math.sqrt(sum), 1e-12);
  for (let k = 0; k < vector.length; k++) vector[k] /= norm;
  return vector;
}
