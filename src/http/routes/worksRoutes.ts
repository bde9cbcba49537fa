// /api/v1/works: a work by any identifier, many at once, its references and the works citing it. HTTP translation only.
import Router from "@koa/router";
import {
  parseOr422,
  requestedCollections,
  workListQuery,
  worksBatchBody,
  worksBatchQuery,
  worksFacetsBody,
} from "../../wire/schemas.js";
import type { RequestState } from "../requestContext.js";
import type { Works } from "../../usecases/works/works.js";
import type { WorkFacets } from "../../usecases/works/workFacets.js";
import type { SearchService } from "../../usecases/search/searchService.js";
import { answerFree, setBillingHeaders } from "./billingHeaders.js";
import { sendExport } from "./exportResponse.js";
import { keyAuth, restOfPathId } from "./keyRouteContext.js";

export interface WorksRouteDeps {
  works: Works;
  workFacets: WorkFacets;
  search: SearchService;
}

export function worksRoutes(deps: WorksRouteDeps): Router {
  const router = new Router({ prefix: "/api/v1/works", sensitive: true, strict: true });

  router.post("/batch", async (ctx) => {
    const a = keyAuth(ctx);
    const { format } = parseOr422(worksBatchQuery, ctx.query);
    const { ids } = parseOr422(worksBatchBody, ctx.request.body);
    if (format) {
      const entries = await deps.works.exportIds(a, ids);
      setBillingHeaders(ctx, a, deps.search.zeroBilling(a));
      return sendExport(ctx, format, entries, "works");
    }
    const entries = await deps.works.batch(a, ids);
    setBillingHeaders(ctx, a, deps.search.zeroBilling(a));
    ctx.body = { data: entries };
  });

  router.post("/facets", (ctx) =>
    answerFree(ctx, deps.search, (a) => {
      const { collection, collections, ...body } = parseOr422(worksFacetsBody, ctx.request.body);
      const names = requestedCollections({ collection, collections });
      return deps.workFacets.facets(a, { ...body, collections: names }, (ctx.state as RequestState).requestId);
    }),
  );

  // The id is everything after /works/, slashes included (a DOI pasted as is, a URL): the lists' routes come first, so
  // a path ending in /references or /cited-by is that list of the id before it.
  for (const [path, list] of [
    ["/*id/references", "references"],
    ["/*id/cited-by", "citedBy"],
  ] as const) {
    router.get(path, (ctx) =>
      answerFree(ctx, deps.search, (a) => deps.works[list](a, restOfPathId(ctx), parseOr422(workListQuery, ctx.query))),
    );
  }

  router.get("/*id", (ctx) => answerFree(ctx, deps.search, (a) => deps.works.get(a, restOfPathId(ctx))));

  return router;
}
