// One SQL interface over the two PostgreSQL adapters: PGlite (embedded default) and a pg pool (server).
import { createHash } from 'node:crypto';
import pg from 'pg';
import { PGlite } from '@electric-sql/pglite';

export interface Row {
  [column: string]: unknown;
}

export interface Queryable {
  /** `prepared`: a hot statement whose text repeats; the server keeps its plan per connection (PostgreSQL server only) */
  query<R extends object = Row>(sql: string, params?: unknown[], prepared?: boolean): Promise<R[]>;
}

/** A prepared statement's name: derived from its text, so equal texts share one plan per connection. */
const statementName = (sql: string) => `ls_${createHash('sha1').update(sql).digest('hex').slice(0, 24)}`;

export interface Db extends Queryable {
  readonly kind: 'pglite' | 'postgres';
  /**
   * For writes whose loss in a crash costs no money (rate-limit counters): committed without waiting for the WAL
   * flush (synchronous_commit off), which saves a disk flush per request. Money never goes through here.
   */
  readonly relaxed: Queryable;
  /** runs fn in one transaction; rolls back on throw. `advisoryLock`: take this transaction-level lock first (sent with BEGIN) */
  transaction<T>(fn: (tx: Queryable) => Promise<T>, options?: { advisoryLock?: number }): Promise<T>;
  /** runs a multi-statement script (DDL) */
  exec(sql: string): Promise<void>;
  close(): Promise<void>;
}

/** Postgres error codes the store reacts to. */
export const PG_UNIQUE_VIOLATION = '23505';
export const PG_SERIALIZATION_FAILURE = '40001';

export function pgErrorCode(err: unknown): string | undefined {
  if (err && typeof err === 'object' && 'code' in err && typeof (err as { code: unknown }).code === 'string') {
    return (err as { code: string }).code;
  }
  return undefined;
}

export async function openPglite(dataDir: string | undefined): Promise<Db> {
  const lite = dataDir ? new PGlite(dataDir) : new PGlite();
  await lite.waitReady;
  const asQueryable = (q: { query: PGlite['query'] }): Queryable => ({
    async query<R extends object>(sql: string, params?: unknown[]) {
      const res = await q.query<R>(sql, params as unknown[] | undefined);
      return res.rows;
    },
  });
  const base = asQueryable(lite);
  return {
    kind: 'pglite',
    query: base.query,
    relaxed: base,
    async transaction<T>(fn: (tx: Queryable) => Promise<T>, options?: { advisoryLock?: number }) {
      return lite.transaction(async (tx) => {
        const q = asQueryable(tx);
        if (options?.advisoryLock !== undefined) await q.query('SELECT pg_advisory_xact_lock($1)', [options.advisoryLock]);
        return fn(q);
      });
    },
    async exec(sql: string) {
      await lite.exec(sql);
    },
    async close() {
      await lite.close();
    },
  };
}

export async function openPostgres(url: string, maxConnections = 10): Promise<Db> {
  const pool = new pg.Pool({ connectionString: url, max: maxConnections, connectionTimeoutMillis: 5_000 });
  // an idle client that errors (server restart) must not crash the process
  pool.on('error', () => undefined);
  const query = async <R extends object>(sql: string, params?: unknown[], prepared?: boolean) => {
    const res = prepared ? await pool.query({ name: statementName(sql), text: sql, values: params }) : await pool.query(sql, params);
    return res.rows as R[];
  };
  let relaxedPool: pg.Pool | undefined;
  const relaxed: Queryable = {
    async query<R extends object>(sql: string, params?: unknown[], prepared?: boolean) {
      if (!relaxedPool) {
        relaxedPool = new pg.Pool({ connectionString: url, max: Math.max(2, Math.ceil(maxConnections / 3)), connectionTimeoutMillis: 5_000, options: '-c synchronous_commit=off' });
        relaxedPool.on('error', () => undefined);
      }
      return (prepared ? await relaxedPool.query({ name: statementName(sql), text: sql, values: params }) : await relaxedPool.query(sql, params)).rows as R[];
    },
  };
  return {
    kind: 'postgres',
    query,
    relaxed,
    async transaction<T>(fn: (tx: Queryable) => Promise<T>, options?: { advisoryLock?: number }) {
      const client = await pool.connect();
      try {
        const lock = options?.advisoryLock;
        // one round trip for both: a simple-protocol query may hold several statements (the key is an integer we own)
        await client.query(lock === undefined ? 'BEGIN' : `BEGIN; SELECT pg_advisory_xact_lock(${Math.trunc(lock)})`);
        const result = await fn({
          async query<R extends object>(sql: string, params?: unknown[], prepared?: boolean) {
            return (prepared ? await client.query({ name: statementName(sql), text: sql, values: params }) : await client.query(sql, params)).rows as R[];
          },
        });
        await client.query('COMMIT');
        return result;
      } catch (err) {
        await client.query('ROLLBACK').catch(() => undefined);
        throw err;
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
