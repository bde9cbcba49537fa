// Sandbox keys get deterministic synthetic results: the live response's shape, no licensed content, no cost. The
// whole pay-per-row flow works (search, preview, unlock, re-fetch, assisted), free and never in the event log or the
// ledger: a sandbox preview's unlocks are kept with its query record. The use cases without sandbox behaviour refuse
// sandbox keys here, saying why.
import { createHash } from "node:crypto";
import type { Queryable } from "../../eventstore/db.js";
import type { QueryRecord } from "./queryCache.js";
import type { CachedRow } from "../../domain/resultRow.js";
import { PAYLOAD_VERSION, teaserOf } from "./queryCache.js";
import type { AuthContext } from "../auth/context.js";
import { Rejection } from "../../domain/rejection.js";
import type { LikeTarget } from "./pipeline.js";
import { workCondition } from "./moreLikeThis.js";

/** What a sandbox key can do, for the refusals of what it cannot. */
const SANDBOX_SUPPORTS =
  "sandbox keys support collections and their journals, query, {collection}, preview, unlock, assisted, " +
  "results, journal requests and quota";

/**
 * 403 SANDBOX_UNSUPPORTED_ENDPOINT for a sandbox key: called first by each use case that has no sandbox behaviour
 * (tool calls), so both doors into a use case (REST, MCP) refuse alike; `reason` says why it has none.
 */
export function refuseSandbox(auth: AuthContext, useCase: string, reason: string): void {
  if (auth.billingMode !== "sandbox") return;
  throw new Rejection(
    "SANDBOX_UNSUPPORTED_ENDPOINT",
    `${useCase} has no sandbox behaviour: ${reason}. ${SANDBOX_SUPPORTS}; use a live key for this one`,
  );
}

/** The record of a sandbox key's search or preview: synthetic rows, marked so. */
export function sandboxRecord(
  auth: AuthContext,
  kind: "search" | "preview",
  queryId: string,
  now: Date,
  payload: Omit<QueryRecord["payload"], "synthetic">,
): QueryRecord {
  return {
    queryId,
    orgId: auth.org.id,
    keyId: auth.key.id,
    kind,
    payloadVersion: PAYLOAD_VERSION,
    createdAt: now,
    payload: { ...payload, synthetic: true },
  };
}

/** The rows of a sandbox preview unlocked so far (kept with its record). */
export const sandboxUnlockedIds = (record: QueryRecord): Set<string> => new Set(record.sandboxUnlocked ?? []);

/**
 * Unlocks rows of a sandbox key's preview, free: adds them to the record's unlocked rows in one statement (concurrent
 * unlocks add up, none is lost). Returns the rows unlocked before this call and after it.
 */
export async function unlockSandboxRows(
  db: Queryable,
  queryId: string,
  ids: string[],
): Promise<{ before: Set<string>; after: Set<string> }> {
  const rows = await db.query<{ before: string[] | null; after: string[] }>(
    `UPDATE query_records q SET sandbox_unlocked = ARRAY(SELECT DISTINCT u
      FROM unnest(COALESCE(o.before, '{}'::text[]) || $2::text[]) AS u ORDER BY u)
       FROM (SELECT sandbox_unlocked AS before FROM query_records WHERE query_id = $1 FOR UPDATE) o
      WHERE q.query_id = $1
      RETURNING o.before, q.sandbox_unlocked AS after`,
    [queryId, ids],
  );
  const row = rows[0];
  return { before: new Set(row?.before ?? []), after: new Set(row?.after ?? []) };
}

/**
 * The work a sandbox key's `like` searches near: the identifier checked by the live rules (a malformed one is the same
 * 422), then a synthetic work held by `collection`, so no real work's text reaches the synthetic rows.
 */
export function sandboxLike(work: string, collection: string): LikeTarget {
  workCondition(work);
  const id = work.trim();
  const digest = createHash("sha256").update(id).digest("hex");
  return {
    work: id,
    collection,
    docId: `syn_doc_${digest.slice(0, 12)}`,
    title: `Synthetic work ${id.slice(0, 60)}`,
    text: `More like ${id}`,
    exclude: () => ({ kind: "none" }),
  };
}

const TOPICS = ["cohort study", "randomized trial", "systematic review", "case series", "mechanistic study"];

export function syntheticRows(query: string, collections: string[], limit: number): CachedRow[] {
  const n = Math.min(limit, 3 * collections.length, 10);
  const rows: CachedRow[] = [];
  for (let i = 0; i < n; i++) {
    const collection = collections[i % collections.length]!;
    const digest = createHash("sha256").update(`${collection}\u0000${query}\u0000${i}`).digest("hex");
    const topic = TOPICS[parseInt(digest.slice(0, 2), 16) % TOPICS.length]!;
    const text =
      `[SYNTHETIC] This sandbox result ${i + 1} stands in for a passage about "${query}" from a ${topic}. It ` +
      "contains no licensed content and is generated from the query so the same request always gives the same " +
      "result.";
    rows.push({
      id: `syn_${digest.slice(0, 20)}`,
      collection,
      physical: collection,
      text,
      teaser: teaserOf(text),
      metadata: {
        chunk_index: 0,
        doc_id: `syn_doc_${digest.slice(20, 32)}`,
        title: `Synthetic ${topic} on ${query.slice(0, 60)}`,
        authors: ["Sandbox A", "Sandbox B"],
        doi: null,
        journal: "Sandbox Journal of Synthetic Results",
        publication_date: `20${10 + (parseInt(digest.slice(2, 4), 16) % 15)}-01-01`,
        article_type: "other",
        synthetic: true,
      },
      relevance: Math.round((0.95 - i * 0.05) * 1000) / 1000,
      tokens: 0,
      costMicros: "0",
      pricePer1000Micros: "0",
      figureCount: 0,
    });
  }
  return rows;
}
