// Runs one command against an organization stream: lock, load state from projections, decide (the organization
// decider), append, project — one transaction.
import type { Db, Queryable } from "../../eventstore/db.js";
import {
  APPEND_LOCK_KEY,
  appendHeadColumns,
  appendHeadOf,
  prepareAppend,
  type AppendHead,
  type SqlPart,
} from "../../eventstore/eventStore.js";
import {
  prefetchKeysFor,
  prefetchSubquery,
  projectInline,
  selectList,
  normalizeRow,
  type PrefetchedRows,
} from "../../../projections/sqlProjection.js";
import type { ProjectionTables } from "../../../projections/tables.js";
import { API_KEYS, type ApiKeyRow } from "./keyTables.js";
import { ORGANIZATIONS } from "./accountTables.js";
import { decide } from "../../domain/orgDecider.js";
import type { KeyState, OrgCommand, OrgState } from "../../domain/organization.js";
import { orgStream, type Actor, type StoredEvent } from "../../domain/events.js";
import { dayPeriod, monthPeriod } from "../../domain/queryQuota.js";
import { Rejection } from "../../domain/rejection.js";
import { retryConflicts } from "../../eventstore/conflictRetry.js";
import { keyStateOf, orgStateOf } from "./orgState.js";

export interface CommandResult {
  events: StoredEvent[];
  duplicate: boolean;
}

interface LoadedState {
  state?: OrgState;
  key?: ApiKeyRow;
  /** the stream's and the log's head, for the append */
  head: AppendHead;
  /** the rows the projection of this command's events will read, when the command could name them */
  prefetched?: PrefetchedRows;
}

/**
 * Everything a command needs before it appends, in one round trip: the organization's state, the acting key, the
 * append head, and the projection rows its events will touch (organization, balance, key, usage, collection days).
 */
async function loadOrgState(
  tx: Queryable,
  tables: ProjectionTables,
  orgId: string,
  now: Date,
  opts: { keyId?: string; idempotencyKey?: string; collections?: string[] },
): Promise<LoadedState> {
  const iso = now.toISOString();
  const params: unknown[] = [];
  const param = (v: unknown) => (params.push(v), `$${params.length}`);
  const keys = opts.collections
    ? prefetchKeysFor([{ orgId, keyId: opts.keyId, at: iso, collections: opts.collections }])
    : undefined;
  const o = param(orgId);
  const rows = await tx.query(
    `SELECT o.*, (SELECT row_to_json(k) FROM (SELECT ${selectList(API_KEYS)} FROM proj_api_keys
      WHERE key_id = ${param(opts.keyId ?? null)}) k) AS key_row,
       ${appendHeadColumns(orgStream(orgId), opts.idempotencyKey, param)}
       ${keys ? `, ${prefetchSubquery(tables, "proj_", keys, param)} AS prefetched` : ""}
     FROM (SELECT 1) one LEFT JOIN LATERAL (
       SELECT ${selectList(ORGANIZATIONS)},
         (SELECT balance_micros::text FROM proj_balances b WHERE b.org_id = o.org_id) AS balance,
         (SELECT queries FROM proj_usage u
           WHERE u.org_id = o.org_id AND u.period = ${param(dayPeriod(iso))}) AS daily_used,
         (SELECT queries FROM proj_usage u
           WHERE u.org_id = o.org_id AND u.period = ${param(monthPeriod(iso))}) AS monthly_used
       FROM proj_organizations o WHERE org_id = ${o}) o ON true`,
    params,
    true,
  );
  const r = rows[0];
  const key = r?.key_row ? normalizeRow(API_KEYS, r.key_row as Record<string, unknown>) : undefined;
  const head = appendHeadOf(r);
  const prefetched = keys ? { keys, rows: (r?.prefetched ?? []) as PrefetchedRows["rows"] } : undefined;
  if (!r || r.org_id === null || r.org_id === undefined) return { key, head, prefetched };
  const org = normalizeRow(ORGANIZATIONS, r);
  const state = orgStateOf(
    org,
    r.balance as string | null,
    { dailyUsed: Number(r.daily_used ?? 0), monthlyUsed: Number(r.monthly_used ?? 0) },
    now,
  );
  return { state, key, head, prefetched };
}

interface OrgCommandOptions {
  idempotencyKey?: string;
  requestId?: string;
  keyId?: string;
  alsoWrite?: SqlPart;
  /** collections the events will bill: their usage rows are fetched with the state */
  collections?: string[];
}

export type RunOrgCommand = (
  orgId: string,
  actor: Actor,
  build: (tx: Queryable, state: OrgState | undefined, key: KeyState | undefined) => Promise<OrgCommand>,
  options?: OrgCommandOptions,
) => Promise<CommandResult & { state?: OrgState }>;

export function createOrgCommandRunner(db: Db, clock: () => Date): RunOrgCommand {
  /**
   * One command against an organization stream. The advisory lock serializes appends; the expected version
   * still guards the stream, so a decision is never made on state another writer has moved.
   */
  return (orgId, actor, build, options = {}) =>
    // a conflict is another writer's turn, not an outage: decide again on the state it left
    retryConflicts(() =>
      db.transaction(
        async (tx) => {
          const now = clock();
          const { state, key, head, prefetched } = await loadOrgState(tx, db.projectors.tables, orgId, now, options);
          if (options.keyId && !key) throw new Rejection("NOT_FOUND", `API key ${options.keyId} not found`);
          const events = decide(await build(tx, state, key && keyStateOf(key)), state);
          if (events.length === 0) return { events: [], duplicate: false, state };
          const prepared = await prepareAppend(
            tx,
            orgStream(orgId),
            state?.version ?? 0,
            events,
            { actor, requestId: options.requestId },
            { idempotencyKey: options.idempotencyKey, now, head },
          );
          if (prepared.duplicate) return { events: prepared.events, duplicate: true, state };
          // one statement: the events, their projection, and what must commit with them or not at all
          // (e.g. the query record a charge pays for)
          await projectInline(
            tx,
            db.projectors,
            prepared.events,
            "proj_",
            [prepared.insert],
            options.alsoWrite ? [options.alsoWrite] : [],
            prefetched,
          );
          return { events: prepared.events, duplicate: false, state };
        },
        { advisoryLock: APPEND_LOCK_KEY },
      ),
    );
}
