// The organization's recent queries for the dashboard: its paid searches (its stream's SearchCharged events) and its
// previews (their kept records, with what unlocking their rows has cost so far), newest first, through the filter of
// recentQueryRules.ts, and which key ran a kept query (its rows are read through the playground, which proves an
// answer's delivery first). Read-only, scoped to one organization.
import type { Queryable } from "../../eventstore/db.js";
import { orgStream, type DomainEvent } from "../../domain/events.js";
import { cachedUntil, loadQueryRecord } from "../search/queryCache.js";
import { NO_FILTER, passesQueryFilter, type QueryFilter } from "./recentQueryRules.js";

type SearchChargedData = Extract<DomainEvent, { type: "SearchCharged" }>["data"];

export interface RecentQuery {
  queryId: string;
  /** a paid search (its rows owned) or a free preview (its rows locked until unlocked) */
  kind: "search" | "preview";
  /** what was asked; null when the search's record is gone */
  queryText: string | null;
  endpoint: string;
  /** rows delivered; null for a search logged before charges counted them */
  resultCount: number | null;
  collections: string[];
  /** a search's charge; a preview's unlocks so far */
  costMicros: bigint;
  tokens: number;
  time: string;
  keyId: string;
  keyPrefix: string | null;
  keyName: string | null;
  /** re-fetchable for free until then */
  cachedUntil: string;
}

export interface RecentQueryOptions {
  limit?: number;
  queryId?: string;
  filter?: QueryFilter;
}

/** The filter's SQL parameters for both reads: key, then the time range. */
const rangeParams = (f: QueryFilter) => [f.keyId, f.fromTime, f.untilTime];

async function searchesOf(db: Queryable, orgId: string, limit: number, queryId: string | null, f: QueryFilter) {
  const rows = await db.query<{
    data: SearchChargedData;
    recorded_at: Date | string;
    key_prefix: string | null;
    key_name: string | null;
    query_text: string | null;
    recorded: boolean;
  }>(
    `SELECT e.data, e.recorded_at, k.key_prefix, k.name AS key_name,
       COALESCE(q.query_text, q.payload->>'query') AS query_text, q.query_id IS NOT NULL AS recorded
     FROM events e LEFT JOIN proj_api_keys k ON k.key_id = e.data->>'keyId'
       LEFT JOIN query_records q ON q.query_id = e.data->>'queryId'
     WHERE e.stream_id = $1 AND e.type = 'SearchCharged' AND ($3::text IS NULL OR e.data->>'queryId' = $3)
       AND ($4::text IS NULL OR e.data->>'keyId' = $4)
       AND ($5::timestamptz IS NULL OR e.recorded_at >= $5) AND ($6::timestamptz IS NULL OR e.recorded_at < $6)
       AND ($7::text IS NULL OR EXISTS (SELECT 1 FROM jsonb_array_elements(e.data->'collections') c
         WHERE lower(c->>'collection') = $7))
       AND ($8::numeric IS NULL OR (e.data->>'amountMicros')::numeric >= $8)
       AND ($9::numeric IS NULL OR (e.data->>'amountMicros')::numeric <= $9)
     ORDER BY e.stream_version DESC LIMIT $2`,
    [
      orgStream(orgId),
      limit,
      queryId,
      ...rangeParams(f),
      f.collection,
      f.minCostMicros?.toString() ?? null,
      f.maxCostMicros?.toString() ?? null,
    ],
  );
  return Promise.all(
    rows.map(async (r): Promise<RecentQuery> => {
      const time = new Date(r.recorded_at).toISOString();
      // a record written before query_text existed keeps the text only inside its deflated payload
      const queryText =
        r.query_text ?? (r.recorded ? ((await loadQueryRecord(db, r.data.queryId))?.payload.query ?? null) : null);
      const perCollection = r.data.collections.map((c) => c.results);
      return {
        queryId: r.data.queryId,
        kind: "search",
        queryText,
        endpoint: r.data.endpoint,
        collections: r.data.collections.map((c) => c.collection),
        resultCount:
          r.data.resultIds?.length ??
          (perCollection.every((n) => n !== undefined) ? perCollection.reduce((a: number, n) => a + n!, 0) : null),
        costMicros: BigInt(r.data.amountMicros),
        tokens: r.data.tokens,
        time,
        keyId: r.data.keyId,
        keyPrefix: r.key_prefix,
        keyName: r.key_name,
        cachedUntil: cachedUntil(new Date(time)).toISOString(),
      };
    }),
  );
}

/** The organization's previews (key and time range in SQL; collection and cost once their records are read). */
async function previewsOf(db: Queryable, orgId: string, limit: number, queryId: string | null, f: QueryFilter) {
  const rows = await db.query<{
    query_id: string;
    key_id: string;
    created_at: Date | string;
    key_prefix: string | null;
    key_name: string | null;
  }>(
    `SELECT q.query_id, q.key_id, q.created_at, k.key_prefix, k.name AS key_name
     FROM query_records q LEFT JOIN proj_api_keys k ON k.key_id = q.key_id
     WHERE q.org_id = $1 AND q.kind = 'preview' AND ($3::text IS NULL OR q.query_id = $3)
       AND ($4::text IS NULL OR q.key_id = $4)
       AND ($5::timestamptz IS NULL OR q.created_at >= $5) AND ($6::timestamptz IS NULL OR q.created_at < $6)
     ORDER BY q.created_at DESC LIMIT $2`,
    [orgId, limit, queryId, ...rangeParams(f)],
  );
  if (rows.length === 0) return [];
  const spent = await db.query<{ query_id: string; micros: string }>(
    `SELECT data->>'queryId' AS query_id, SUM((data->>'amountMicros')::numeric)::text AS micros FROM events
     WHERE stream_id = $1 AND type = 'ResultsUnlocked' AND data->>'queryId' = ANY($2) GROUP BY 1`,
    [orgStream(orgId), rows.map((r) => r.query_id)],
  );
  const spentOf = new Map(spent.map((s) => [s.query_id, BigInt(s.micros.split(".")[0]!)]));
  const listed = await Promise.all(
    rows.map(async (r): Promise<RecentQuery> => {
      const record = await loadQueryRecord(db, r.query_id);
      const time = new Date(r.created_at).toISOString();
      return {
        queryId: r.query_id,
        kind: "preview",
        queryText: record?.payload.query ?? null,
        endpoint: "/api/v1/search/preview",
        resultCount: record?.payload.rows.length ?? null,
        collections: record?.payload.collections ?? [],
        costMicros: spentOf.get(r.query_id) ?? 0n,
        tokens: 0,
        time,
        keyId: r.key_id,
        keyPrefix: r.key_prefix,
        keyName: r.key_name,
        cachedUntil: cachedUntil(new Date(time)).toISOString(),
      };
    }),
  );
  return listed.filter((q) => passesQueryFilter(q, f));
}

/**
 * The organization's searches and previews, newest first, with what was asked and the key's name; `queryId` narrows
 * it to that one (the ledger links to it), `filter` to those passing it.
 */
export async function recentQueriesOf(
  db: Queryable,
  orgId: string,
  opts: RecentQueryOptions = {},
): Promise<RecentQuery[]> {
  const limit = opts.limit ?? 50;
  const f = opts.filter ?? NO_FILTER;
  const [searches, previews] = await Promise.all([
    searchesOf(db, orgId, limit, opts.queryId ?? null, f),
    previewsOf(db, orgId, limit, opts.queryId ?? null, f),
  ]);
  return [...searches, ...previews].sort((a, b) => (a.time < b.time ? 1 : a.time > b.time ? -1 : 0)).slice(0, limit);
}

/** The organization and key of a kept search or preview; null when none is kept under that id. */
export async function queryOwnerOf(db: Queryable, queryId: string): Promise<{ orgId: string; keyId: string } | null> {
  const [row] = await db.query<{ org_id: string; key_id: string }>(
    "SELECT org_id, key_id FROM query_records WHERE query_id = $1",
    [queryId],
  );
  return row ? { orgId: row.org_id, keyId: row.key_id } : null;
}
