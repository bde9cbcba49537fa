// Deflates query records' payloads beside the HTTP thread (src/usecases/search/payloadDeflate.ts). Plain JavaScript: a
// worker thread must load without the TypeScript loader (vitest, tsx, node).
// Messages { id, text }, each answered with { id, bytes } (the raw deflate at level 1, its own ArrayBuffer,
// transferred).
import { parentPort } from "node:worker_threads";
import { deflateRawSync } from "node:zlib";

parentPort.on("message", ({ id, text }) => {
  const deflated = deflateRawSync(text, { level: 1 });
  // a copy of its own: the result may share a larger pooled buffer, which must not be transferred
  const bytes = deflated.buffer.slice(deflated.byteOffset, deflated.byteOffset + deflated.byteLength);
  parentPort.postMessage({ id, bytes }, [bytes]);
});
