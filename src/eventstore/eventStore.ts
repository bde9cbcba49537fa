// The append-only event log: optimistic concurrency per stream, idempotent appends, and a hash chain.
import { createHash } from 'node:crypto';
import type { Db, Queryable } from './db.js';
import { PG_UNIQUE_VIOLATION, pgErrorCode } from './db.js';
import type { DomainEvent, EventMetadata, StoredEvent } from '../domain/events.js';

export const EVENTS_DDL = `
CREATE TABLE IF NOT EXISTS events (
  position        BIGINT PRIMARY KEY,
  stream_id       TEXT NOT NULL,
  stream_version  INTEGER NOT NULL,
  type            TEXT NOT NULL,
  data            JSONB NOT NULL,
  metadata        JSONB NOT NULL,
  idempotency_key TEXT,
  recorded_at     TIMESTAMPTZ NOT NULL,
  prev_hash       TEXT NOT NULL,
  hash            TEXT NOT NULL,
  UNIQUE (stream_id, stream_version)
);
CREATE UNIQUE INDEX IF NOT EXISTS events_idempotency_key ON events (idempotency_key) WHERE idempotency_key IS NOT NULL;
CREATE INDEX IF NOT EXISTS events_stream ON events (stream_id, stream_version);
`;

/** The hash before the first event. */
export const GENESIS_HASH = '0'.repeat(64);

/** A fixed advisory-lock key: appends take it so the global order and the hash chain are one sequence. */
const APPEND_LOCK_KEY = 774_211_001;

export class StreamVersionConflict extends Error {
  constructor(readonly streamId: string, readonly expected: number | 'any') {
    super(`stream ${streamId} is not at version ${expected}`);
    this.name = 'StreamVersionConflict';
  }
}

/** JSON with sorted keys, so a hash does not depend on how JSONB reorders an object. */
export function canonicalJson(value: unknown): string {
  if (value === null || typeof value !== 'object') return JSON.stringify(value ?? null);
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  const entries = Object.entries(value as Record<string, unknown>)
    .filter(([, v]) => v !== undefined)
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonicalJson(v)}`).join(',')}}`;
}

export function eventHash(e: Omit<StoredEvent, 'hash'>): string {
  const content = canonicalJson({
    position: e.position,
    streamId: e.streamId,
    streamVersion: e.streamVersion,
    type: e.type,
    data: e.data,
    metadata: e.metadata,
    recordedAt: e.recordedAt,
    prevHash: e.prevHash,
  });
  return createHash('sha256').update(content).digest('hex');
}

export interface AppendResult {
  events: StoredEvent[];
  /** true when the idempotency key had been used: nothing was appended, the original events are returned */
  duplicate: boolean;
}

/** Serializes appends across every connection and process sharing the database; call first in a money transaction. */
export async function lockAppends(tx: Queryable): Promise<void> {
  await tx.query('SELECT pg_advisory_xact_lock($1)', [APPEND_LOCK_KEY]);
}

interface EventRow {
  pos: string;
  stream_id: string;
  stream_version: number;
  type: string;
  data: Record<string, unknown>;
  metadata: EventMetadata;
  recorded_at: Date | string;
  prev_hash: string;
  hash: string;
}

export function rowToEvent(r: EventRow): StoredEvent {
  return {
    position: Number(r.pos),
    streamId: r.stream_id,
    streamVersion: r.stream_version,
    type: r.type,
    data: r.data,
    metadata: r.metadata,
    recordedAt: r.recorded_at instanceof Date ? r.recorded_at.toISOString() : new Date(r.recorded_at).toISOString(),
    prevHash: r.prev_hash,
    hash: r.hash,
  } as StoredEvent;
}

// positions are selected as text under another name: ORDER BY position must sort the bigint column, not the text alias
const SELECT_EVENT = `SELECT position::text AS pos, stream_id, stream_version, type, data, metadata, recorded_at, prev_hash, hash FROM events`;

/**
 * Appends events to one stream inside the caller's transaction (which must hold lockAppends).
 * expectedVersion is the stream's current version (0 for a new stream) or 'any'.
 */
export async function appendToStream(
  tx: Queryable,
  streamId: string,
  expectedVersion: number | 'any',
  events: DomainEvent[],
  metadata: EventMetadata,
  options: { idempotencyKey?: string; now?: Date } = {},
): Promise<AppendResult> {
  if (options.idempotencyKey) {
    const existing = await tx.query<EventRow>(
      `${SELECT_EVENT} WHERE idempotency_key = $1 OR idempotency_key LIKE $2 ORDER BY position`,
      [options.idempotencyKey, `${options.idempotencyKey}#%`],
    );
    if (existing.length > 0) return { events: existing.map(rowToEvent), duplicate: true };
  }
  const [head] = await tx.query<{ v: number | null }>(
    'SELECT max(stream_version) AS v FROM events WHERE stream_id = $1',
    [streamId],
  );
  const current = head?.v ?? 0;
  if (expectedVersion !== 'any' && current !== expectedVersion) throw new StreamVersionConflict(streamId, expectedVersion);
  const [last] = await tx.query<{ pos: string; hash: string }>('SELECT position::text AS pos, hash FROM events ORDER BY position DESC LIMIT 1');
  let prevHash = last?.hash ?? GENESIS_HASH;
  let position = last ? Number(last.pos) : 0;
  const recordedAt = (options.now ?? new Date()).toISOString();
  const stored: StoredEvent[] = [];
  for (const [i, e] of events.entries()) {
    position += 1;
    const partial = {
      ...e,
      position,
      streamId,
      streamVersion: current + i + 1,
      metadata,
      recordedAt,
      prevHash,
    } as Omit<StoredEvent, 'hash'>;
    const hash = eventHash(partial);
    const key = options.idempotencyKey ? (i === 0 ? options.idempotencyKey : `${options.idempotencyKey}#${i}`) : null;
    try {
      await tx.query(
        `INSERT INTO events (position, stream_id, stream_version, type, data, metadata, idempotency_key, recorded_at, prev_hash, hash)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)`,
        [position, streamId, partial.streamVersion, e.type, JSON.stringify(e.data), JSON.stringify(metadata), key, recordedAt, prevHash, hash],
      );
    } catch (err) {
      if (pgErrorCode(err) === PG_UNIQUE_VIOLATION) throw new StreamVersionConflict(streamId, expectedVersion);
      throw err;
    }
    stored.push({ ...partial, hash } as StoredEvent);
    prevHash = hash;
  }
  return { events: stored, duplicate: false };
}

/** Reads events in global order from `after` (exclusive), in pages. */
export async function* readAll(db: Queryable, after = 0, pageSize = 5000): AsyncGenerator<StoredEvent[]> {
  let from = after;
  for (;;) {
    const rows = await db.query<EventRow>(`${SELECT_EVENT} WHERE position > $1 ORDER BY position LIMIT $2`, [from, pageSize]);
    if (rows.length === 0) return;
    const page = rows.map(rowToEvent);
    yield page;
    from = page[page.length - 1]!.position;
    if (rows.length < pageSize) return;
  }
}

export async function readStream(db: Queryable, streamId: string): Promise<StoredEvent[]> {
  const rows = await db.query<EventRow>(`${SELECT_EVENT} WHERE stream_id = $1 ORDER BY stream_version`, [streamId]);
  return rows.map(rowToEvent);
}

export interface ChainVerdict {
  ok: boolean;
  checked: number;
  /** position of the first event whose link or content does not verify */
  firstBadPosition?: number;
  reason?: string;
  headHash: string;
}

/** Walks the whole log and checks each event's hash and its link to the one before. */
export async function verifyChain(db: Db): Promise<ChainVerdict> {
  let prev = GENESIS_HASH;
  let checked = 0;
  let lastPosition = 0;
  for await (const page of readAll(db)) {
    for (const e of page) {
      if (e.prevHash !== prev) {
        return { ok: false, checked, firstBadPosition: e.position, reason: `link broken after position ${lastPosition}: an event was inserted, deleted or reordered`, headHash: prev };
      }
      const { hash, ...rest } = e;
      if (eventHash(rest) !== hash) {
        return { ok: false, checked, firstBadPosition: e.position, reason: 'content does not match its hash: the event was edited', headHash: prev };
      }
      prev = hash;
      lastPosition = e.position;
      checked += 1;
    }
  }
  return { ok: true, checked, headHash: prev };
}
