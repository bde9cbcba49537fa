// The embedded PostgreSQL (PGlite, WebAssembly) in its own thread, so its CPU work runs beside the HTTP thread
// instead of on it. Plain JavaScript: a worker thread must load without the TypeScript loader (vitest, tsx, node).
// Messages from src/eventstore/db.ts, each answered with { id, rows } or { id, error }:
//   { id, op: 'query', sql, params }   { id, op: 'exec', sql }   { id, op: 'close' }
//   { op: 'begin', tx } (no answer: it saves a round trip; a failed BEGIN fails the transaction's next message)
//   then { id, op: 'query', tx, sql, params }... and { id, op: 'commit' | 'rollback', tx }
// A transaction holds PGlite's transaction lock until its commit or rollback: other queries wait, as in-process.
import { parentPort, workerData } from "node:worker_threads";
import { PGlite } from "@electric-sql/pglite";

const lite = workerData.dataDir ? new PGlite(workerData.dataDir) : new PGlite();

/** open transactions: tx id -> the queue of its messages and the waiter for the next one */
const transactions = new Map();

const reply = (id, body) => parentPort.postMessage({ id, ...body });
const failure = (err) => ({
  error: { message: err?.message ?? String(err), code: typeof err?.code === "string" ? err.code : undefined },
});

function nextMessage(state) {
  if (state.queue.length > 0) return Promise.resolve(state.queue.shift());
  return new Promise((resolve) => (state.wake = resolve));
}

function deliver(message) {
  const state = transactions.get(message.tx);
  if (!state) return reply(message.id, failure(new Error(`transaction ${message.tx} is not open`)));
  if (state.failed) return endFailed(state, message);
  if (state.wake) {
    const wake = state.wake;
    state.wake = undefined;
    wake(message);
  } else state.queue.push(message);
}

/** A message for a transaction that never began: its rollback succeeds (nothing to undo) and ends it, the rest fail. */
function endFailed(state, message) {
  reply(message.id, message.op === "rollback" ? { rows: [] } : failure(state.failed));
  if (message.op === "rollback" || message.op === "commit") transactions.delete(message.tx);
}

class Rollback extends Error {}

function begin({ tx }) {
  const state = { queue: [], wake: undefined, failed: undefined };
  transactions.set(tx, state);
  let ended;
  let started = false;
  lite
    .transaction(async (t) => {
      started = true;
      for (;;) {
        const message = await nextMessage(state);
        if (message.op === "commit" || message.op === "rollback") {
          ended = message;
          if (message.op === "rollback") throw new Rollback();
          return;
        }
        try {
          reply(message.id, { rows: (await t.query(message.sql, message.params)).rows });
        } catch (err) {
          reply(message.id, failure(err));
        }
      }
    })
    .then(
      () => {
        reply(ended.id, { rows: [] });
        transactions.delete(tx);
      },
      (err) => {
        if (ended) {
          reply(ended.id, err instanceof Rollback ? { rows: [] } : failure(err));
          transactions.delete(tx);
          return;
        }
        // BEGIN itself failed: what is queued and what still comes fails, until the rollback that ends it
        state.failed = started ? err : new Error(`the transaction did not begin: ${err?.message ?? err}`);
        for (const message of state.queue.splice(0)) endFailed(state, message);
      },
    );
}

parentPort.on("message", (message) => {
  if (message.tx !== undefined && message.op !== "begin") return deliver(message);
  switch (message.op) {
    case "begin":
      return begin(message);
    case "query":
      return lite.query(message.sql, message.params).then(
        (res) => reply(message.id, { rows: res.rows }),
        (err) => reply(message.id, failure(err)),
      );
    case "exec":
      return lite.exec(message.sql).then(
        () => reply(message.id, { rows: [] }),
        (err) => reply(message.id, failure(err)),
      );
    case "close":
      return lite.close().then(
        () => reply(message.id, { rows: [] }),
        (err) => reply(message.id, failure(err)),
      );
    default:
      return reply(message.id, failure(new Error(`unknown operation ${message.op}`)));
  }
});

lite.waitReady.then(
  () => parentPort.postMessage({ ready: true }),
  (err) => parentPort.postMessage({ ready: false, ...failure(err) }),
);
