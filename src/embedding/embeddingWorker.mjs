// One embedding worker thread: its own ONNX session, so passages embed on several cores while the HTTP thread stays
// free (onnxruntime-node's run blocks the thread that calls it). Plain JavaScript: a worker thread must load without
// the TypeScript loader. workerData: the options of openEncoderSession. Messages from onnxEmbedder.ts:
//   { id, ids: Int32Array, lengths: Int32Array }  the batch's texts as word-piece ids, concatenated, and each length
// each answered with { id, vectors: Float32Array } (lengths.length x dims, transferred) or { id, error }.
// The first message is { ready: true } once the model is loaded, or { error } if it cannot be.
import { parentPort, workerData } from "node:worker_threads";
import { openEncoderSession } from "./encoderSession.mjs";

let session;
try {
  session = await openEncoderSession(workerData);
  parentPort.postMessage({ ready: true });
} catch (err) {
  parentPort.postMessage({ error: err?.message ?? String(err) });
}

parentPort.on("message", async ({ id, ids, lengths }) => {
  try {
    const batch = [];
    let offset = 0;
    for (const length of lengths) {
      batch.push(ids.subarray(offset, offset + length));
      offset += length;
    }
    const vectors = await session.encode(batch);
    const flat = new Float32Array(vectors.length * workerData.dims);
    vectors.forEach((vector, row) => flat.set(vector, row * workerData.dims));
    parentPort.postMessage({ id, vectors: flat }, [flat.buffer]);
  } catch (err) {
    parentPort.postMessage({ id, error: err?.message ?? String(err) });
  }
});
