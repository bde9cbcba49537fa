// The raw deflate (level 1) of a query record's payload, done on a thread of its own: on the HTTP thread it cost a
// search about 0.3 ms, and zlib's asynchronous API spends about as much there building a stream per call. The thread
// is started on first use and never keeps the process alive when idle; should it fail, the payloads are deflated here,
// with the same bytes.
import { Worker } from "node:worker_threads";
import { deflateRawSync } from "node:zlib";

const LEVEL = 1;

let thread: Worker | undefined;
let threadFailed = false;
let nextId = 0;
const pending = new Map<number, { text: string; resolve: (bytes: Buffer) => void }>();

const deflateHere = (text: string): Buffer => deflateRawSync(text, { level: LEVEL });

/** The thread failed: it is not started again, and what it still owed is deflated here. */
function fallBack(): void {
  threadFailed = true;
  thread = undefined;
  for (const { text, resolve } of pending.values()) resolve(deflateHere(text));
  pending.clear();
}

function deflateThread(): Worker | undefined {
  if (threadFailed) return undefined;
  if (thread) return thread;
  const started = new Worker(new URL("./deflateThread.worker.mjs", import.meta.url));
  started.unref();
  started.on("message", ({ id, bytes }: { id: number; bytes: ArrayBuffer }) => {
    const waiting = pending.get(id);
    pending.delete(id);
    waiting?.resolve(Buffer.from(bytes));
    // referenced only while a payload is outstanding
    if (pending.size === 0) started.unref();
  });
  started.on("error", fallBack);
  started.on("exit", fallBack);
  thread = started;
  return started;
}

/** `text` deflated raw at level 1, the bytes deflateRawSync(text, { level: 1 }) gives. */
export function deflateText(text: string): Promise<Buffer> {
  const worker = deflateThread();
  if (!worker) return Promise.resolve(deflateHere(text));
  return new Promise((resolve) => {
    const id = nextId++;
    pending.set(id, { text, resolve });
    worker.ref();
    // sent as UTF-8 bytes, moved and not copied: a string is cloned for the thread at about the cost of deflating it
    const utf8 = Buffer.from(text, "utf8");
    const bytes =
      utf8.byteOffset === 0 && utf8.byteLength === utf8.buffer.byteLength
        ? utf8.buffer
        : utf8.buffer.slice(utf8.byteOffset, utf8.byteOffset + utf8.byteLength);
    worker.postMessage({ id, bytes }, [bytes]);
  });
}
