// /api/v1/search: collections, query, {collection}, preview, unlock, results and quota. Each route declared once:
// its handler (HTTP translation only) and its OpenAPI words.
import type { Context } from "koa";
import { ApiError } from "../../wire/errors.js";
import { sendExport } from "./exportResponse.js";
import { refetchDelivered } from "../../usecases/results/deliveredRefetch.js";
import {
  parseOr422,
  resultsExportQuery,
  assistedAnswerBody,
  assistedBody,
  journalsQuery,
  journalRequestBody,
  queryBody,
  collectionSearchBody,
  previewBody,
  unlockBody,
  imageQuery,
  requestedCollections,
  figureOptionsOf,
  snakeFigureOptionsOf,
} from "../../wire/schemas.js";
import { afterResponseFlushed, type RequestState } from "../requestContext.js";
import type { SearchOutcome } from "../../usecases/search/searchService.js";
import { listCollections } from "../../usecases/catalogue/collectionsList.js";
import { parseCredits } from "../../domain/money.js";
import type { AssistedAnswer } from "../../usecases/assisted/assistedContext.js";
import type { AuthContext } from "../../usecases/auth/context.js";
import { setBillingHeaders } from "./billingHeaders.js";
import { DESCRIPTIONS } from "../openapi/descriptions.js";
import {
  BILLING_HEADERS,
  EXPORT_CONTENT,
  RATE_LIMIT_HEADERS,
  SEARCH_ERRORS,
  queryParameters,
  ref,
} from "../openapi/operation.js";
import { declareRoute } from "../routeDeclaration.js";
import { idempotencyRequest } from "../../usecases/search/previewIdempotency.js";
import { searchFigureImages, type ImageOptions } from "../../usecases/figures/figureImages.js";
import {
  assistedResponse,
  previewResponse,
  resultsBody,
  searchBody,
  searchRequestOf,
  snakeListBody,
  unlockRequestOf,
  unlockResponse,
  type SearchRouteDeps,
} from "../../wire/presenters/searchPresenters.js";
import type { SearchRequestInput } from "../../usecases/search/pipeline.js";
import type { ListRequest } from "../../usecases/search/searchService.js";
export type { SearchRouteDeps } from "../../wire/presenters/searchPresenters.js";

const auth = (ctx: Context): AuthContext => {
  const a = (ctx.state as RequestState).auth;
  if (!a) throw new ApiError(401, "UNAUTHORIZED", "missing API key");
  return a;
};

function setRateLimitHeaders(ctx: Context, outcome: SearchOutcome): void {
  ctx.set("X-RateLimit-Limit", String(outcome.quota.dailyLimit));
  ctx.set("X-RateLimit-Remaining", String(outcome.quota.dailyRemaining));
  ctx.set("X-RateLimit-Reset", String(outcome.quota.dailyResetAt));
}

const runSearch = async (
  ctx: Context,
  deps: SearchRouteDeps,
  request: { input: SearchRequestInput; list: ListRequest },
  includeMetadata: boolean,
  figures: ImageOptions | null,
  endpoint: string,
) => {
  const a = auth(ctx);
  const input = { ...request.input, includeMetadata };
  const requestId = (ctx.state as RequestState).requestId;
  // with an Idempotency-Key, a retry answers the first search's rows, charged once
  const keyed =
    ctx.request.headers["idempotency-key"] !== undefined
      ? idempotencyRequest(ctx.get("Idempotency-Key"), ctx.request.body)
      : undefined;
  const outcome = await deps.search.search(a, input, endpoint, requestId, request.list, keyed);
  if (outcome.idempotency) ctx.set("Idempotency-Status", outcome.idempotency);
  // figures are free: rendered after the charge, from the rows already paid for
  const images = await searchFigureImages(outcome.rows, deps.figureImages, figures);
  setBillingHeaders(ctx, a, outcome.billing);
  setRateLimitHeaders(ctx, outcome);
  // ISO 8601, as the reference's clients parse it
  if (outcome.cachedUntil) ctx.set("X-Cache-Expires", outcome.cachedUntil.toISOString());
  ctx.body = searchBody(outcome, includeMetadata, images);
};

/** The Idempotency-Key of a paid search (/query, /{collection}). */
const SEARCH_IDEMPOTENCY_KEY = {
  name: "Idempotency-Key",
  in: "header" as const,
  required: false,
  description:
    "A repeat with the same key and body within 24 hours answers the first search's rows and queryId, charged once " +
    "(Idempotency-Status: replayed); the same key while the first runs is 409 IDEMPOTENCY_KEY_IN_PROGRESS with " +
    "Retry-After; with a different body 422 IDEMPOTENCY_KEY_REUSED. Keys are one namespace per organization.",
  schema: { type: "string" },
};

/** A charged answer's charge stands once its response is written in full; without that the run refunds it. */
const confirmDeliveryWhenFlushed = (ctx: Context, deps: SearchRouteDeps, answer: AssistedAnswer) => {
  if (answer.awaitsDelivery) afterResponseFlushed(ctx, () => void deps.assisted.confirmDelivery(answer.queryId));
};

/** The last segments of the fixed POST paths: the {collection} shorthand never reads one as a collection name. */
const fixedPostNames = () =>
  SEARCH_ROUTES.filter((r) => r.method === "post" && !r.path.includes(":")).map((r) => r.path.split("/").pop()!);

const route = declareRoute<SearchRouteDeps>;

export const SEARCH_ROUTES = [
  route({
    method: "get",
    path: "/api/v1/search/collections",
    access: "apiKey",
    tag: "search",
    operationId: "listCollections",
    summary: "List the collections the key can reach",
    description: "Free (`X-Query-Cost` zero); suitable as a startup check.",
    response: "CollectionsResponse",
    headers: BILLING_HEADERS,
    errors: [401, 503],
    handler: async (ctx, deps) => {
      const a = auth(ctx);
      const collections = await listCollections(
        { catalog: deps.catalog, engine: deps.engine, readiness: deps.collectionReadiness },
        a,
      );
      setBillingHeaders(ctx, a, deps.search.zeroBilling(a));
      ctx.body = { collections, count: collections.length };
    },
  }),
  route({
    method: "post",
    path: "/api/v1/search/query",
    access: "apiKey",
    tag: "search",
    operationId: "searchQuery",
    summary: "Search one or more collections",
    description: DESCRIPTIONS.searchQuery,
    body: "SearchRequest",
    response: "SearchResponse",
    headers: [...BILLING_HEADERS, ...RATE_LIMIT_HEADERS, "X-Cache-Expires", "Idempotency-Status"],
    errors: [...SEARCH_ERRORS, 409],
    headerParameters: [SEARCH_IDEMPOTENCY_KEY],
    handler: async (ctx, deps) => {
      const body = parseOr422(queryBody, ctx.request.body);
      const figures = snakeFigureOptionsOf(body);
      await runSearch(
        ctx,
        deps,
        searchRequestOf(requestedCollections(body), body, body.max_cost),
        body.include_metadata,
        figures,
        "/query",
      );
    },
  }),
  route({
    method: "post",
    path: "/api/v1/search/preview",
    access: "apiKey",
    tag: "search",
    operationId: "searchPreview",
    summary: "Preview a search: locked teasers, free",
    description:
      "The same pipeline as /query, never charged: every row of a new preview is locked, with a teaser and its " +
      "cost to unlock. Unknown body fields are 422. 50 previews per hour per organization by default.",
    body: "SearchPreviewRequest",
    response: "PreviewUnlockResponse",
    headers: [...BILLING_HEADERS, "Idempotency-Status"],
    errors: [401, 403, 404, 409, 422, 429, 503],
    headerParameters: [
      {
        name: "Idempotency-Key",
        in: "header",
        required: false,
        description:
          "A repeat with the same key and body returns the original queryId; the same key while the first runs " +
          "is 409 IDEMPOTENCY_KEY_IN_PROGRESS with Retry-After; with a different body 422 IDEMPOTENCY_KEY_REUSED.",
        schema: { type: "string" },
      },
    ],
    handler: async (ctx, deps) => {
      const a = auth(ctx);
      const body = parseOr422(previewBody, ctx.request.body);
      const idempotencyKey = ctx.get("Idempotency-Key");
      const idempotency =
        ctx.request.headers["idempotency-key"] !== undefined
          ? idempotencyRequest(idempotencyKey, ctx.request.body)
          : undefined;
      const { input, list } = searchRequestOf(requestedCollections(body), body);
      const outcome = await deps.search.preview(a, input, idempotency, list);
      if (outcome.idempotency) ctx.set("Idempotency-Status", outcome.idempotency);
      setBillingHeaders(ctx, a, deps.search.zeroBilling(a));
      ctx.body = previewResponse(outcome);
    },
  }),
  route({
    method: "post",
    path: "/api/v1/search/unlock",
    access: "apiKey",
    tag: "search",
    operationId: "searchUnlock",
    summary: "Pay for previewed results and return them in full",
    description:
      "Charges only for rows not already unlocked under the queryId; omit `resultIds` (or send null) to unlock " +
      "everything. At most 50 images per call. On 503 nothing is charged and nothing unlocks. `maxCost` caps " +
      "this call: a repeat is a new call that buys the next rows that fit (rows already bought stay free). A row " +
      "whose document was removed since the preview is 410 RESULT_WITHDRAWN, nothing charged.",
    body: "UnlockRequest",
    response: "PreviewUnlockResponse",
    headers: BILLING_HEADERS,
    errors: [401, 402, 404, 410, 422, 429, 503],
    handler: async (ctx, deps) => {
      const a = auth(ctx);
      const outcome = await deps.unlock.unlock(a, {
        ...unlockRequestOf(parseOr422(unlockBody, ctx.request.body)),
        requestId: (ctx.state as RequestState).requestId,
      });
      setBillingHeaders(ctx, a, outcome.billing);
      ctx.body = unlockResponse(outcome);
    },
  }),
  route({
    method: "get",
    path: "/api/v1/search/results/:queryId",
    access: "apiKey",
    tag: "search",
    operationId: "getCachedResult",
    summary: "Re-fetch a cached result set, free, for 7 days",
    description:
      "Rows pass through the unlock ledger: unpaid rows come back as teasers. Same API key as the original search.",
    query: [
      ...queryParameters(imageQuery, {
        includeFigures:
          "Images for rows already unlocked (rows from a preview; a cached /query response keeps no figures). Free.",
      }),
      ...queryParameters(resultsExportQuery, {
        format:
          "Export instead: one entry per work, in result order, as `bibtex`, `ris`, `csljson` or `csv`: its " +
          "bibliographic fields, keywords and MeSH headings, DOI, PMID, PMCID and URL, and its integrity status " +
          "as a note, with its abstract where you paid for a row of it (a search's rows, a preview's unlocked " +
          "rows; a locked row exports without it). Free.",
      }),
    ],
    response: {
      content: {
        "application/json": { schema: { anyOf: [ref("SearchResultsPreviewResponse"), ref("AssistedPending")] } },
        ...EXPORT_CONTENT,
      },
      description:
        "The rows; with `format`, the file. An asynchronous assisted search without its answer yet answers how it " +
        "stands instead (AssistedPending)",
    },
    headers: ["X-Cache", "X-Cache-Expires", ...BILLING_HEADERS],
    errors: [401, 404, 410, 422],
    handler: async (ctx, deps) => {
      const a = auth(ctx);
      const q = parseOr422(imageQuery, ctx.query);
      const figures = figureOptionsOf(q);
      const { format } = parseOr422(resultsExportQuery, ctx.query);
      // an asynchronous assisted search without its answer yet: how it stands (running, or asking a question)
      const pending = await deps.assisted.pending(a, ctx.params.queryId!);
      if (pending) {
        setBillingHeaders(ctx, a, deps.search.zeroBilling(a));
        ctx.body = pending;
        return;
      }
      // the re-fetch of an assisted answer or an alert run is its delivery; 410 once it was refunded or ended
      // undelivered
      const refetched = await refetchDelivered(deps, a, ctx.params.queryId!, format ? null : figures);
      if (format) {
        setBillingHeaders(ctx, a, deps.search.zeroBilling(a));
        return sendExport(
          ctx,
          format,
          await deps.works.exportRows(refetched.record.payload.rows, refetched.unlocked),
          `results-${refetched.record.queryId}`,
        );
      }
      ctx.set("X-Cache", "hit");
      ctx.set("X-Cache-Expires", refetched.cachedUntil.toISOString());
      setBillingHeaders(ctx, a, deps.search.zeroBilling(a));
      ctx.body = resultsBody(refetched);
    },
  }),
  // a catalogue answer: the discovery fields at the top level, free
  route({
    method: "get",
    path: "/api/v1/search/collections/:name/journals",
    access: "apiKey",
    tag: "catalogue",
    operationId: "listJournals",
    summary: "Journals in the key's scope of a collection",
    description:
      "Free. Ranked by h-index, or with `topic` by how much content each journal holds on it: journals whose title " +
      "names the topic or whose works are classified under a subject naming it (OpenAlex concepts, MeSH headings), " +
      "else, where none does, by the content a search of the topic finds; each row's `matchedBy` says which. The " +
      "answer is a catalogue answer (the discovery fields at the top level, `intent` = `journals`). An unreachable " +
      "or misspelled collection is 403 NO_COLLECTION_ACCESS.",
    query: queryParameters(journalsQuery),
    response: "Discovery",
    headers: BILLING_HEADERS,
    errors: [401, 403, 422, 429, 503],
    handler: async (ctx, deps) => {
      const a = auth(ctx);
      const q = parseOr422(journalsQuery, ctx.query);
      await deps.search.assertCollectionsReady(a, [ctx.params.name!]);
      const discovery = await deps.catalogue.journals(a, ctx.params.name!, {
        topic: q.topic ?? null,
        publisher: q.publisher,
        minHIndex: q.min_h_index,
        limit: q.limit,
        offset: q.offset,
      });
      setBillingHeaders(ctx, a, deps.search.zeroBilling(a));
      ctx.body = discovery;
    },
  }),
  // before the {collection} shorthand, so "journal-requests" is never read as a collection name
  route({
    method: "post",
    path: "/api/v1/search/journal-requests",
    access: "apiKey",
    tag: "catalogue",
    operationId: "requestJournal",
    summary: "Ask for a journal to be added",
    description: "At least one of `title` and `issn`. Free; takes one slot of the per-minute budget.",
    body: "JournalRequestInput",
    status: 201,
    response: "JournalRequest",
    headers: BILLING_HEADERS,
    errors: [401, 422, 429],
    handler: async (ctx, deps) => {
      const a = auth(ctx);
      const request = await deps.catalogue.requestJournal(a, parseOr422(journalRequestBody, ctx.request.body));
      ctx.status = 201;
      setBillingHeaders(ctx, a, deps.search.zeroBilling(a));
      ctx.body = request;
    },
  }),
  // a fixed path before the {collection} shorthand, so "assisted" is never read as a collection name
  route({
    method: "post",
    path: "/api/v1/search/assisted",
    access: "apiKey",
    tag: "search",
    operationId: "searchAssisted",
    summary: "Assisted search: understood, planned, searched, verified; only verified rows are charged",
    description: DESCRIPTIONS.searchAssisted,
    body: ["AssistedSearchRequest", "AssistedAnswerRequest"],
    response: "AssistedSearchResponse",
    headers: [...BILLING_HEADERS, "Idempotency-Status"],
    accepted: {
      response: "AssistedAccepted",
      description:
        'Asked to answer asynchronously (`"async": true`, or `Prefer: respond-async`): the run started; poll ' +
        "the Location, or wait for the organization's assisted.completed webhook.",
      headers: ["Location", "Idempotency-Status"],
    },
    errors: [401, 402, 403, 404, 409, 422, 429, 503],
    headerParameters: [
      {
        name: "Prefer",
        in: "header",
        required: false,
        description: '`respond-async`: answer 202 at once, as `"async": true` in the body does.',
        schema: { type: "string" },
      },
      {
        name: "Idempotency-Key",
        in: "header",
        required: false,
        description:
          "As on preview: a repeat with the same key and body returns the original answer and queryId, charged " +
          "once; while the first runs 409 IDEMPOTENCY_KEY_IN_PROGRESS with Retry-After; 410 only when the first " +
          "ended without an answer (nothing charged).",
        schema: { type: "string" },
      },
    ],
    handler: async (ctx, deps) => {
      const a = auth(ctx);
      const raw = ctx.request.body;
      const requestId = (ctx.state as RequestState).requestId;
      if (raw && typeof raw === "object" && "queryId" in raw) {
        const body = parseOr422(assistedAnswerBody, raw);
        const answer = await deps.assisted.resume(a, body.queryId, body.answer);
        setBillingHeaders(ctx, a, answer.billing);
        ctx.body = assistedResponse(answer, body.includeMetadata);
        confirmDeliveryWhenFlushed(ctx, deps, answer);
        return;
      }
      const body = parseOr422(assistedBody, raw);
      const idempotencyKey = ctx.get("Idempotency-Key");
      const idempotency =
        ctx.request.headers["idempotency-key"] !== undefined ? idempotencyRequest(idempotencyKey, raw) : undefined;
      const request = {
        collections: requestedCollections(body),
        query: body.query,
        limit: body.limit,
        filters: body.filters ?? null,
        allowClarification: body.allowClarification,
        ...(body.maxCost !== undefined ? { maxCostMicros: parseCredits(body.maxCost)! } : {}),
      };
      let answer: AssistedAnswer;
      if (body.async === true || /\brespond-async\b/i.test(ctx.get("Prefer"))) {
        const accepted = await deps.assisted.startAsync(a, request, { requestId, idempotency });
        if (!("answer" in accepted)) {
          if (accepted.idempotency) ctx.set("Idempotency-Status", accepted.idempotency);
          ctx.set("Preference-Applied", "respond-async");
          ctx.set("Location", `/api/v1/search/results/${accepted.queryId}`);
          setBillingHeaders(ctx, a, deps.search.zeroBilling(a));
          ctx.status = 202;
          ctx.body = { queryId: accepted.queryId, status: accepted.status };
          return;
        }
        answer = accepted.answer;
      } else {
        answer = await deps.assisted.start(a, request, { requestId, idempotency });
      }
      if (answer.idempotency) ctx.set("Idempotency-Status", answer.idempotency);
      // figures are free: rendered after the charge, for the delivered rows
      const rows = answer.rows.map((r) => r.row);
      const images = await searchFigureImages(rows, deps.figureImages, figureOptionsOf(body));
      setBillingHeaders(ctx, a, answer.billing);
      ctx.body = assistedResponse(answer, body.includeMetadata, images);
      confirmDeliveryWhenFlushed(ctx, deps, answer);
    },
  }),
  route({
    method: "get",
    path: "/api/v1/search/quota",
    access: "apiKey",
    tag: "search",
    operationId: "getQuota",
    summary: "The organization's daily and monthly query usage and limits",
    response: "QuotaInfo",
    headers: BILLING_HEADERS,
    errors: [401, 503],
    handler: async (ctx, deps) => {
      const a = auth(ctx);
      const q = await deps.search.quota(a);
      setBillingHeaders(ctx, a, deps.search.zeroBilling(a));
      ctx.body = {
        dailyLimit: q.dailyLimit,
        dailyUsed: q.dailyUsed,
        dailyRemaining: q.dailyRemaining,
        monthlyLimit: q.monthlyLimit,
        monthlyUsed: q.monthlyUsed,
        monthlyRemaining: q.monthlyRemaining,
      };
    },
  }),
  // the shorthand last, so the fixed paths above win; their names in another case are those routes misspelt (paths
  // are case-sensitive), never collections
  route({
    method: "post",
    path: "/api/v1/search/:collection",
    access: "apiKey",
    tag: "search",
    operationId: "searchCollection",
    summary: "Search one collection named in the path",
    description:
      "Shorthand for /query. A `collection` or `collections` key in the body is 422. `includeImages` is the " +
      "deprecated alias of `includeFigures`.",
    body: "CollectionSearchRequest",
    response: "SearchResponse",
    headers: [...BILLING_HEADERS, ...RATE_LIMIT_HEADERS, "X-Cache-Expires", "Idempotency-Status"],
    errors: [...SEARCH_ERRORS, 409],
    headerParameters: [SEARCH_IDEMPOTENCY_KEY],
    handler: async (ctx, deps) => {
      const fixed = fixedPostNames().find((name) => name.toLowerCase() === ctx.params.collection!.toLowerCase());
      if (fixed)
        throw new ApiError(
          404,
          "NOT_FOUND",
          `no route POST /api/v1/search/${ctx.params.collection}; paths are case-sensitive: ` +
            `POST /api/v1/search/${fixed}`,
        );
      const raw = ctx.request.body;
      if (raw && typeof raw === "object" && ("collection" in raw || "collections" in raw)) {
        throw new ApiError(
          422,
          "VALIDATION_ERROR",
          "the collection is given in the path; remove collection/collections from the body",
        );
      }
      const body = parseOr422(collectionSearchBody, raw);
      // includeImages is the deprecated alias of includeFigures
      const figures = figureOptionsOf(body);
      await runSearch(
        ctx,
        deps,
        searchRequestOf([ctx.params.collection!], snakeListBody(body), body.maxCost),
        body.includeMetadata,
        figures,
        "/{collection}",
      );
    },
  }),
];
