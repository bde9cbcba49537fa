// The records and list fields of the search use cases: what a query record keeps of a request and its outcome, what a
// response reports of a kept list, and the charge a search commits with its record.
import type { AuthContext } from "../auth/context.js";
import type { ChargeInput } from "../accounts/chargeBatch.js";
import { totalMicros, chargeLines } from "../../domain/organization.js";
import type { RetrievalOutcome, SearchRequestInput } from "./pipeline.js";
import { PAYLOAD_VERSION, queryRecordInsert, type QueryPayload, type QueryRecord } from "./queryCache.js";
import type { CachedRow } from "../../domain/resultRow.js";
import { pageStateOf, requestFingerprint, type PageExclusion } from "./paging.js";
import { cursorOf } from "../../domain/cursors.js";
import { EVERY_ROW } from "../../retrieval/rowSelection.js";
import type { ListFields, ListRequest } from "./searchContext.js";

/**
 * The list fields of a kept page, as its response reports them (also when an identical cursor call is answered from
 * it).
 */
export function listFieldsOf(
  queryId: string,
  payload: Pick<QueryPayload, "page" | "sorted" | "costCap" | "like">,
): ListFields {
  return {
    nextCursor: payload.page?.continues ? cursorOf(queryId) : null,
    ...(payload.sorted ? { sorted: payload.sorted } : {}),
    ...(payload.costCap
      ? {
          costCap: {
            withheld: payload.costCap.withheld,
            nextRowCostMicros:
              payload.costCap.nextRowCostMicros === null ? null : BigInt(payload.costCap.nextRowCostMicros),
          },
        }
      : {}),
    ...(payload.like ? { like: payload.like } : {}),
  };
}

export const LAST_PAGE: ListFields = { nextCursor: null };

/** Cost of the rows still locked, rounded once per collection like a charge. */
export function remainingCost(rows: CachedRow[], unlocked: Set<string>): bigint {
  return totalMicros(
    chargeLines(
      rows
        .filter((r) => !unlocked.has(r.id))
        .map((r) => ({ collection: r.collection, tokens: r.tokens, pricePer1000Micros: BigInt(r.pricePer1000Micros) })),
    ),
  );
}

export function recordOf(
  auth: AuthContext,
  kind: QueryRecord["kind"],
  now: Date,
  input: SearchRequestInput,
  outcome: RetrievalOutcome,
  fingerprint: string,
  page?: PageExclusion,
): QueryRecord {
  return {
    queryId: outcome.queryId,
    orgId: auth.org.id,
    keyId: auth.key.id,
    kind,
    payloadVersion: PAYLOAD_VERSION,
    createdAt: now,
    payload: {
      query: queryOfRecord(input),
      collections: outcome.requested.map((r) => r.name),
      rows: outcome.rows,
      filterWarnings: outcome.filterWarnings,
      journalMetricExpansions: outcome.journalMetricExpansions,
      filtersApplied: outcome.filtersApplied,
      ...(outcome.belowMinRelevance > 0 ? { belowMinRelevance: outcome.belowMinRelevance } : {}),
      ...(input.includeMetadata === false ? { metadataWithheld: true as const } : {}),
      page: pageStateOf(fingerprint, page, outcome.continues, input.selection?.onePerDocument ?? false),
      ...listPayload(input, outcome),
    },
  };
}

/** A search's charge: the record is what it pays for, so both commit together or neither does. */
export async function searchChargeOf(
  auth: AuthContext,
  endpoint: string,
  requestId: string | undefined,
  outcome: RetrievalOutcome,
  record: QueryRecord,
): Promise<ChargeInput> {
  return {
    orgId: auth.org.id,
    keyId: auth.key.id,
    queryId: outcome.queryId,
    endpoint,
    collections: outcome.lines,
    resultIds: outcome.rows.map((r) => r.id),
    requestId,
    alsoWrite: await queryRecordInsert(record),
  };
}

/** The query a record keeps: the text searched, or `like:ID` for the works near a work. */
export const queryOfRecord = (input: SearchRequestInput): string =>
  input.like ? `like:${input.like.work}` : (input.identifier ?? input.query);

/** What a query record keeps of the list fields a request asked for: the work searched near, the order, the cap. */
export function listPayload(
  input: SearchRequestInput,
  list: Pick<RetrievalOutcome, "sorted" | "costCap">,
): Pick<QueryPayload, "like" | "sorted" | "costCap"> {
  const like = input.like;
  return {
    ...(like ? { like: { work: like.work, collection: like.collection, docId: like.docId, title: like.title } } : {}),
    ...(list.sorted ? { sorted: list.sorted } : {}),
    ...(list.costCap
      ? {
          costCap: {
            withheld: list.costCap.withheld,
            nextRowCostMicros: list.costCap.nextRowCostMicros?.toString() ?? null,
          },
        }
      : {}),
  };
}

/** The list a request asks for, as a cursor is bound to it (request and cursor must agree on it). */
export function fingerprintOf(input: SearchRequestInput, list: ListRequest): string {
  const selection = input.selection ?? EVERY_ROW;
  return requestFingerprint({
    collections: input.collections,
    ...(list.like !== undefined ? { like: list.like.trim() } : { query: input.query }),
    filters: input.filters ?? null,
    constraints: input.constraints ?? null,
    minRelevance: selection.minRelevance,
    onePerDocument: selection.onePerDocument,
    sort: input.sort ?? "relevance",
  });
}
