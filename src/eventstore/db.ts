// One SQL interface over the two PostgreSQL adapters: PGlite (embedded default) and a pg pool (server).
import { Rejection } from "../domain/rejection.js";
import { createHash } from "node:crypto";
import pg from "pg";
import { Worker } from "node:worker_threads";

interface Row {
  [column: string]: unknown;
}

export interface Queryable {
  /**
   * `prepared`: a hot statement whose text repeats; the server keeps its plan per connection (PostgreSQL server only)
   */
  query<R extends object = Row>(sql: string, params?: unknown[], prepared?: boolean): Promise<R[]>;
}

/** How many statement texts statementName remembers; past it, it starts again (the charges' few texts come back). */
const STATEMENT_NAMES_KEPT = 512;
const statementNames = new Map<string, string>();

/**
 * A prepared statement's name: derived from its text, so equal texts share one plan per connection. Remembered by
 * text: a charge's statements (a few KB each) came back with every batch, and hashing them again cost the main thread
 * a tenth of the billing append's time.
 */
export function statementName(sql: string): string {
  const known = statementNames.get(sql);
  if (known !== undefined) return known;
  if (statementNames.size >= STATEMENT_NAMES_KEPT) statementNames.clear();
  const name = `ls_${createHash("sha1").update(sql).digest("hex").slice(0, 24)}`;
  statementNames.set(sql, name);
  return name;
}

/**
 * The projectors a store runs on what it appends (inline) and on its whole log (replay), and the tables they write,
 * handed in when it is opened. Their shape is the projection registry's: projections/project.ts declares
 * FeatureProjection into this interface, so the store carries them without importing the layer above it.
 */
// eslint-disable-next-line @typescript-eslint/no-empty-object-type
export interface StoreProjectors {}

export interface Db extends Queryable {
  readonly kind: "pglite" | "postgres";
  /** what this store projects its events with: the same list inline and in replay */
  readonly projectors: StoreProjectors;
  /**
   * For writes whose loss in a crash costs no money (rate-limit counters): committed without waiting for the WAL
   * flush (synchronous_commit off), which saves a disk flush per request. Money never goes through here.
   */
  readonly relaxed: Queryable;
  /**
   * runs fn in one transaction; rolls back on throw. `advisoryLock`: take this transaction-level lock first (sent with
   * BEGIN). `oneSnapshot`: every statement reads the same snapshot (REPEATABLE READ), so reads of the log and of the
   * projections are one cut while appends go on; PGlite's transactions hold its one connection, so theirs always are.
   */
  transaction<T>(
    fn: (tx: Queryable) => Promise<T>,
    options?: { advisoryLock?: number; oneSnapshot?: boolean },
  ): Promise<T>;
  /** runs a multi-statement script (DDL) */
  exec(sql: string): Promise<void>;
  close(): Promise<void>;
}

/** Postgres error codes the store reacts to. */
export const PG_UNIQUE_VIOLATION = "23505";

export function pgErrorCode(err: unknown): string | undefined {
  if (err && typeof err === "object" && "code" in err && typeof (err as { code: unknown }).code === "string") {
    return (err as { code: string }).code;
  }
  return undefined;
}

/**
 * The store could not be reached or could not serve the statement for a reason of its own (connection refused, lost or
 * timed out, the server shutting down or out of resources, a statement or lock wait cut short): the caller hears 503
 * SERVICE_UNAVAILABLE without the driver's internals. Anything else (a constraint, a bug) is not an outage.
 */
function storeOutage(err: unknown): Rejection | undefined {
  if (err instanceof Rejection) return undefined;
  const code = pgErrorCode(err);
  const message = err instanceof Error ? err.message : "";
  const outage =
    (code !== undefined &&
      /^(08...|53...|57P0.|57014|55P03|40P01|ECONNREFUSED|ECONNRESET|ETIMEDOUT|EPIPE|EHOSTUNREACH|ENOTFOUND)$/.test(
        code,
      )) ||
    new RegExp(
      String.raw`timeout exceeded when trying to connect|Connection terminated` +
        String.raw`|Client has encountered a connection error|Connection ended unexpectedly` +
        String.raw`|server closed the connection`,
      "i",
    ).test(message);
  return outage
    ? new Rejection(
        "SERVICE_UNAVAILABLE",
        "the database is not answering right now; nothing was changed by this request, retry shortly",
        { retryAfterSeconds: 5 },
      )
    : undefined;
}

const asOutage = (err: unknown): unknown => storeOutage(err) ?? err;

interface ThreadReply {
  id: number;
  rows?: Row[];
  error?: { message: string; code?: string };
}

/**
 * The embedded store: PGlite in its own worker thread (pgliteThread.worker.mjs), so the database's CPU work runs on
 * the second core instead of between HTTP requests. Every call is a message; a transaction keeps PGlite's lock from
 * its begin to its commit or rollback. PGlite has one connection, so transactions are serialized by PGlite itself and
 * the advisory lock, which orders appends across PostgreSQL connections, is not needed.
 */
export async function openPglite(dataDir: string | undefined, projectors: StoreProjectors): Promise<Db> {
  const worker = new Worker(new URL("./pgliteThread.worker.mjs", import.meta.url), { workerData: { dataDir } });
  const pending = new Map<number, { resolve: (rows: Row[]) => void; reject: (err: Error) => void }>();
  let nextId = 0;
  let nextTx = 0;
  let stopped: Error | undefined;
  // referenced only while a call is outstanding: an idle store never keeps the process alive, a pending call does
  const settle = () => pending.size === 0 && worker.unref();
  const failAll = (err: Error) => {
    stopped ??= err;
    for (const p of pending.values()) p.reject(err);
    pending.clear();
  };
  await new Promise<void>((resolve, reject) => {
    worker.once("message", (m: { ready: boolean; error?: { message: string } }) =>
      m.ready ? resolve() : reject(new Error(`PGlite did not open: ${m.error?.message}`)),
    );
    worker.once("error", reject);
  });
  worker.on("message", (m: ThreadReply) => {
    const p = pending.get(m.id);
    if (!p) return;
    pending.delete(m.id);
    settle();
    if (m.error) p.reject(Object.assign(new Error(m.error.message), m.error.code ? { code: m.error.code } : {}));
    else p.resolve(m.rows ?? []);
  });
  worker.on("error", (err) => failAll(new Error(`the PGlite thread failed: ${err.message}`)));
  worker.on("exit", (code) => failAll(new Error(`the PGlite thread exited (${code})`)));
  worker.unref();

  const call = (message: Record<string, unknown>): Promise<Row[]> =>
    new Promise((resolve, reject) => {
      if (stopped) return reject(stopped);
      const id = ++nextId;
      pending.set(id, { resolve, reject });
      worker.ref();
      worker.postMessage({ id, ...message });
    });
  const base: Queryable = {
    async query<R extends object>(sql: string, params?: unknown[]) {
      return (await call({ op: "query", sql, params })) as R[];
    },
  };
  return {
    kind: "pglite",
    projectors,
    query: base.query,
    relaxed: base,
    async transaction<T>(fn: (tx: Queryable) => Promise<T>) {
      const tx = ++nextTx;
      if (stopped) throw stopped;
      // not awaited: the thread runs a transaction's messages in order, and a failed BEGIN fails the first query
      worker.postMessage({ op: "begin", tx });
      let result: T;
      try {
        result = await fn({
          async query<R extends object>(sql: string, params?: unknown[]) {
            return (await call({ op: "query", tx, sql, params })) as R[];
          },
        });
      } catch (err) {
        await call({ op: "rollback", tx }).catch(() => undefined);
        throw err;
      }
      await call({ op: "commit", tx });
      return result;
    },
    async exec(sql: string) {
      await call({ op: "exec", sql });
    },
    async close() {
      if (stopped) return;
      await call({ op: "close" });
      stopped = new Error("the store is closed");
      await worker.terminate();
    },
  };
}

/**
 * The store answers short indexed reads: no JIT compilation (a cited-by page's count of held references at a million
 * works, misestimated past jit_above_cost, spent 140 ms of its 163 compiling) and no parallel workers (the page's
 * range read of 21 entries waited 196 ms for one to start on a loaded machine). Measured in docs/measurements.md
 * ("Works at a million").
 */
const SESSION_OPTIONS = "-c jit=off -c max_parallel_workers_per_gather=0";

export async function openPostgres(url: string, projectors: StoreProjectors, maxConnections = 10): Promise<Db> {
  const pool = new pg.Pool({
    connectionString: url,
    max: maxConnections,
    connectionTimeoutMillis: 5_000,
    options: SESSION_OPTIONS,
  });
  // an idle client that errors (server restart) must not crash the process
  pool.on("error", () => undefined);
  const query = async <R extends object>(sql: string, params?: unknown[], prepared?: boolean) => {
    try {
      const res = prepared
        ? await pool.query({ name: statementName(sql), text: sql, values: params })
        : await pool.query(sql, params);
      return res.rows as R[];
    } catch (err) {
      throw asOutage(err);
    }
  };
  let relaxedPool: pg.Pool | undefined;
  const relaxed: Queryable = {
    async query<R extends object>(sql: string, params?: unknown[], prepared?: boolean) {
      if (!relaxedPool) {
        relaxedPool = new pg.Pool({
          connectionString: url,
          max: Math.max(2, Math.ceil(maxConnections / 3)),
          connectionTimeoutMillis: 5_000,
          options: `${SESSION_OPTIONS} -c synchronous_commit=off`,
        });
        relaxedPool.on("error", () => undefined);
      }
      try {
        return (
          prepared
            ? await relaxedPool.query({ name: statementName(sql), text: sql, values: params })
            : await relaxedPool.query(sql, params)
        ).rows as R[];
      } catch (err) {
        throw asOutage(err);
      }
    },
  };
  return {
    kind: "postgres",
    projectors,
    query,
    relaxed,
    async transaction<T>(
      fn: (tx: Queryable) => Promise<T>,
      options?: { advisoryLock?: number; oneSnapshot?: boolean },
    ) {
      const client = await pool.connect().catch((err: unknown) => {
        throw asOutage(err);
      });
      try {
        const lock = options?.advisoryLock;
        const begin = options?.oneSnapshot ? "BEGIN ISOLATION LEVEL REPEATABLE READ" : "BEGIN";
        // one round trip for both: a simple-protocol query may hold several statements (the key is an integer we own)
        await client.query(lock === undefined ? begin : `${begin}; SELECT pg_advisory_xact_lock(${Math.trunc(lock)})`);
        const result = await fn({
          async query<R extends object>(sql: string, params?: unknown[], prepared?: boolean) {
            return (
              prepared
                ? await client.query({ name: statementName(sql), text: sql, values: params })
                : await client.query(sql, params)
            ).rows as R[];
          },
        });
        await client.query("COMMIT");
        return result;
      } catch (err) {
        await client.query("ROLLBACK").catch(() => undefined);
        throw asOutage(err);
      } finally {
        client.release();
      }
    },
    async exec(sql: string) {
      await pool.query(sql);
    },
    async close() {
      await pool.end();
      await relaxedPool?.end();
    },
  };
}
