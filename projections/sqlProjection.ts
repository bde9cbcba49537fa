// Reads and writes projection rows in SQL under a table prefix, over the tables the features declare (a store's:
// Db.projectors.tables); the inline projector of money-moving appends.
import type { Queryable } from "../src/eventstore/db.js";
import { runParts, type SqlPart } from "../src/eventstore/eventStore.js";
import type { StoredEvent } from "../src/domain/events.js";
import { project, type Change, type FeatureProjection, type ProjectionReader } from "./project.js";
import {
  columnsOf,
  rowKey,
  type ProjectionTable,
  type ProjectionTables,
  type RowOf,
  type TableSpec,
  type TablePrefix,
} from "./tables.js";
import { dayPeriod, monthPeriod } from "../src/domain/queryQuota.js";

/**
 * A table's columns as selected: bigint as text, so money never passes through a JS number; timestamptz as ISO text
 * in UTC with milliseconds, like the ledger's time.
 */
export function selectList(spec: TableSpec): string {
  return Object.entries(spec.columns)
    .map(([c, type]) =>
      type === "bigint"
        ? `${c}::text AS ${c}`
        : type === "timestamptz"
          ? `to_char(${c} AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') AS ${c}`
          : c,
    )
    .join(", ");
}

/** A selected row as the projection holds it: a log position (bigint) as a number. */
export function normalizeRow<T extends ProjectionTable>(spec: TableSpec<T>, raw: Record<string, unknown>): RowOf[T] {
  const row: Record<string, unknown> = { ...raw };
  if (spec.columns.position === "bigint") row.position = Number(row.position);
  return row as unknown as RowOf[T];
}

/**
 * Rows of the projection tables read one by one (the command runner's reads); the projector itself uses
 * prefetchedReader.
 */
type ProjectionRowReader = {
  [R in keyof ProjectionReader]: (...key: Parameters<ProjectionReader[R]>) => Promise<ReturnType<ProjectionReader[R]>>;
};

export function sqlReader(tx: Queryable, tables: ProjectionTables, p: TablePrefix): ProjectionRowReader {
  const one = async <T extends ProjectionTable>(table: T, where: string, params: unknown[]) => {
    const spec: TableSpec<T> = tables[table];
    const rows = await tx.query(`SELECT ${selectList(spec)} FROM ${p}${table} WHERE ${where}`, params);
    return rows[0] ? normalizeRow(spec, rows[0]) : undefined;
  };
  return {
    organization: (orgId) => one("organizations", "org_id = $1", [orgId]),
    balance: (orgId) => one("balances", "org_id = $1", [orgId]),
    apiKey: (keyId) => one("api_keys", "key_id = $1", [keyId]),
    usage: (orgId, period) => one("usage", "org_id = $1 AND period = $2", [orgId, period]),
    collectionUsage: (orgId, day, collection) =>
      one("collection_usage", "org_id = $1 AND day = $2 AND collection = $3", [orgId, day, collection]),
    invite: (inviteId) => one("invites", "invite_id = $1", [inviteId]),
    member: (memberId) => one("members", "member_id = $1", [memberId]),
    session: (sessionId) => one("sessions", "session_id = $1", [sessionId]),
    ingestion: (ingestionId) => one("ingestions", "ingestion_id = $1", [ingestionId]),
    webhookEndpoint: (endpointId) => one("webhook_endpoints", "endpoint_id = $1", [endpointId]),
    webhookDelivery: (messageId, endpointId) =>
      one("webhook_deliveries", "message_id = $1 AND endpoint_id = $2", [messageId, endpointId]),
    alert: (alertId) => one("alerts", "alert_id = $1", [alertId]),
    alertRun: (queryId) => one("alert_runs", "query_id = $1", [queryId]),
  };
}

/** A row's values in column order; every jsonb column as JSON text (pg would send an array as a PostgreSQL array). */
function rowParams(spec: TableSpec, row: object): unknown[] {
  const r = row as Record<string, unknown>;
  return Object.entries(spec.columns).map(([c, type]) => {
    const value = r[c];
    if (value === null || value === undefined) return null;
    return type === "jsonb" ? JSON.stringify(value) : value;
  });
}

const pkOf = (spec: TableSpec, row: object) => `${spec.name}\u0000${rowKey(spec, row)}`;

/** The rows an event's projection may read, fetched in one round trip before projecting. */
export interface PrefetchKeys {
  orgIds: Set<string>;
  keyIds: Set<string>;
  periods: Set<string>;
  days: Set<string>;
  collections: Set<string>;
  /** member actions: the invite, the member and the session their events change */
  inviteIds: Set<string>;
  memberIds: Set<string>;
  sessionIds: Set<string>;
  /** an ingestion's end changes the row its start wrote */
  ingestionIds: Set<string>;
  /** webhooks: the endpoint an event names, and the deliveries of the message it names to those endpoints */
  endpointIds: Set<string>;
  messageIds: Set<string>;
  /** alerts: the alert an event names, and the run (by its queryId) an alert's event names */
  alertIds: Set<string>;
  alertRunIds: Set<string>;
}

/** Something an append does: an organization's key acting at a time (ISO) on collections. */
export interface PrefetchTouch {
  orgId?: string;
  keyId?: string;
  at: string;
  collections?: Iterable<string>;
  inviteId?: string;
  memberId?: string;
  sessionId?: string;
  ingestionId?: string;
  endpointId?: string;
  messageId?: string;
  alertId?: string;
  alertRunId?: string;
}

/** The rows appends doing these things may read: their organizations, keys, usage periods and collection days. */
export function prefetchKeysFor(touches: Iterable<PrefetchTouch>): PrefetchKeys {
  const k: PrefetchKeys = {
    orgIds: new Set(),
    keyIds: new Set(),
    periods: new Set(),
    days: new Set(),
    collections: new Set(),
    inviteIds: new Set(),
    memberIds: new Set(),
    sessionIds: new Set(),
    ingestionIds: new Set(),
    endpointIds: new Set(),
    messageIds: new Set(),
    alertIds: new Set(),
    alertRunIds: new Set(),
  };
  for (const t of touches) {
    if (t.orgId) k.orgIds.add(t.orgId);
    if (t.keyId) k.keyIds.add(t.keyId);
    if (t.inviteId) k.inviteIds.add(t.inviteId);
    if (t.memberId) k.memberIds.add(t.memberId);
    if (t.sessionId) k.sessionIds.add(t.sessionId);
    if (t.ingestionId) k.ingestionIds.add(t.ingestionId);
    if (t.endpointId) k.endpointIds.add(t.endpointId);
    if (t.messageId) k.messageIds.add(t.messageId);
    if (t.alertId) k.alertIds.add(t.alertId);
    if (t.alertRunId) k.alertRunIds.add(t.alertRunId);
    k.periods.add(dayPeriod(t.at)).add(monthPeriod(t.at));
    k.days.add(t.at.slice(0, 10));
    for (const c of t.collections ?? []) k.collections.add(c);
  }
  return k;
}

/** The rows projecting these events may read (every row an event touches is named by the event). */
function prefetchKeysOf(events: StoredEvent[]): PrefetchKeys {
  return prefetchKeysFor(
    events.map((e) => {
      const d = e.data as {
        orgId?: string | null;
        keyId?: string;
        collections?: unknown;
        inviteId?: string;
        sessionId?: string;
        memberId?: string | null;
        ingestionId?: string;
        endpointId?: string;
        messageId?: string;
        alertId?: string;
        queryId?: string;
      };
      const lines = Array.isArray(d.collections) ? (d.collections as { collection?: unknown }[]) : [];
      return {
        orgId: d.orgId ?? undefined,
        keyId: d.keyId,
        at: e.recordedAt,
        collections: lines.flatMap((l) => (typeof l.collection === "string" ? [l.collection] : [])),
        inviteId: d.inviteId,
        memberId: d.memberId ?? undefined,
        sessionId: d.sessionId,
        ingestionId: d.ingestionId,
        endpointId: d.endpointId,
        messageId: d.messageId,
        alertId: d.alertId,
        alertRunId: d.alertId ? d.queryId : undefined,
      };
    }),
  );
}

/** The rows named by `k`, as one json array of {t, r} (a subquery a caller can fold into its own first query). */
export function prefetchSubquery(
  tables: ProjectionTables,
  p: TablePrefix,
  k: PrefetchKeys,
  param: (value: unknown) => string,
): string {
  const columns = (table: ProjectionTable) => selectList(tables[table]);
  const org = param([...k.orgIds]);
  const key = param([...k.keyIds]);
  const periods = param([...k.periods]);
  const days = param([...k.days]);
  const collections = param([...k.collections]);
  // member actions only: a charge's statement keeps its text (and plan) without them
  const memberRows = [
    k.inviteIds.size
      ? `UNION ALL SELECT 'invites', row_to_json(x) FROM (SELECT ${columns("invites")} FROM ${p}invites ` +
        `WHERE invite_id = ANY(${param([...k.inviteIds])})) x`
      : "",
    k.memberIds.size
      ? `UNION ALL SELECT 'members', row_to_json(x) FROM (SELECT ${columns("members")} FROM ${p}members ` +
        `WHERE member_id = ANY(${param([...k.memberIds])})) x`
      : "",
    k.sessionIds.size
      ? `UNION ALL SELECT 'sessions', row_to_json(x) FROM (SELECT ${columns("sessions")} FROM ${p}sessions ` +
        `WHERE session_id = ANY(${param([...k.sessionIds])})) x`
      : "",
    k.ingestionIds.size
      ? `UNION ALL SELECT 'ingestions', row_to_json(x) FROM (SELECT ${columns("ingestions")} FROM ${p}` +
        `ingestions WHERE ingestion_id = ANY(${param([...k.ingestionIds])})) x`
      : "",
    k.endpointIds.size
      ? `UNION ALL SELECT 'webhook_endpoints', row_to_json(x) FROM (SELECT ${columns("webhook_endpoints")} ` +
        `FROM ${p}webhook_endpoints WHERE endpoint_id = ANY(${param([...k.endpointIds])})) x`
      : "",
    k.endpointIds.size && k.messageIds.size
      ? `UNION ALL SELECT 'webhook_deliveries', row_to_json(x) FROM (SELECT ${columns("webhook_deliveries")} ` +
        `FROM ${p}webhook_deliveries WHERE message_id = ANY(${param([...k.messageIds])}) AND endpoint_id = ANY(` +
        `${param([...k.endpointIds])})) x`
      : "",
    k.alertIds.size
      ? `UNION ALL SELECT 'alerts', row_to_json(x) FROM (SELECT ${columns("alerts")} FROM ${p}alerts WHERE ` +
        `alert_id = ANY(${param([...k.alertIds])})) x`
      : "",
    k.alertRunIds.size
      ? `UNION ALL SELECT 'alert_runs', row_to_json(x) FROM (SELECT ${columns("alert_runs")} FROM ${p}` +
        `alert_runs WHERE query_id = ANY(${param([...k.alertRunIds])})) x`
      : "",
  ].join("\n     ");
  return `(SELECT coalesce(json_agg(u), '[]'::json) FROM (
     SELECT 'organizations' AS t, row_to_json(x) AS r FROM (SELECT ${columns("organizations")} FROM ${p}organizations
       WHERE org_id = ANY(${org})) x
     UNION ALL SELECT 'balances', row_to_json(x) FROM (SELECT ${columns("balances")} FROM ${p}balances
       WHERE org_id = ANY(${org})) x
     UNION ALL SELECT 'api_keys', row_to_json(x) FROM (SELECT ${columns("api_keys")} FROM ${p}api_keys
       WHERE key_id = ANY(${key})) x
     UNION ALL SELECT 'usage', row_to_json(x) FROM (SELECT ${columns("usage")} FROM ${p}usage
       WHERE org_id = ANY(${org}) AND period = ANY(${periods})) x
     UNION ALL SELECT 'collection_usage', row_to_json(x) FROM (SELECT ${columns("collection_usage")}
       FROM ${p}collection_usage
       WHERE org_id = ANY(${org}) AND day = ANY(${days}) AND collection = ANY(${collections})) x
     ${memberRows}) u)`;
}

/** Rows fetched ahead by the caller, and the keys they cover. */
export interface PrefetchedRows {
  keys: PrefetchKeys;
  rows: { t: ProjectionTable; r: Record<string, unknown> }[];
}

/** Whether rows fetched for `outer` include every row `inner` names. */
export const coversAll = (outer: PrefetchKeys, inner: PrefetchKeys) =>
  (
    [
      "orgIds",
      "keyIds",
      "periods",
      "days",
      "collections",
      "inviteIds",
      "memberIds",
      "sessionIds",
      "ingestionIds",
      "endpointIds",
      "messageIds",
      "alertIds",
      "alertRunIds",
    ] as const
  ).every((f) => [...inner[f]].every((v) => outer[f].has(v)));

/** The rows an inline projection reads: fetched in one query, unless the caller fetched them already. */
async function rowsFor(
  tx: Queryable,
  tables: ProjectionTables,
  p: TablePrefix,
  events: StoredEvent[],
  provided?: PrefetchedRows,
): Promise<PrefetchedRows> {
  const keys = prefetchKeysOf(events);
  if (provided && coversAll(provided.keys, keys)) return provided;
  const params: unknown[] = [];
  const [one] = await tx.query<{ rows: PrefetchedRows["rows"] }>(
    `SELECT ${prefetchSubquery(tables, p, keys, (v) => (params.push(v), `$${params.length}`))} AS rows`,
    params,
  );
  return { keys, rows: one?.rows ?? [] };
}

/**
 * A reader over prefetched rows: every row an event can touch is named by the event (organization, key, usage
 * periods, collection days), so reading anything else is a bug; rows written by an earlier event (`written`) win.
 */
function readerOver(
  tables: ProjectionTables,
  { keys: k, rows }: PrefetchedRows,
  written: Map<string, object>,
): ProjectionReader {
  const fetched = new Map<string, object>();
  for (const { t, r } of rows) fetched.set(pkOf(tables[t], r), normalizeRow(tables[t], r));
  const covered = (table: ProjectionTable, row: Record<string, string>) => {
    if (table === "api_keys") return k.keyIds.has(row.key_id!);
    if (table === "invites") return k.inviteIds.has(row.invite_id!);
    if (table === "members") return k.memberIds.has(row.member_id!);
    if (table === "sessions") return k.sessionIds.has(row.session_id!);
    if (table === "ingestions") return k.ingestionIds.has(row.ingestion_id!);
    if (table === "webhook_endpoints") return k.endpointIds.has(row.endpoint_id!);
    if (table === "webhook_deliveries") return k.endpointIds.has(row.endpoint_id!) && k.messageIds.has(row.message_id!);
    if (table === "alerts") return k.alertIds.has(row.alert_id!);
    if (table === "alert_runs") return k.alertRunIds.has(row.query_id!);
    if (!k.orgIds.has(row.org_id!)) return false;
    if (table === "usage") return k.periods.has(row.period!);
    if (table === "collection_usage") return k.days.has(row.day!) && k.collections.has(row.collection!);
    return true;
  };
  const one = <T extends ProjectionTable>(table: T, key: Record<string, string>): RowOf[T] | undefined => {
    if (!covered(table, key))
      throw new Error(`inline projection read ${table} ${JSON.stringify(key)}, which its events do not name`);
    const id = pkOf(tables[table], key);
    return (written.get(id) ?? fetched.get(id)) as RowOf[T] | undefined;
  };
  return {
    organization: (orgId) => one("organizations", { org_id: orgId }),
    balance: (orgId) => one("balances", { org_id: orgId }),
    apiKey: (keyId) => one("api_keys", { key_id: keyId }),
    usage: (orgId, period) => one("usage", { org_id: orgId, period }),
    collectionUsage: (orgId, day, collection) => one("collection_usage", { org_id: orgId, day, collection }),
    invite: (inviteId) => one("invites", { invite_id: inviteId }),
    member: (memberId) => one("members", { member_id: memberId }),
    session: (sessionId) => one("sessions", { session_id: sessionId }),
    ingestion: (ingestionId) => one("ingestions", { ingestion_id: ingestionId }),
    webhookEndpoint: (endpointId) => one("webhook_endpoints", { endpoint_id: endpointId }),
    webhookDelivery: (messageId, endpointId) =>
      one("webhook_deliveries", { message_id: messageId, endpoint_id: endpointId }),
    alert: (alertId) => one("alerts", { alert_id: alertId }),
    alertRun: (queryId) => one("alert_runs", { query_id: queryId }),
  };
}

/**
 * Projects events in memory over prefetched rows, event after event, and keeps the last version of every row it
 * changed: `reader` shows the state after the events applied so far (a batch of charges decides each one on it),
 * `parts` writes every changed row once.
 */
export type MemoryProjector = ReturnType<typeof memoryProjector>;

export function memoryProjector(projection: FeatureProjection, prefetched: PrefetchedRows, p: TablePrefix = "proj_") {
  const { tables } = projection;
  const written = new Map<string, Change>();
  const writtenRows = new Map<string, object>();
  const reader = readerOver(tables, prefetched, writtenRows);
  return {
    reader,
    apply(events: StoredEvent[]): void {
      for (const e of events) {
        for (const change of project(projection, e, reader)) {
          const id = pkOf(tables[change.table], change.row);
          written.set(id, change);
          writtenRows.set(id, change.row);
        }
      }
    },
    parts: (): SqlPart[] => changeParts(tables, p, written),
    /**
     * The changes were committed: the next parts() writes only what is applied from now on; the rows stay as they are.
     */
    settled(): void {
      written.clear();
    },
  };
}

/** Every change as statement parts: one multi-row upsert per table. */
function changeParts(tables: ProjectionTables, p: TablePrefix, changes: Map<string, Change>): SqlPart[] {
  const byTable = new Map<ProjectionTable, object[]>();
  for (const c of changes.values()) byTable.set(c.table, [...(byTable.get(c.table) ?? []), c.row]);
  return [...byTable].map(([table, rows]): SqlPart => (param) => {
    const spec: TableSpec = tables[table];
    const cols = columnsOf(spec);
    const pk = spec.primaryKey;
    const values = rows.map((row) => `(${rowParams(spec, row).map(param).join(", ")})`);
    const updates = cols.filter((c) => !pk.includes(c)).map((c) => `${c} = EXCLUDED.${c}`);
    return (
      `INSERT INTO ${p}${table} (${cols.join(", ")}) VALUES ${values.join(", ")} ON CONFLICT (${pk.join(", ")}) ` +
      `DO ${updates.length ? `UPDATE SET ${updates.join(", ")}` : "NOTHING"}`
    );
  });
}

/**
 * Projects events into the live tables inside the transaction that appends them: one read, then one statement that
 * writes `before` (the events' own INSERT, when not yet written), every projection change and `after` (e.g. the query
 * record a charge pays for).
 */
export async function projectInline(
  tx: Queryable,
  projection: FeatureProjection,
  events: StoredEvent[],
  p: TablePrefix = "proj_",
  before: SqlPart[] = [],
  after: SqlPart[] = [],
  provided?: PrefetchedRows,
): Promise<void> {
  const projector = memoryProjector(projection, await rowsFor(tx, projection.tables, p, events, provided), p);
  projector.apply(events);
  const parts = [...before, ...projector.parts(), ...after];
  if (parts.length > 0) await runParts(tx, parts, events[0]?.streamId ?? "", "any");
}
