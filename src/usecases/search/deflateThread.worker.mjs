// Deflates query records' payloads beside the HTTP thread (src/usecases/search/payloadDeflate.ts). Plain JavaScript: a
// worker thread must load without the TypeScript loader (vitest, tsx, node).
// Messages { id, bytes } (a payload's UTF-8, transferred), each answered with { id, bytes } (its raw deflate at
// level 1, an ArrayBuffer of its own, transferred).
import { parentPort } from "node:worker_threads";
import { deflateRawSync } from "node:zlib";

parentPort.on("message", ({ id, bytes: utf8 }) => {
  const deflated = deflateRawSync(new Uint8Array(utf8), { level: 1 });
  // a copy of its own: the result may share a larger pooled buffer, which must not be transferred
  const bytes = deflated.buffer.slice(deflated.byteOffset, deflated.byteOffset + deflated.byteLength);
  parentPort.postMessage({ id, bytes }, [bytes]);
});
