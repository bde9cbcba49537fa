// The model's forward pass over word-piece ids: pad a batch, run the ONNX session, pool, L2-normalize.
// Plain JavaScript so an embedding worker thread loads it without the TypeScript loader (vitest, tsx, node), like
// src/eventstore/pgliteThread.worker.mjs; onnxEmbedder.ts runs the same code in-process. Types: encoderSession.d.mts.
import * as ort from "onnxruntime-node";

// onnxruntime-node 1.30 starts Microsoft's telemetry with each process's first session: it writes an empty
// mat-debug-<pid>.log in the temporary folder (TMPDIR, else /tmp) and a database under ~/.cache/Microsoft, and nothing
// removes them. The variable is read from the process's environment when the first session opens; a worker thread's
// process.env is its own copy, so the main thread sets it, here and in startInferenceWorker
// (src/infra/inferenceWorker.ts). An operator's own value is kept.
process.env.ORT_DISABLE_TELEMETRY ??= "1";

/**
 * Session options for this encoder on CPU. SkipLayerNormFusion is turned off: on the int8 graph it replaces
 * Add + LayerNormalization with a SkipLayerNormalization kernel that was slower than the two it replaces (measured
 * on this 2-core EPYC with onnxruntime-node 1.30: 55 -> 68 SciFact chunks per CPU-second); the fp32 graph is not
 * fused by it either way. The intra-op threads do not spin: by default a pool thread busy-waits for the next piece of
 * work instead of sleeping, which on two cores shared with the service, PostgreSQL and OpenSearch took the other
 * core from them for nothing (a float32 query, two threads: 41 to 48 CPU ms with spinning, 24 without, the same
 * vectors bit for bit; docs/measurements.md, "Speed, 29 Nov").
 */
function sessionOptions(threads, tuning = {}) {
  return {
    intraOpNumThreads: threads,
    interOpNumThreads: 1,
    executionMode: "sequential",
    graphOptimizationLevel: tuning.graphOptimizationLevel ?? "all",
    enableCpuMemArena: tuning.memArena ?? true,
    extra: {
      optimization: { disable_specified_optimizers: "SkipLayerNormFusion" },
      session: { intra_op: { allow_spinning: "0" } },
    },
  };
}

/**
 * Opens the model at `onnxPath`. `encode(batch)` takes one array of word-piece ids per text ([CLS] ... [SEP], already
 * truncated) and returns one unit vector per text, in batch order.
 * @param {import('./encoderSession.d.mts').EncoderSessionOptions} options
 */
export async function openEncoderSession(options) {
  const { name, dims, pooling, padId } = options;
  const session = await ort.InferenceSession.create(options.onnxPath, sessionOptions(options.threads, options));
  const needsTokenTypes = session.inputNames.includes("token_type_ids");
  for (const input of ["input_ids", "attention_mask"]) {
    if (!session.inputNames.includes(input))
      throw new Error(`model ${name} has no ${input} input (inputs: ${session.inputNames.join(", ")})`);
  }
  const outputName = session.outputNames.includes("last_hidden_state") ? "last_hidden_state" : session.outputNames[0];
  if (outputName === undefined) throw new Error(`model ${name} has no outputs`);
  const pad = BigInt(padId);

  function pool(output, batch, seqLen) {
    const data = output.data;
    const pooledByModel = output.dims.length === 2;
    const last = output.dims[output.dims.length - 1];
    if (last !== dims) throw new Error(`model ${name} returned ${last} dims, manifest says ${dims}`);
    return batch.map((ids, row) => {
      const vector = new Float32Array(dims);
      if (pooledByModel) {
        vector.set(data.subarray(row * dims, row * dims + dims));
      } else if (pooling === "cls") {
        const base = row * seqLen * dims;
        vector.set(data.subarray(base, base + dims));
      } else {
        // Mean over the real tokens only ([CLS] and [SEP] included, padding excluded), as sentence-transformers does.
        const n = ids.length;
        for (let t = 0; t < n; t++) {
          const base = (row * seqLen + t) * dims;
          for (let k = 0; k < dims; k++) vector[k] += data[base + k];
        }
        for (let k = 0; k < dims; k++) vector[k] /= n;
      }
      return normalize(vector);
    });
  }

  return {
    async encode(batch) {
      if (batch.length === 0) return [];
      let seqLen = 0;
      for (const ids of batch) seqLen = Math.max(seqLen, ids.length);
      const size = batch.length * seqLen;
      const inputIds = new BigInt64Array(size).fill(pad);
      const mask = new BigInt64Array(size);
      batch.forEach((ids, row) => {
        for (let col = 0; col < ids.length; col++) {
          inputIds[row * seqLen + col] = BigInt(ids[col]);
          mask[row * seqLen + col] = 1n;
        }
      });
      const shape = [batch.length, seqLen];
      const feeds = {
        input_ids: new ort.Tensor("int64", inputIds, shape),
        attention_mask: new ort.Tensor("int64", mask, shape),
      };
      if (needsTokenTypes) feeds.token_type_ids = new ort.Tensor("int64", new BigInt64Array(size), shape);
      const results = await session.run(feeds, [outputName]);
      const output = results[outputName];
      if (!output) throw new Error(`model ${name} returned no ${outputName}`);
      try {
        return pool(output, batch, seqLen);
      } finally {
        for (const tensor of Object.values(results)) tensor.dispose();
      }
    },
    release: () => session.release(),
  };
}

function normalize(vector) {
  let sum = 0;
  for (const v of vector) sum += v * v;
  const norm = Math.max(Math.sqrt(sum), 1e-12);
  for (let k = 0; k < vector.length; k++) vector[k] /= norm;
  return vector;
}
