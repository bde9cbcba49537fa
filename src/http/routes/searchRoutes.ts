// /api/v1/search: collections, query, {collection}, preview, unlock, results and quota. HTTP translation only.
import Router from "@koa/router";
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

export function searchRoutes(deps: SearchRouteDeps): Router {
  const router = new Router({ prefix: "/api/v1/search", sensitive: true, strict: true });

  router.get("/collections", async (ctx) => {
    const a = auth(ctx);
    const collections = await listCollections(
      { catalog: deps.catalog, engine: deps.engine, readiness: deps.collectionReadiness },
      a,
    );
    setBillingHeaders(ctx, a, deps.search.zeroBilling(a));
    ctx.body = { collections, count: collections.length };
  });

  const runSearch = async (
    ctx: Context,
    request: { input: SearchRequestInput; list: ListRequest },
    includeMetadata: boolean,
    figures: ImageOptions | null,
    endpoint: string,
  ) => {
    const a = auth(ctx);
    const outcome = await deps.search.search(
      a,
      { ...request.input, includeMetadata },
      endpoint,
      (ctx.state as RequestState).requestId,
      request.list,
    );
    // figures are free: rendered after the charge, from the rows already paid for
    const images = await searchFigureImages(outcome.rows, deps.figureImages, figures);
    setBillingHeaders(ctx, a, outcome.billing);
    setRateLimitHeaders(ctx, outcome);
    // ISO 8601, as the reference's clients parse it
    if (outcome.cachedUntil) ctx.set("X-Cache-Expires", outcome.cachedUntil.toISOString());
    ctx.body = searchBody(outcome, includeMetadata, images);
  };

  router.post("/query", async (ctx) => {
    const body = parseOr422(queryBody, ctx.request.body);
    const figures = snakeFigureOptionsOf(body);
    await runSearch(
      ctx,
      searchRequestOf(requestedCollections(body), body, body.max_cost),
      body.include_metadata,
      figures,
      "/query",
    );
  });

  router.post("/preview", async (ctx) => {
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
  });

  router.post("/unlock", async (ctx) => {
    const a = auth(ctx);
    const outcome = await deps.unlock.unlock(a, unlockRequestOf(parseOr422(unlockBody, ctx.request.body)));
    setBillingHeaders(ctx, a, outcome.billing);
    ctx.body = unlockResponse(outcome);
  });

  router.get("/results/:queryId", async (ctx) => {
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
    // the re-fetch of an assisted answer or an alert run is its delivery; 410 once it was refunded or ended undelivered
    const refetched = await refetchDelivered(deps, a, ctx.params.queryId!, format ? null : figures);
    if (format) {
      setBillingHeaders(ctx, a, deps.search.zeroBilling(a));
      return sendExport(
        ctx,
        format,
        await deps.works.exportRows(refetched.record.payload.rows),
        `results-${refetched.record.queryId}`,
      );
    }
    ctx.set("X-Cache", "hit");
    ctx.set("X-Cache-Expires", refetched.cachedUntil.toISOString());
    setBillingHeaders(ctx, a, deps.search.zeroBilling(a));
    ctx.body = resultsBody(refetched);
  });

  // a catalogue answer: the discovery fields at the top level, free
  router.get("/collections/:name/journals", async (ctx) => {
    const a = auth(ctx);
    const q = parseOr422(journalsQuery, ctx.query);
    deps.search.assertCollectionsReady(a, [ctx.params.name!]);
    const discovery = await deps.catalogue.journals(a, ctx.params.name!, {
      topic: q.topic ?? null,
      publisher: q.publisher,
      minHIndex: q.min_h_index,
      limit: q.limit,
      offset: q.offset,
    });
    setBillingHeaders(ctx, a, deps.search.zeroBilling(a));
    ctx.body = discovery;
  });

  // before the {collection} shorthand, so "journal-requests" is never read as a collection name
  router.post("/journal-requests", async (ctx) => {
    const a = auth(ctx);
    const request = await deps.catalogue.requestJournal(a, parseOr422(journalRequestBody, ctx.request.body));
    ctx.status = 201;
    setBillingHeaders(ctx, a, deps.search.zeroBilling(a));
    ctx.body = request;
  });

  // a fixed path before the {collection} shorthand, so "assisted" is never read as a collection name
  router.post("/assisted", async (ctx) => {
    const a = auth(ctx);
    const raw = ctx.request.body;
    const requestId = (ctx.state as RequestState).requestId;
    if (raw && typeof raw === "object" && "queryId" in raw) {
      const body = parseOr422(assistedAnswerBody, raw);
      const answer = await deps.assisted.resume(a, body.queryId, body.answer);
      setBillingHeaders(ctx, a, answer.billing);
      ctx.body = assistedResponse(answer, body.includeMetadata);
      confirmDeliveryWhenFlushed(ctx, answer);
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
    confirmDeliveryWhenFlushed(ctx, answer);
  });

  /** A charged answer's charge stands once its response is written in full; without that the run refunds it. */
  const confirmDeliveryWhenFlushed = (ctx: Context, answer: AssistedAnswer) => {
    if (answer.awaitsDelivery) afterResponseFlushed(ctx, () => void deps.assisted.confirmDelivery(answer.queryId));
  };

  router.get("/quota", async (ctx) => {
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
  });

  // the shorthand last, so the fixed paths above win; their names in another case are those routes misspelt (paths
  // are case-sensitive), never collections
  const fixedPostNames = router.stack
    .filter((layer) => layer.methods.includes("POST"))
    .map((layer) => String(layer.path).split("/").pop()!);
  router.post("/:collection", async (ctx) => {
    const fixed = fixedPostNames.find((name) => name.toLowerCase() === ctx.params.collection!.toLowerCase());
    if (fixed)
      throw new ApiError(
        404,
        "NOT_FOUND",
        `no route POST /api/v1/search/${ctx.params.collection}; paths are case-sensitive: POST /api/v1/search/${fixed}`,
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
      searchRequestOf([ctx.params.collection!], snakeListBody(body), body.maxCost),
      body.includeMetadata,
      figures,
      "/{collection}",
    );
  });

  return router;
}
