// Group commit for search charges: charges that arrive while a charge transaction is committing wait for it, then
// commit together in the next one. Each charge is still decided on its own (in arrival order, each on the state the
// ones before it left), gets its own event, hash link, ledger line and query record, and succeeds or is refused on its
// own; the batch shares the lock, the reads, one statement and one commit. A charge arriving at an idle store
// commits at once, so a lone request waits for nobody.
import type { Db, Queryable } from "../../eventstore/db.js";
import { groupCalls } from "../../eventstore/groupCalls.js";
import {
  APPEND_LOCK_KEY,
  batchHeadColumns,
  batchHeadOf,
  insertEventsPart,
  type BatchHeadRow,
  LOG_HEAD_COLUMNS,
  numberEvents,
  runParts,
  StreamVersionConflict,
  type LogHead,
  type SqlPart,
} from "../../eventstore/eventStore.js";
import {
  coversAll,
  memoryProjector,
  prefetchKeysFor,
  prefetchSubquery,
  type MemoryProjector,
  type PrefetchedRows,
  type PrefetchKeys,
} from "../../../projections/sqlProjection.js";
import type { FeatureProjection } from "../../../projections/project.js";
import type { ProjectionTables } from "../../../projections/tables.js";
import { decide } from "../../domain/orgDecider.js";
import { keyStateOf, orgStateOf } from "./orgState.js";
import { orgStream, type CollectionCharge, type StoredEvent } from "../../domain/events.js";
import { dayPeriod, monthPeriod } from "../../domain/queryQuota.js";
import { Rejection } from "../../domain/rejection.js";
import { retryConflicts } from "../../eventstore/conflictRetry.js";

export interface ChargeInput {
  orgId: string;
  keyId: string;
  queryId: string;
  endpoint: string;
  collections: CollectionCharge[];
  resultIds?: string[];
  requestId?: string;
  /** commits with the charge or not at all (the query record it pays for) */
  alsoWrite?: SqlPart;
}

/** What a committed search charge left behind, known without a read after it. */
export interface ChargeResult {
  events: StoredEvent[];
  duplicate: boolean;
  balanceMicros: bigint;
  /** -1 when unknown (a duplicate): the caller reads the quota */
  dailyUsed: number;
  monthlyUsed: number;
}

/** Enough to keep a batch's statement well under PostgreSQL's 65,535 parameters (about 25 per charge). */
const MAX_CHARGES_PER_BATCH = 64;

/** The idempotency key of a search charge: one per query. */
export const searchChargeKey = (queryId: string) => `search:${queryId}`;

interface BatchState {
  log: LogHead;
  /** idempotency keys of the batch already in the log */
  used: Set<string>;
  /** stream id -> its version in the log */
  versions: Map<string, number>;
  prefetched: PrefetchedRows;
}

/** The projection rows a batch's charges touch. */
const batchKeys = (batch: ChargeInput[], now: Date): PrefetchKeys =>
  prefetchKeysFor(
    batch.map((charge) => ({
      orgId: charge.orgId,
      keyId: charge.keyId,
      at: now.toISOString(),
      collections: charge.collections.map((l) => l.collection),
    })),
  );

/** The log head, the used keys, the streams' versions and every projection row the charges touch: one query. */
async function loadBatch(
  tx: Queryable,
  tables: ProjectionTables,
  batch: ChargeInput[],
  keys: PrefetchKeys,
): Promise<BatchState> {
  const params: unknown[] = [];
  const param = (v: unknown) => (params.push(v), `$${params.length}`);
  const [row] = await tx.query<BatchHeadRow & { prefetched?: PrefetchedRows["rows"] }>(
    `SELECT ${LOG_HEAD_COLUMNS},
       ${batchHeadColumns(
         batch.map((charge) => searchChargeKey(charge.queryId)),
         [...keys.orgIds].map(orgStream),
         param,
       )},
       ${prefetchSubquery(tables, "proj_", keys, param)} AS prefetched`,
    params,
    true,
  );
  return { ...batchHeadOf(row), prefetched: { keys, rows: row?.prefetched ?? [] } };
}

type Outcome = { kind: "charged"; result: ChargeResult } | { kind: "refused"; error: Rejection } | { kind: "alone" };

/**
 * What the store looked like after the last batch this process wrote: the log head, the streams' versions and the
 * projection rows as its own events left them. Valid exactly while nothing else was appended, which the next write
 * proves (see createChargeBatcher), so the next batch can decide on it without reading.
 */
interface Snapshot {
  loaded: BatchState;
  projector: MemoryProjector;
}

/**
 * Decides every charge of a batch on `loaded` (through `projector`, which moves on with each charge), in arrival order.
 * No I/O: returns the outcomes and what to write (event rows, their query records, the streams' new versions).
 */
function decideBatch(loaded: BatchState, projector: MemoryProjector, batch: ChargeInput[], now: Date) {
  const read = projector.reader;
  const iso = now.toISOString();
  const streamVersions = new Map<string, number>();
  const seen = new Set<string>();
  const rows: unknown[][] = [];
  const alsoWrite: SqlPart[] = [];
  const outcomes = batch.map((input): Outcome => {
    const idempotencyKey = searchChargeKey(input.queryId);
    if (loaded.used.has(idempotencyKey) || seen.has(idempotencyKey)) return { kind: "alone" };
    seen.add(idempotencyKey);
    const org = read.organization(input.orgId);
    const keyRow = read.apiKey(input.keyId);
    const stream = orgStream(input.orgId);
    let current = streamVersions.get(stream);
    if (current === undefined) {
      current = loaded.versions.get(stream) ?? 0;
      // the projection must stand where the log does, as for any command (the lock makes this hold)
      if (org && org.version !== current) throw new StreamVersionConflict(stream, org.version);
    }
    const usage = {
      dailyUsed: read.usage(input.orgId, dayPeriod(iso))?.queries ?? 0,
      monthlyUsed: read.usage(input.orgId, monthPeriod(iso))?.queries ?? 0,
    };
    const state = org && orgStateOf(org, read.balance(input.orgId)?.balance_micros, usage, now);
    try {
      if (!keyRow) throw new Rejection("NOT_FOUND", `API key ${input.keyId} not found`);
      const events = decide(
        {
          type: "ChargeSearch",
          key: keyStateOf(keyRow),
          queryId: input.queryId,
          endpoint: input.endpoint,
          collections: input.collections,
          resultIds: input.resultIds ?? [],
        },
        state,
      );
      const numbered = numberEvents(
        loaded.log,
        stream,
        current,
        events,
        { actor: { kind: "key", id: input.keyId }, requestId: input.requestId },
        iso,
        idempotencyKey,
      );
      projector.apply(numbered.events);
      streamVersions.set(stream, current + events.length);
      rows.push(...numbered.rows);
      if (input.alsoWrite) alsoWrite.push(input.alsoWrite);
      const charged = numbered.events[0];
      const amount = charged?.type === "SearchCharged" ? BigInt(charged.data.amountMicros) : 0n;
      return {
        kind: "charged",
        result: {
          events: numbered.events,
          duplicate: false,
          balanceMicros: state!.balanceMicros - amount,
          dailyUsed: state!.usage.dailyUsed + 1,
          monthlyUsed: state!.usage.monthlyUsed + 1,
        },
      };
    } catch (err) {
      if (err instanceof Rejection) return { kind: "refused", error: err };
      throw err;
    }
  });
  return { outcomes, rows, alsoWrite, streamVersions };
}

/** Writes a decided batch in one statement; the log position it numbered from proves nothing was appended since. */
async function writeDecided(
  tx: Queryable,
  loaded: BatchState,
  projector: MemoryProjector,
  decided: ReturnType<typeof decideBatch>,
  headRead: number,
): Promise<{ outcomes: Outcome[]; after: Snapshot }> {
  if (decided.rows.length > 0)
    await runParts(
      tx,
      [insertEventsPart(decided.rows), ...projector.parts(), ...decided.alsoWrite],
      "the event log",
      headRead,
    );
  projector.settled();
  for (const [stream, version] of decided.streamVersions) loaded.versions.set(stream, version);
  return { outcomes: decided.outcomes, after: { loaded, projector } };
}

/**
 * Reads, decides and writes one batch. Must run where no other append can come between the read and the write: in a
 * transaction holding the append lock (PostgreSQL) or PGlite's transaction (its one connection), so it never loses
 * its log position to a writer of another organization. Returns the outcomes and the state after the batch.
 */
async function writeFresh(
  tx: Queryable,
  projection: FeatureProjection,
  batch: ChargeInput[],
  now: Date,
): Promise<{ outcomes: Outcome[]; after: Snapshot }> {
  const loaded = await loadBatch(tx, projection.tables, batch, batchKeys(batch, now));
  const projector = memoryProjector(projection, loaded.prefetched);
  const headRead = loaded.log.pos;
  return writeDecided(tx, loaded, projector, decideBatch(loaded, projector, batch, now), headRead);
}

/**
 * Decides and writes one batch on the state the previous batch left, in one statement outside any transaction, when
 * that state holds every row the batch touches and no charge is refused (a refusal writes nothing, so nothing would
 * prove the kept state current); undefined otherwise. A StreamVersionConflict means something else was appended since.
 */
async function writeOnSnapshot(
  db: Queryable,
  batch: ChargeInput[],
  now: Date,
  kept: Snapshot,
): Promise<{ outcomes: Outcome[]; after: Snapshot } | undefined> {
  if (!coversAll(kept.loaded.prefetched.keys, batchKeys(batch, now))) return undefined;
  const headRead = kept.loaded.log.pos;
  const decided = decideBatch(kept.loaded, kept.projector, batch, now);
  if (decided.outcomes.some((o) => o.kind === "refused")) return undefined;
  return writeDecided(db, kept.loaded, kept.projector, decided, headRead);
}

/** After a batch found the log moved under its snapshot, how many batches go straight to a fresh transaction. */
const FRESH_BATCHES_AFTER_CONFLICT = 16;

/**
 * Whether the next batch tries the snapshot (one statement) first: it has one and the last tries did not keep losing to
 * other writers. `freshLeft`: batches still to run fresh since the last lost try. Pure, for tests.
 */
export function trySnapshot(kind: Db["kind"], hasSnapshot: boolean, freshLeft: number): boolean {
  // PGlite has one connection, so only this process appends there; a lost try is another use case's append
  return hasSnapshot && (kind === "pglite" || freshLeft === 0);
}

/**
 * Queues charges and commits them in batches, one transaction at a time per process (processes sharing a PostgreSQL
 * database take turns on the append lock). `alone` charges one query by itself (the retry of a committed charge).
 */
export function createChargeBatcher(db: Db, clock: () => Date, alone: (input: ChargeInput) => Promise<ChargeResult>) {
  /**
   * A batch is read, decided and written in a transaction under the append lock, which orders every writer of the log:
   * on PostgreSQL four round trips (BEGIN with the lock, the read, the write, COMMIT). So a batch first tries the
   * state the previous batch left, written in one statement without an explicit transaction (one round trip; the
   * statement commits on its own, durable before it answers). That is safe because every append numbers its events
   * from the log head it knew: if anything else was appended since (a credit of any organization, another API
   * process's charges take the next position too), the statement fails whole on the events' primary key (or on a
   * charge's idempotency key) and the batch is read and decided again inside a transaction, where nothing can come
   * between. Projection rows change only with appended events, so an unmoved head means unchanged rows. On
   * PostgreSQL, processes sharing the database move the head under each other's snapshots; after a lost try the next
   * FRESH_BATCHES_AFTER_CONFLICT batches skip it, so they pay the lost round trip once in that many batches at most.
   */
  let kept: Snapshot | undefined;
  let freshLeft = 0;
  async function write(batch: ChargeInput[]): Promise<Outcome[]> {
    const now = clock();
    // a failed write may have moved the snapshot's rows: only a committed batch's state is kept
    const snapshot = kept;
    kept = undefined;
    if (snapshot && trySnapshot(db.kind, true, freshLeft)) {
      let lost = false;
      const done = await writeOnSnapshot(db, batch, now, snapshot).catch((err: unknown) => {
        if (!(err instanceof StreamVersionConflict)) throw err;
        lost = true;
        return undefined;
      });
      if (done) {
        kept = done.after;
        return done.outcomes;
      }
      if (lost) freshLeft = FRESH_BATCHES_AFTER_CONFLICT;
    } else if (freshLeft > 0) freshLeft--;
    const fresh = await db.transaction((tx) => writeFresh(tx, db.projectors, batch, now), {
      advisoryLock: APPEND_LOCK_KEY,
    });
    kept = fresh.after;
    return fresh.outcomes;
  }

  /** One batch; a throw (nothing of the batch committed) fails every charge in it the same way. */
  async function commit(batch: ChargeInput[]): Promise<Array<ChargeResult | Error>> {
    const outcomes = await retryConflicts(() => write(batch));
    const answers: Array<ChargeResult | Error> = [];
    for (const [i, outcome] of outcomes.entries()) {
      if (outcome.kind === "charged") answers.push(outcome.result);
      else if (outcome.kind === "refused") answers.push(outcome.error);
      else
        answers.push(
          await alone(batch[i]!).catch((err: unknown) => (err instanceof Error ? err : new Error(String(err)))),
        );
    }
    return answers;
  }

  return { charge: groupCalls(commit, MAX_CHARGES_PER_BATCH) };
}
