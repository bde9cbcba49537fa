// One command on one stream, the way every non-charge append runs: under the append lock, read what the decision
// needs, decide, append at the version read, and project inline, in one transaction; a conflict is decided again.
import type { Db, Queryable } from "../src/eventstore/db.js";
import { APPEND_LOCK_KEY, prepareAppend } from "../src/eventstore/eventStore.js";
import { retryConflicts } from "../src/eventstore/conflictRetry.js";
import { projectInline } from "./sqlProjection.js";
import type { Actor, DomainEvent, StoredEvent } from "../src/domain/events.js";

interface StreamDecision {
  /** the stream's version the decision was made on (0: a new stream); 'any': the stream's one writer needs no check */
  version: number | "any";
  events: DomainEvent[];
}

/** Appends what `decide` returns (nothing when it returns no events) and returns the stored events. */
export function runStreamCommand(
  db: Db,
  now: () => Date,
  streamId: string,
  actor: Actor,
  decide: (tx: Queryable, at: Date) => Promise<StreamDecision>,
  options: {
    requestId?: string;
    /** a retried command with the same key appends nothing and returns the first one's events */
    idempotencyKey?: string;
  } = {},
): Promise<StoredEvent[]> {
  return retryConflicts(() =>
    db.transaction(
      async (tx) => {
        const at = now();
        const { version, events } = await decide(tx, at);
        if (events.length === 0) return [];
        const prepared = await prepareAppend(
          tx,
          streamId,
          version,
          events,
          { actor, ...(options.requestId ? { requestId: options.requestId } : {}) },
          { now: at, ...(options.idempotencyKey ? { idempotencyKey: options.idempotencyKey } : {}) },
        );
        if (prepared.duplicate) return prepared.events;
        await projectInline(tx, db.projectors, prepared.events, "proj_", [prepared.insert]);
        return prepared.events;
      },
      { advisoryLock: APPEND_LOCK_KEY },
    ),
  );
}
