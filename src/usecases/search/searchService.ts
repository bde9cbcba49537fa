// Search use cases: paid search, free preview, free re-fetch. Each one enforces limits, then money, then caches.
import type { Db } from "../../eventstore/db.js";
import type { Accounts } from "../accounts/accounts.js";
import type { ChargeInput } from "../accounts/chargeBatch.js";
import type { AuthContext } from "../auth/context.js";
import { resolveTargets } from "../auth/keyScope.js";
import { Rejection } from "../../domain/rejection.js";
import { assertSearchPayable, totalMicros, totalTokens, chargeLines } from "../../domain/organization.js";
import {
  assertCollectionsReady,
  prepareRetrieval,
  retrieve,
  shapeList,
  type PreparedRetrieval,
  type RetrievalOutcome,
  type SearchDeps,
  type SearchRequestInput,
} from "./pipeline.js";
import {
  cachedUntil,
  freshness,
  loadOwnQueryRecord,
  loadQueryRecord,
  loadQueryRecordPair,
  PAYLOAD_VERSION,
  queryRecordInsert,
  saveQueryRecord,
  type CachedRow,
  type QueryPayload,
  type QueryRecord,
} from "./queryCache.js";
import {
  assertContinues,
  exclusionAfter,
  nextPageQueryId,
  pageStateOf,
  requestFingerprint,
  type PageExclusion,
} from "./paging.js";
import { resolveLike } from "./moreLikeThis.js";
import { cursorOf, queryIdOfCursor } from "../../domain/cursors.js";
import { sandboxLike, sandboxRecord, sandboxUnlockedIds, syntheticRows } from "./sandbox.js";
import { assertSearchableQuery, queryProblem } from "./queryValidation.js";
import {
  admitSearchRequest,
  guarded,
  takeMinuteBudget,
  minuteBudgetExceeded,
  quotaFromUsage,
  quotaStatus,
  takePreviewBudget,
  type QuotaStatus,
} from "../limits/quotas.js";
import { assertQuotaLeft } from "../../domain/queryQuota.js";
import { countInWindow, readWindow } from "../limits/rateWindows.js";
import {
  claimIdempotencyKey,
  completeIdempotencyKey,
  idempotencyKeyOfAnotherKey,
  releaseIdempotencyKey,
} from "./previewIdempotency.js";
import {
  renderFigureImages,
  type FigureImageRenderer,
  type FigureImages,
  type ImageOptions,
} from "../figures/figureImages.js";
import { randomUUID } from "node:crypto";
import { detectCatalogueQuestion, type CatalogueQuestion } from "../catalogue/intent.js";
import type { CatalogueService } from "../catalogue/catalogueService.js";
import type { Discovery } from "../catalogue/discovery.js";
import { EVERY_ROW } from "../../retrieval/rowSelection.js";
import type { VectorsBackfilling } from "../../retrieval/vectorsBackfilling.js";

export const INVALID_QUERY_LIMIT_PER_MINUTE = 30;

export interface BillingOutcome {
  mode: AuthContext["billingMode"];
  tokens: number;
  costMicros: bigint;
  /** balance after the request */
  balanceMicros: bigint;
}

/**
 * What a response says about its list beyond the rows: the cursor of the next page, and the sort, cap and work it
 * applied.
 */
export interface ListFields {
  /** null when the list has no further page */
  nextCursor: string | null;
  sorted?: { by: string; minRelevance: number; candidates: number };
  costCap?: { withheld: number; nextRowCostMicros: bigint | null };
  like?: { work: string; collection: string; docId: string; title: string | null };
}

/** What a search or preview call asks beyond the pipeline's input. */
export interface ListRequest {
  /** the nextCursor of an earlier page of the same request */
  cursor?: string;
  /** like.work as sent: the works nearest this one instead of a query */
  like?: string;
}

/**
 * The list fields of a kept page, as its response reports them (also when an identical cursor call is answered from
 * it).
 */
export function listFieldsOf(queryId: string, payload: QueryPayload): ListFields {
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

const LAST_PAGE: ListFields = { nextCursor: null };

/** What a retrieval says beside its rows: its filter notes, and the vector backfill's share only while one runs. */
const retrievalNotes = (outcome: RetrievalOutcome) => ({
  filterWarnings: outcome.filterWarnings,
  journalMetricExpansions: outcome.journalMetricExpansions,
  filtersApplied: outcome.filtersApplied,
  ...(outcome.vectorsBackfilling ? { vectorsBackfilling: outcome.vectorsBackfilling } : {}),
});

export interface SearchOutcome {
  queryId: string;
  rows: CachedRow[];
  list: ListFields;
  /** rows held back by min_relevance: neither returned nor charged */
  belowMinRelevance: number;
  latencyMs: number;
  filterWarnings?: unknown[];
  journalMetricExpansions?: unknown[];
  filtersApplied?: unknown;
  billing: BillingOutcome;
  quota: QuotaStatus;
  /**
   * the catalogue's answer to a catalogue question sent without filters (then rows are empty and nothing is charged)
   */
  discovery?: Discovery;
  /**
   * until when GET /results/{queryId} re-fetches these rows free (absent for a catalogue answer, which keeps no rows)
   */
  cachedUntil?: Date;
  /** where the time went: limits and money (admission, charge, record) versus retrieval */
  timings: { billingMs: number; retrievalMs: number };
  /** the dense and hybrid collections searched whose vector backfill runs, with their share; absent when none */
  vectorsBackfilling?: VectorsBackfilling[];
}

export interface PreviewOutcome {
  queryId: string;
  rows: CachedRow[];
  list: ListFields;
  /** rows held back by min_relevance: not previewed, so not unlockable */
  belowMinRelevance: number;
  unlocked: Set<string>;
  filterWarnings?: unknown[];
  journalMetricExpansions?: unknown[];
  filtersApplied?: unknown;
  /** set when the request carried an Idempotency-Key */
  idempotency?: "created" | "replayed";
  /** the catalogue's answer to a catalogue question sent without filters */
  discovery?: Discovery;
}

export interface RefetchOutcome {
  record: QueryRecord;
  unlocked: Set<string>;
  /** row id -> figure id -> base64 image, for unlocked rows when figures were asked for */
  images: FigureImages;
  /** until when it is re-fetched free */
  cachedUntil: Date;
}

export interface ServiceDeps extends SearchDeps {
  db: Db;
  accounts: Accounts;
  clock: () => Date;
  figureImages?: FigureImageRenderer;
  /** answers catalogue questions sent without filters; without it every query is searched */
  catalogue?: CatalogueService;
}

export type SearchService = ReturnType<typeof createSearchService>;

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

function recordOf(
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
async function searchChargeOf(
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
const queryOfRecord = (input: SearchRequestInput): string => (input.like ? `like:${input.like.work}` : input.query);

/** What a query record keeps of the list fields a request asked for: the work searched near, the order, the cap. */
function listPayload(
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
function fingerprintOf(input: SearchRequestInput, list: ListRequest): string {
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

export function createSearchService(deps: ServiceDeps) {
  const { db, accounts, clock } = deps;

  const invalidScope = (auth: AuthContext) => `invalid:${auth.org.id}`;
  const tooManyInvalid = (now: number) =>
    new Rejection(
      "SEARCH_RATE_LIMITED",
      `more than ${INVALID_QUERY_LIMIT_PER_MINUTE} queries were rejected as INVALID_QUERY in the last minute; ` +
        "fix the queries, then retry",
      {
        retryAfterSeconds: Math.max(1, Math.ceil((60_000 - (now % 60_000)) / 1000)),
      },
    );

  /**
   * INVALID_QUERY rejections are counted; past 30 a minute the organization is told to slow down.
   * `invalidSoFar` is the count when the caller already read it (the search path reads it with the quota).
   */
  async function withQueryGuard<T>(auth: AuthContext, fn: () => Promise<T>, invalidSoFar?: number): Promise<T> {
    const now = clock().getTime();
    const scope = invalidScope(auth);
    const tooMany = () => tooManyInvalid(now);
    const seen = invalidSoFar ?? (await guarded("the quota store", () => readWindow(db, scope, 60_000, now)));
    if (seen > INVALID_QUERY_LIMIT_PER_MINUTE) throw tooMany();
    try {
      return await fn();
    } catch (err) {
      if (err instanceof Rejection && err.code === "INVALID_QUERY") {
        const { count } = await guarded("the quota store", () => countInWindow(db.relaxed, scope, 60_000, now));
        if (count > INVALID_QUERY_LIMIT_PER_MINUTE) throw tooMany();
      }
      throw err;
    }
  }

  /**
   * Refuses early, before any search work or budget, what the charge would refuse anyway: the decider's rules, no I/O.
   */
  function refuseUnpayable(auth: AuthContext): void {
    assertSearchPayable(auth.org, auth.key);
  }

  /** Takes the per-minute slot and checks the guard and the quota, in one round trip. */
  async function admit(auth: AuthContext, now: Date, countsAsQuery: boolean): Promise<void> {
    const admission = await admitSearchRequest(db, auth.org, invalidScope(auth), INVALID_QUERY_LIMIT_PER_MINUTE, now);
    if (admission.invalidQueries > INVALID_QUERY_LIMIT_PER_MINUTE) throw tooManyInvalid(now.getTime());
    if (!admission.minuteTaken) throw minuteBudgetExceeded(auth.org, admission, now);
    if (countsAsQuery) assertQuotaLeft(auth.org.limits, admission.usage, now);
  }

  function zeroBilling(auth: AuthContext): BillingOutcome {
    return { mode: auth.billingMode, tokens: 0, costMicros: 0n, balanceMicros: auth.org.balanceMicros };
  }

  /**
   * The synthetic rows of a sandbox key's search or preview, listed by the live rules (order, selection, cap: the
   * response's fields are the live ones) and kept as its record.
   */
  async function sandboxRows(
    auth: AuthContext,
    kind: "search" | "preview",
    input: SearchRequestInput,
    now: Date,
    { targets }: PreparedRetrieval,
  ) {
    const names = targets.map((t) => t.requested.name);
    // the live rules on the synthetic rows, so a sandbox integration sees min_relevance, sort and max_cost work
    const list = shapeList(syntheticRows(input.query, names, input.limit), input, false);
    const belowMinRelevance = list.selected.belowMinRelevance;
    const queryId = randomUUID();
    const payload = {
      query: queryOfRecord(input),
      collections: names,
      rows: list.rows,
      ...(belowMinRelevance > 0 ? { belowMinRelevance } : {}),
      ...(input.includeMetadata === false ? { metadataWithheld: true as const } : {}),
      ...listPayload(input, list),
    };
    const record = sandboxRecord(auth, kind, queryId, now, payload);
    await saveQueryRecord(db, record);
    return { queryId, rows: list.rows, belowMinRelevance, list: listFieldsOf(queryId, record.payload) };
  }

  async function sandboxSearch(
    auth: AuthContext,
    input: SearchRequestInput,
    now: Date,
    started: number,
    prepared: PreparedRetrieval,
  ): Promise<SearchOutcome> {
    const { queryId, rows, belowMinRelevance, list } = await sandboxRows(auth, "search", input, now, prepared);
    const quota = await quotaStatus(db, auth.org, now);
    const latencyMs = performance.now() - started;
    return {
      queryId,
      rows,
      list,
      belowMinRelevance,
      latencyMs: Math.round(latencyMs),
      billing: zeroBilling(auth),
      quota,
      timings: { billingMs: latencyMs, retrievalMs: 0 },
      cachedUntil: cachedUntil(now),
      ...(prepared.plan ? { filtersApplied: prepared.plan.filtersApplied } : {}),
    };
  }

  const loadOwnRecord = (auth: AuthContext, queryId: string): Promise<QueryRecord> =>
    loadOwnQueryRecord(db, auth.key.id, queryId, clock());

  /**
   * The rows of a record its key may read in full: a search's all; a preview's those unlocked (a sandbox preview's kept
   * with it).
   */
  async function unlockedFor(record: QueryRecord): Promise<Set<string>> {
    if (record.kind !== "preview") return new Set(record.payload.rows.map((r) => r.id));
    if (record.payload.synthetic) return sandboxUnlockedIds(record);
    return accounts.unlockedIds(record.queryId);
  }

  /**
   * A catalogue question is one sent without filters that asks what the service holds; a request with filters is
   * searched.
   */
  // a price question may name a collection ("is scifact expensive?"), by its name or its display name
  const collectionNames = [...deps.catalog.collections, ...deps.catalog.metaCollections].flatMap((c) => [
    c.name,
    c.displayName,
  ]);
  const catalogueQuestionOf = (input: SearchRequestInput): CatalogueQuestion | null =>
    deps.catalogue && input.filters == null ? detectCatalogueQuestion(input.query, collectionNames) : null;

  /**
   * Answered from the catalogue: free (no credits, quota, trial query or preview hour); one slot of the per-minute
   * budget.
   */
  const answerFromCatalogue = (
    auth: AuthContext,
    input: SearchRequestInput,
    question: CatalogueQuestion,
    endpoint: string,
  ): Promise<Discovery> => deps.catalogue!.answer(auth, input.collections, question, endpoint);

  /**
   * The gate of every paid search (/query, /{collection}, assisted): an invalid query is counted by the guard and
   * answered without touching the budget; a collection still ingesting answers 503; a catalogue question is answered
   * free; a sandbox key goes its own way; any other request must be payable and takes its per-minute slot and one
   * query of the quota.
   */
  async function gate(
    auth: AuthContext,
    input: SearchRequestInput,
    endpoint: string,
    now: Date,
  ): Promise<
    { kind: "catalogue"; discovery: Discovery } | { kind: "sandbox" | "admitted"; prepared: PreparedRetrieval }
  > {
    if (!input.like && queryProblem(input.query))
      await withQueryGuard(auth, async () => assertSearchableQuery(input.query));
    const question = input.like ? null : catalogueQuestionOf(input);
    if (question) {
      // a collection still ingesting answers 503 before anything is taken or charged
      assertCollectionsReady(deps, auth, input.collections);
      return { kind: "catalogue", discovery: await answerFromCatalogue(auth, input, question, endpoint) };
    }
    // scope, existence, filters and readiness are settled before the budget: a refused request takes nothing
    const prepared = await prepareRetrieval(deps, auth, input);
    if (auth.billingMode === "sandbox") {
      // sandbox calls are free and count no query, but they are requests: they take the per-minute budget
      await admit(auth, now, false);
      return { kind: "sandbox", prepared };
    }
    refuseUnpayable(auth);
    await admit(auth, now, true);
    return { kind: "admitted", prepared };
  }

  /**
   * A cursor's page: the page it continues, checked (organization, kind, same request, a list that goes on), and the
   * page it asks for when an identical call already made it. One round trip, and only when a cursor is sent.
   */
  async function continuation(
    auth: AuthContext,
    kind: "search" | "preview",
    input: SearchRequestInput,
    cursor: string,
    fingerprint: string,
    now: Date,
  ): Promise<{ queryId: string; exclusion: PageExclusion; existing?: QueryRecord }> {
    // a sandbox key's lists are synthetic and end on their first page: a live list's cursor is nothing to it
    if (auth.billingMode === "sandbox")
      throw new Rejection("VALIDATION_ERROR", "cursor: sandbox results have a single page; send no cursor", {
        field: "cursor",
      });
    // the key must still reach the collections (its scope may have narrowed since the page before)
    resolveTargets(deps.catalog, auth, input.collections);
    const previousId = queryIdOfCursor(cursor);
    const queryId = nextPageQueryId(previousId, auth.key.id);
    const [previous, existing] = await guarded("the query store", () => loadQueryRecordPair(db, previousId, queryId));
    const state = assertContinues(
      previous && {
        orgId: previous.orgId,
        kind: previous.kind,
        page: previous.payload.page,
        fresh: freshness(previous, now) === "fresh",
      },
      auth.org.id,
      kind,
      fingerprint,
    );
    const exclusion = exclusionAfter(state, previous!.payload.rows, input.selection?.onePerDocument ?? false);
    return {
      queryId,
      exclusion,
      ...(existing && existing.keyId === auth.key.id && freshness(existing, now) === "fresh" ? { existing } : {}),
    };
  }

  /**
   * The request with its like-work resolved (scope and existence of the collections first, then 404 WORK_NOT_FOUND).
   */
  async function withLike(auth: AuthContext, input: SearchRequestInput, work: string): Promise<SearchRequestInput> {
    const targets = resolveTargets(deps.catalog, auth, input.collections);
    assertCollectionsReady(deps, auth, input.collections);
    // a sandbox key never reaches a real work (its text would be licensed content): a synthetic one stands in, held by
    // the first physical collection searched, as a live work is named by the collection holding it
    const like =
      auth.billingMode === "sandbox"
        ? sandboxLike(work, targets[0]!.physical[0]?.name ?? targets[0]!.requested.name)
        : await resolveLike(deps, auth, work);
    return { ...input, like, query: like.text };
  }

  /** A cursor call identical to one already answered: that page again, free (it was charged once, when made). */
  async function replayedSearch(
    auth: AuthContext,
    record: QueryRecord,
    now: Date,
    started: number,
  ): Promise<SearchOutcome> {
    await takeMinuteBudget(db, auth.org, now);
    const { rows, belowMinRelevance, filterWarnings, journalMetricExpansions, filtersApplied } = record.payload;
    const latencyMs = performance.now() - started;
    return {
      queryId: record.queryId,
      rows,
      list: listFieldsOf(record.queryId, record.payload),
      belowMinRelevance: belowMinRelevance ?? 0,
      latencyMs: Math.round(latencyMs),
      filterWarnings,
      journalMetricExpansions,
      filtersApplied,
      billing: {
        ...zeroBilling(auth),
        balanceMicros: (await accounts.getOrganization(auth.org.id))?.balanceMicros ?? auth.org.balanceMicros,
      },
      quota: await quotaStatus(db, auth.org, now),
      cachedUntil: cachedUntil(record.createdAt),
      timings: { billingMs: latencyMs, retrievalMs: 0 },
    };
  }

  return {
    gate,

    /**
     * One slot of the per-minute budget and nothing else (a request that runs no new query, such as a clarification's
     * answer).
     */
    takeRequestSlot: (auth: AuthContext): Promise<void> => takeMinuteBudget(db, auth.org, clock()),

    async search(
      auth: AuthContext,
      request: SearchRequestInput,
      endpoint: string,
      requestId?: string,
      list: ListRequest = {},
    ): Promise<SearchOutcome> {
      const started = performance.now();
      const now = clock();
      const fingerprint = fingerprintOf(request, list);
      const next =
        list.cursor !== undefined
          ? await continuation(auth, "search", request, list.cursor, fingerprint, now)
          : undefined;
      if (next?.existing) return replayedSearch(auth, next.existing, now, started);
      const input = list.like === undefined ? request : await withLike(auth, request, list.like);
      const gated = await gate(auth, input, endpoint, now);
      if (gated.kind === "catalogue") {
        const latencyMs = performance.now() - started;
        return {
          queryId: gated.discovery.queryId,
          rows: [],
          list: LAST_PAGE,
          belowMinRelevance: 0,
          latencyMs: Math.round(latencyMs),
          billing: zeroBilling(auth),
          quota: await quotaStatus(db, auth.org, now),
          discovery: gated.discovery,
          timings: { billingMs: 0, retrievalMs: latencyMs },
        };
      }
      if (gated.kind === "sandbox") return sandboxSearch(auth, input, now, started, gated.prepared);
      const admitted = performance.now();
      const outcome = await retrieve(deps, auth, next ? { ...input, page: next.exclusion } : input, gated.prepared);
      if (next) outcome.queryId = next.queryId;
      const retrieved = performance.now();
      const record = recordOf(auth, "search", now, input, outcome, fingerprint, next?.exclusion);
      const charge = await searchChargeOf(auth, endpoint, requestId, outcome, record);
      const charged = await guarded("the billing store", () => accounts.chargeSearch(charge));
      if (charged.duplicate) {
        // an identical cursor call charged this page first: its rows, nothing charged again
        const kept = await loadQueryRecord(db, outcome.queryId);
        if (kept) return replayedSearch(auth, kept, now, started);
      }
      const event = charged.events[0];
      const costMicros = event && event.type === "SearchCharged" ? BigInt(event.data.amountMicros) : 0n;
      const quota =
        charged.dailyUsed >= 0
          ? quotaFromUsage(auth.org, { dailyUsed: charged.dailyUsed, monthlyUsed: charged.monthlyUsed }, now)
          : await quotaStatus(db, auth.org, now);
      const finished = performance.now();
      return {
        queryId: outcome.queryId,
        rows: outcome.rows,
        list: listFieldsOf(record.queryId, record.payload),
        belowMinRelevance: outcome.belowMinRelevance,
        latencyMs: Math.round(finished - started),
        timings: { billingMs: admitted - started + (finished - retrieved), retrievalMs: retrieved - admitted },
        ...retrievalNotes(outcome),
        billing: {
          mode: auth.billingMode,
          tokens: totalTokens(outcome.lines),
          costMicros,
          balanceMicros: charged.balanceMicros,
        },
        quota,
        cachedUntil: cachedUntil(record.createdAt),
      };
    },

    /**
     * Free: no charge, no quota, no trial query; its own hourly limit. An Idempotency-Key makes a retry return the
     * first preview. A sandbox key's preview holds synthetic rows and takes a slot of the per-minute budget, not the
     * preview hour.
     */
    async preview(
      auth: AuthContext,
      request: SearchRequestInput,
      idempotency?: { key: string; bodyHash: string },
      list: ListRequest = {},
    ): Promise<PreviewOutcome> {
      const now = clock();
      // a catalogue answer is free and records no preview, so an Idempotency-Key has nothing to hold on to
      const question = list.like === undefined ? catalogueQuestionOf(request) : null;
      if (question) {
        assertCollectionsReady(deps, auth, request.collections);
        const discovery = await answerFromCatalogue(auth, request, question, "/preview");
        return {
          queryId: discovery.queryId,
          rows: [],
          list: LAST_PAGE,
          belowMinRelevance: 0,
          unlocked: new Set(),
          discovery,
        };
      }
      let input = request;
      if (idempotency) {
        // A replay is authorized exactly like a fresh request, before the key is claimed or its record read: revocation
        // (authentication), and here the collections of the body against this key's scope.
        resolveTargets(deps.catalog, auth, input.collections);
        const claim = await guarded("the idempotency store", () =>
          claimIdempotencyKey(db, auth.org.id, idempotency.key, idempotency.bodyHash, now, "preview"),
        );
        if (claim.kind === "replay") {
          const record = await loadQueryRecord(db, claim.queryId);
          if (!record || freshness(record, now) === "expired")
            throw new Rejection(
              "CACHED_RESULT_EXPIRED",
              `the preview ${claim.queryId} made with this Idempotency-Key has expired; use a new key`,
            );
          // Idempotency-Keys are one namespace per organization (the spec's preview limit is per organization), but a
          // preview belongs to the API key that ran it: only that key may re-fetch or unlock it (spec: re-fetch needs
          // the same key), and its rows show what that key unlocked. Another key of the organization replaying it
          // would see a queryId it cannot use and text it never paid for, so it is told the key is taken instead.
          if (record.keyId !== auth.key.id) {
            throw idempotencyKeyOfAnotherKey();
          }
          const { rows, filterWarnings, journalMetricExpansions, filtersApplied, belowMinRelevance } = record.payload;
          return {
            queryId: record.queryId,
            rows,
            list: listFieldsOf(record.queryId, record.payload),
            belowMinRelevance: belowMinRelevance ?? 0,
            unlocked: await unlockedFor(record),
            filterWarnings,
            journalMetricExpansions,
            filtersApplied,
            idempotency: "replayed",
          };
        }
      }
      try {
        if (list.like === undefined) await withQueryGuard(auth, async () => assertSearchableQuery(input.query));
        const fingerprint = fingerprintOf(request, list);
        const next =
          list.cursor !== undefined
            ? await continuation(auth, "preview", request, list.cursor, fingerprint, now)
            : undefined;
        if (next?.existing) {
          // an identical cursor call made this page already: it again, without another preview of the hour
          const { rows, belowMinRelevance, filterWarnings, journalMetricExpansions, filtersApplied } =
            next.existing.payload;
          if (idempotency) await completeIdempotencyKey(db, auth.org.id, idempotency.key, next.existing.queryId);
          return {
            queryId: next.existing.queryId,
            rows,
            list: listFieldsOf(next.existing.queryId, next.existing.payload),
            belowMinRelevance: belowMinRelevance ?? 0,
            unlocked: await accounts.unlockedIds(next.existing.queryId),
            filterWarnings,
            journalMetricExpansions,
            filtersApplied,
            idempotency: idempotency ? "created" : undefined,
          };
        }
        if (list.like !== undefined) input = await withLike(auth, request, list.like);
        // scope, existence and filters before the preview hour: a refused preview does not use one
        const prepared = await prepareRetrieval(deps, auth, input);
        if (auth.billingMode === "sandbox") {
          await admit(auth, now, false);
          const { queryId, rows, belowMinRelevance, list } = await sandboxRows(auth, "preview", input, now, prepared);
          if (idempotency) await completeIdempotencyKey(db, auth.org.id, idempotency.key, queryId);
          return {
            queryId,
            rows,
            list,
            belowMinRelevance,
            unlocked: new Set(),
            ...(prepared.plan ? { filtersApplied: prepared.plan.filtersApplied } : {}),
            idempotency: idempotency ? "created" : undefined,
          };
        }
        await takePreviewBudget(db, auth.org, now);
        const outcome = await retrieve(deps, auth, next ? { ...input, page: next.exclusion } : input, prepared);
        if (next) outcome.queryId = next.queryId;
        const record = recordOf(auth, "preview", now, input, outcome, fingerprint, next?.exclusion);
        await saveQueryRecord(db, record);
        if (idempotency) await completeIdempotencyKey(db, auth.org.id, idempotency.key, outcome.queryId);
        return {
          queryId: outcome.queryId,
          rows: outcome.rows,
          list: listFieldsOf(record.queryId, record.payload),
          belowMinRelevance: outcome.belowMinRelevance,
          unlocked: new Set(),
          filterWarnings: outcome.filterWarnings,
          journalMetricExpansions: outcome.journalMetricExpansions,
          filtersApplied: outcome.filtersApplied,
          idempotency: idempotency ? "created" : undefined,
        };
      } catch (err) {
        if (idempotency) await releaseIdempotencyKey(db, auth.org.id, idempotency.key).catch(() => undefined);
        throw err;
      }
    },

    /** Free re-fetch: the rows through the unlock ledger, and images of unlocked preview rows when asked for. */
    async refetch(auth: AuthContext, queryId: string, figures: ImageOptions | null): Promise<RefetchOutcome> {
      const record = await loadOwnRecord(auth, queryId);
      const unlocked = await unlockedFor(record);
      // a cached /query response keeps no figures: images apply to rows of a preview
      const images: FigureImages =
        figures && record.kind === "preview"
          ? await renderFigureImages(deps.figureImages, record.payload.rows, unlocked, [], figures)
          : new Map();
      return { record, unlocked, images, cachedUntil: cachedUntil(record.createdAt) };
    },

    /** The quota object of GET /quota: today's and this month's queries against the organization's limits. */
    quota(auth: AuthContext): Promise<QuotaStatus> {
      return quotaStatus(db, auth.org, clock());
    },

    zeroBilling,

    /**
     * 503 while a collection these names reach is still ingesting: for routes that read a collection outside a search
     * (its journals listing)
     */
    assertCollectionsReady: (auth: AuthContext, names: readonly string[]): void =>
      assertCollectionsReady(deps, auth, names),
  };
}
