// A model on a worker thread, called like a function: the embedding workers share it (and the judge benchmark's
// cross-encoder, bench/judgeReaders/). The worker's script posts { ready: true } once its model is loaded (or { error }
// if it cannot be), then answers each { id, ...request } with { id, ...reply } or { id, error }. onnxruntime-node's run
// blocks the thread that calls it, so models run here to keep the thread that serves HTTP and runs activities free.
import { Worker, type Transferable } from "node:worker_threads";

interface WorkerReply {
  id?: number;
  ready?: true;
  error?: string;
  [field: string]: unknown;
}

interface InferenceWorker {
  /** sends one request and resolves with the worker's reply to it */
  request(message: Record<string, unknown>, transfer: readonly Transferable[]): Promise<WorkerReply>;
  /** ends the thread once the requests in flight have their replies */
  terminate(): Promise<void>;
}

/**
 * Starts the worker and resolves once its model is loaded. `label` names it in errors ("embedding worker could not
 * load the model: ..."). An idle worker does not keep the process alive.
 */
export function startInferenceWorker(script: URL, workerData: unknown, label: string): Promise<InferenceWorker> {
  // onnxruntime's telemetry reads this from the process's environment, which only the main thread can set: see
  // src/embedding/encoderSession.mjs
  process.env.ORT_DISABLE_TELEMETRY ??= "1";
  const worker = new Worker(script, { workerData });
  worker.unref();
  const pending = new Map<number, { resolve: (reply: WorkerReply) => void; reject: (error: Error) => void }>();
  const inFlight = new Set<Promise<unknown>>();
  let nextId = 0;
  let failure: Error | undefined;
  const failAll = (err: Error) => {
    failure ??= err;
    for (const p of pending.values()) p.reject(err);
    pending.clear();
  };
  return new Promise((resolve, reject) => {
    worker.once("error", (err) => reject(err));
    worker.on("error", (err) => failAll(err));
    worker.on("exit", (code) => failAll(new Error(`${label} worker exited (code ${code})`)));
    worker.on("message", (message: WorkerReply) => {
      if (message.ready) {
        resolve({
          request(body, transfer) {
            if (failure) return Promise.reject(failure);
            const id = nextId++;
            worker.ref();
            const reply = new Promise<WorkerReply>((resolveReply, rejectReply) => {
              pending.set(id, { resolve: resolveReply, reject: rejectReply });
              worker.postMessage({ ...body, id }, [...transfer]);
            }).finally(() => {
              if (pending.size === 0) worker.unref();
            });
            inFlight.add(reply);
            void reply.catch(() => undefined).finally(() => inFlight.delete(reply));
            return reply;
          },
          async terminate() {
            // terminating a thread inside a native inference run aborts the process: let the runs in flight finish
            await Promise.allSettled(inFlight);
            await worker.terminate();
          },
        });
        return;
      }
      if (message.id === undefined) {
        reject(new Error(`${label} worker could not load the model: ${message.error}`));
        void worker.terminate();
        return;
      }
      const waiter = pending.get(message.id);
      if (!waiter) return;
      pending.delete(message.id);
      if (message.error !== undefined) waiter.reject(new Error(`${label} worker failed: ${message.error}`));
      else waiter.resolve(message);
    });
  });
}
