// Query records kept 7 days by queryId: the rows a search or preview delivered, for free re-fetch and unlock.
import { inflateRawSync } from "node:zlib";
import type { Queryable } from "../../eventstore/db.js";
import { runParts, type SqlPart } from "../../eventstore/eventStore.js";
import type { CachedRow } from "../../domain/resultRow.js";
import type { QueryUnderstanding } from "../../reasoner/port.js";
import { Rejection } from "../../domain/rejection.js";
import type { PageState } from "./paging.js";
import { deflateText } from "./payloadDeflate.js";

/** Bumped when the cached row shape changes; older records answer 410 CACHED_RESULT_EXPIRED. */
export const PAYLOAD_VERSION = 1;
const CACHE_LIFETIME_MS = 7 * 24 * 60 * 60 * 1000;

/** What an assisted answer holds beyond its rows (whose `relevance` is the judge's score). */
export interface AssistedPayload {
  status: "results" | "no_relevant_results";
  iterationsRun: number;
  understanding: QueryUnderstanding;
  /** which reasoner answered: 'builtin' or 'llm:<model>' */
  reasoner: string;
  /** row id -> the judge's verdict and the sub-question whose search found the row */
  verdicts: Record<string, { judgeScore: number; matchedTerms: string[]; rationale: string; subQuestion: string }>;
  /** verified rows left out to stay within maxCost */
  withheldByMaxCost: number;
  /** the own price of the first row left out, micro-credits */
  nextRowCostMicros?: string;
  /** the request carried maxCost: the answer says what the cap held back, none included */
  maxCostSent?: true;
  tokensCharged: number;
  /** what the run weighed and sold (screeningOf); absent on answers recorded before it was kept */
  screening?: Screening;
}

/** How much of what an assisted search weighed it sold, and where the rest can be screened. */
export interface Screening {
  /** candidate passages the judge weighed */
  candidatesJudged: number;
  /** distinct works among them the judge verified */
  worksVerified: number;
  /** works delivered (and charged) */
  delivered: number;
  note: string;
}

export interface QueryPayload {
  query: string;
  collections: string[];
  rows: CachedRow[];
  filterWarnings?: unknown[];
  journalMetricExpansions?: unknown[];
  filtersApplied?: unknown;
  /** rows the search or preview held back by min_relevance (absent: none) */
  belowMinRelevance?: number;
  /** the search asked for no metadata: re-fetched rows carry metadata null as well */
  metadataWithheld?: true;
  /** set on the record of an assisted search */
  assisted?: AssistedPayload;
  /**
   * a sandbox key's record: synthetic rows, free, its unlocks kept with the record (sandboxUnlocked), never in the
   * ledger
   */
  synthetic?: true;
  /** what a cursor needs to continue this list (search and preview records) */
  page?: PageState;
  /** a more-like-this request: the work as sent and where it was found */
  like?: { work: string; collection: string; docId: string; title: string | null };
  /** a sorted request: the order, its threshold and how many candidates it ordered */
  sorted?: { by: string; minRelevance: number; candidates: number };
  /** a request with a price cap: rows it held back and the own price of the first of them (micro-credits) */
  costCap?: { withheld: number; nextRowCostMicros: string | null };
}

export interface QueryRecord {
  queryId: string;
  orgId: string;
  keyId: string;
  /**
   * search and assisted rows were paid for when made; preview rows are paid for by unlocking them; an alert run's once
   * delivered
   */
  kind: "search" | "preview" | "assisted" | "alert";
  payloadVersion: number;
  createdAt: Date;
  payload: QueryPayload;
  /** an assisted answer nobody received: its charge was refunded at this time, and it is never served again */
  refundedUndeliveredAt?: Date;
  /** the rows of a sandbox key's synthetic preview unlocked so far */
  sandboxUnlocked?: string[];
}

/** A record's payload as it is stored: its JSON deflated (on a thread beside the HTTP thread: payloadDeflate.ts). */
export const deflatePayload = (payload: QueryPayload): Promise<Buffer> => deflateText(JSON.stringify(payload));

/**
 * The record's INSERT as a statement part, so a charge can write it in the same statement as its event. The payload
 * (the full text of every row) goes in deflated (`deflated`: deflatePayload of its payload): parsing it as JSONB and
 * compressing it again in the database made a charge in a batch of 8 cost the embedded store 2.1 ms instead of 1.3 ms.
 */
export function queryRecordPart(r: QueryRecord, deflated: Uint8Array): SqlPart {
  const values = [r.queryId, r.orgId, r.keyId, r.kind, r.payloadVersion, r.createdAt.toISOString(), deflated];
  return (param) =>
    `INSERT INTO query_records
       (query_id, org_id, key_id, kind, payload_version, created_at, payload_deflated, query_text)
     VALUES (${[...values, r.payload.query].map(param).join(", ")})
     ON CONFLICT (query_id) DO NOTHING`;
}

/**
 * queryRecordPart once the payload is deflated: a charge awaits it before it is queued, so the record still commits
 * with the charge or not at all.
 */
export const queryRecordInsert = async (r: QueryRecord): Promise<SqlPart> =>
  queryRecordPart(r, await deflatePayload(r.payload));

export async function saveQueryRecord(db: Queryable, r: QueryRecord): Promise<void> {
  await runParts(db, [await queryRecordInsert(r)]);
}

type QueryRecordRow = {
  query_id: string;
  org_id: string;
  key_id: string;
  kind: string;
  payload_version: number;
  created_at: Date | string;
  payload: QueryPayload | null;
  payload_deflated: Uint8Array | null;
  refunded_undelivered_at: Date | string | null;
  sandbox_unlocked: string[] | null;
};
const RECORD_COLUMNS =
  "query_id, org_id, key_id, kind, payload_version, created_at, payload, payload_deflated, " +
  "refunded_undelivered_at, sandbox_unlocked";

function recordOfRow(r: QueryRecordRow): QueryRecord {
  return {
    queryId: r.query_id,
    orgId: r.org_id,
    keyId: r.key_id,
    kind: r.kind as QueryRecord["kind"],
    payloadVersion: r.payload_version,
    createdAt: new Date(r.created_at),
    payload: r.payload_deflated
      ? (JSON.parse(inflateRawSync(r.payload_deflated).toString("utf8")) as QueryPayload)
      : r.payload!,
    ...(r.refunded_undelivered_at ? { refundedUndeliveredAt: new Date(r.refunded_undelivered_at) } : {}),
    ...(r.sandbox_unlocked ? { sandboxUnlocked: r.sandbox_unlocked } : {}),
  };
}

export async function loadQueryRecord(db: Queryable, queryId: string): Promise<QueryRecord | undefined> {
  const rows = await db.query<QueryRecordRow>(`SELECT ${RECORD_COLUMNS} FROM query_records WHERE query_id = $1`, [
    queryId,
  ]);
  return rows[0] ? recordOfRow(rows[0]) : undefined;
}

/** Records in one round trip, by id (those not found are missing). */
export async function loadQueryRecords(db: Queryable, queryIds: string[]): Promise<Map<string, QueryRecord>> {
  if (queryIds.length === 0) return new Map();
  const rows = await db.query<QueryRecordRow>(`SELECT ${RECORD_COLUMNS} FROM query_records WHERE query_id = ANY($1)`, [
    queryIds,
  ]);
  return new Map(rows.map(recordOfRow).map((r) => [r.queryId, r]));
}

/** Two records in one round trip (a cursor's page and the page it may already have made), by id. */
export async function loadQueryRecordPair(
  db: Queryable,
  first: string,
  second: string,
): Promise<[QueryRecord | undefined, QueryRecord | undefined]> {
  const rows = (
    await db.query<QueryRecordRow>(`SELECT ${RECORD_COLUMNS} FROM query_records WHERE query_id IN ($1, $2)`, [
      first,
      second,
    ])
  ).map(recordOfRow);
  return [rows.find((r) => r.queryId === first), rows.find((r) => r.queryId === second)];
}

/**
 * Marks the record of an assisted answer refunded for want of delivery; written in the statement of its refund event.
 */
export function markRefundedUndelivered(queryId: string, at: Date): SqlPart {
  return (param) =>
    `UPDATE query_records SET refunded_undelivered_at = ${param(at.toISOString())} WHERE query_id = ${param(queryId)}`;
}

/**
 * A refunded answer is gone: 410, never served free (a caller could otherwise hang up on purpose, be refunded, and
 * read it anyway) and never charged again behind the caller's back; the search is run again instead.
 */
export function assertNotRefunded(record: QueryRecord): void {
  if (record.refundedUndeliveredAt) {
    throw new Rejection(
      "CACHED_RESULT_EXPIRED",
      `the answer of query ${record.queryId} never reached its caller, so its charge was refunded (` +
        `${record.refundedUndeliveredAt.toISOString()}) and it is no longer kept; run the search again`,
    );
  }
}

type RecordFreshness = "fresh" | "expired";

/** Until when a record made at `createdAt` is re-fetched free (X-Cache-Expires). */
export const cachedUntil = (createdAt: Date): Date => new Date(createdAt.getTime() + CACHE_LIFETIME_MS);

export function freshness(r: QueryRecord, now: Date): RecordFreshness {
  if (r.payloadVersion !== PAYLOAD_VERSION) return "expired";
  return now.getTime() >= cachedUntil(r.createdAt).getTime() ? "expired" : "fresh";
}

/**
 * The one refusal of an expired record (410 CACHED_RESULT_EXPIRED), for a re-fetch and for an unlock's charge: `again`
 * is what the client runs to have rows anew.
 */
export function assertFresh(record: QueryRecord, now: Date, again: "search" | "preview"): void {
  if (freshness(record, now) === "expired")
    throw new Rejection(
      "CACHED_RESULT_EXPIRED",
      `query ${record.queryId} has expired (results are kept 7 days, and a change of the result format retires ` +
        `older ones); run the ${again} again`,
    );
}

/** The record of a query made with this key (re-fetch, unlock): 404 for unknown or another key's, 410 once expired. */
export async function loadOwnQueryRecord(
  db: Queryable,
  keyId: string,
  queryId: string,
  now: Date,
): Promise<QueryRecord> {
  const record = await loadQueryRecord(db, queryId);
  if (!record || record.keyId !== keyId)
    throw new Rejection("NOT_FOUND", `query ${queryId} not found for this API key`);
  assertFresh(record, now, "search");
  assertNotRefunded(record);
  return record;
}

/** A locked row shows a teaser: the opening words of the chunk, cut at a word boundary. */
export function teaserOf(text: string, maxChars = 160): string {
  const flat = flatOpening(text, maxChars);
  if (flat.length <= maxChars)
    return flat.length > 40 ? `${flat.slice(0, Math.floor(flat.length / 2)).replace(/\s+\S*$/, "")}...` : `${flat}...`;
  return `${flat.slice(0, maxChars).replace(/\s+\S*$/, "")}...`;
}

/**
 * The text with whitespace runs collapsed and trimmed, or only an opening of it when that already decides the
 * teaser: collapsing a prefix of the text gives a prefix of the collapsed whole, and one longer than maxChars + 1
 * fixes the first maxChars characters (trimming the end removes at most one space). Search builds a teaser per hit,
 * so the opening skips the collapsing regex when it has nothing to collapse, as chunk text rarely does.
 */
function flatOpening(text: string, maxChars: number): string {
  const prefix = text.slice(0, 2 * maxChars + 2);
  const opening = (COLLAPSIBLE.test(prefix) ? prefix.replace(/\s+/g, " ") : prefix).trimStart();
  return opening.length > maxChars + 1 ? opening : text.replace(/\s+/g, " ").trim();
}

/** whitespace that collapsing would change: a run, or anything other than a single space */
const COLLAPSIBLE = /\s\s|[^\S ]/;
