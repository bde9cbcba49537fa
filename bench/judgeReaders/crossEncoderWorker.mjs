// The cross-encoder's worker thread: its own ONNX session, so reading (query, passage) pairs never blocks the thread
// that serves HTTP and runs activities (onnxruntime-node's run blocks the thread that calls it). Plain JavaScript: a
// worker thread must load without the TypeScript loader. workerData: { onnxPath, name, threads }. Messages from
// crossEncoder.ts:
//   { id, ids: Int32Array, typeIds: Int32Array, lengths: Int32Array }  the pairs' word-piece ids, concatenated
// each answered with { id, logits: Float32Array } (one per pair, transferred) or { id, error }.
// The first message is { ready: true } once the model is loaded, or { error } if it cannot be.
import { parentPort, workerData } from "node:worker_threads";
import * as ort from "onnxruntime-node";

let session;
try {
  // Not encoderSession.mjs's options: turning SkipLayerNormFusion off (faster for the embedding model's int8 graph)
  // moves this graph's logits by up to 0.1, and the judge is calibrated on the fused graph's.
  session = await ort.InferenceSession.create(workerData.onnxPath, {
    intraOpNumThreads: workerData.threads,
    interOpNumThreads: 1,
    executionMode: "sequential",
    graphOptimizationLevel: "all",
  });
  for (const input of ["input_ids", "attention_mask", "token_type_ids"]) {
    if (!session.inputNames.includes(input))
      throw new Error(`model ${workerData.name} has no ${input} input (inputs: ${session.inputNames.join(", ")})`);
  }
  parentPort.postMessage({ ready: true });
} catch (err) {
  parentPort.postMessage({ error: err?.message ?? String(err) });
}

/**
 * One pair a run: the int8 graph quantizes a run's activations with one scale, so a pair read alone always gets the
 * same score, whatever else the call reads; and a lone pair needs no padding.
 */
async function logitOf(ids, typeIds) {
  const shape = [1, ids.length];
  const feeds = {
    input_ids: new ort.Tensor("int64", BigInt64Array.from(ids, BigInt), shape),
    attention_mask: new ort.Tensor("int64", new BigInt64Array(ids.length).fill(1n), shape),
    token_type_ids: new ort.Tensor("int64", BigInt64Array.from(typeIds, BigInt), shape),
  };
  const results = await session.run(feeds);
  try {
    const output = results[session.outputNames[0]];
    if (!output) throw new Error(`model ${workerData.name} returned no output`);
    return output.data[0];
  } finally {
    for (const tensor of Object.values(results)) tensor.dispose();
  }
}

parentPort.on("message", async ({ id, ids, typeIds, lengths }) => {
  try {
    const logits = new Float32Array(lengths.length);
    let offset = 0;
    for (let pair = 0; pair < lengths.length; pair++) {
      const length = lengths[pair];
      logits[pair] = await logitOf(ids.subarray(offset, offset + length), typeIds.subarray(offset, offset + length));
      offset += length;
    }
    parentPort.postMessage({ id, logits }, [logits.buffer]);
  } catch (err) {
    parentPort.postMessage({ id, error: err?.message ?? String(err) });
  }
});
