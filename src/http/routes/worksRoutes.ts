// /api/v1/works: a work by any identifier, many at once, its references and the works citing it. HTTP translation only.
import Router from "@koa/router";
import type { Context } from "koa";
import { ApiError } from "../errors.js";
import {
  parseOr422,
  requestedCollections,
  workListQuery,
  worksBatchBody,
  worksBatchQuery,
  worksFacetsBody,
} from "../schemas.js";
import type { RequestState } from "../requestContext.js";
import type { AuthContext } from "../../usecases/auth/context.js";
import type { Works } from "../../usecases/works/works.js";
import type { WorkFacets } from "../../usecases/works/workFacets.js";
import type { SearchService } from "../../usecases/search/searchService.js";
import { setBillingHeaders } from "./billingHeaders.js";
import { sendExport } from "./exportResponse.js";

export interface WorksRouteDeps {
  works: Works;
  workFacets: WorkFacets;
  search: SearchService;
}

const auth = (ctx: Context): AuthContext => {
  const a = (ctx.state as RequestState).auth;
  if (!a) throw new ApiError(401, "UNAUTHORIZED", "missing API key");
  return a;
};

export function worksRoutes(deps: WorksRouteDeps): Router {
  const router = new Router({ prefix: "/api/v1/works", sensitive: true, strict: true });

  router.post("/batch", async (ctx) => {
    const a = auth(ctx);
    const { format } = parseOr422(worksBatchQuery, ctx.query);
    const { ids } = parseOr422(worksBatchBody, ctx.request.body);
    const entries = await deps.works.batch(a, ids);
    setBillingHeaders(ctx, a, deps.search.zeroBilling(a));
    if (format)
      return sendExport(
        ctx,
        format,
        entries.flatMap((e) => ("error" in e ? [] : [e])),
        "works",
      );
    ctx.body = { data: entries };
  });

  router.post("/facets", async (ctx) => {
    const a = auth(ctx);
    const { collection, collections, ...body } = parseOr422(worksFacetsBody, ctx.request.body);
    const names = requestedCollections({ collection, collections });
    const requestId = (ctx.state as RequestState).requestId;
    ctx.body = await deps.workFacets.facets(a, { ...body, collections: names }, requestId);
    setBillingHeaders(ctx, a, deps.search.zeroBilling(a));
  });

  router.get("/:id", async (ctx) => {
    const a = auth(ctx);
    const work = await deps.works.get(a, ctx.params.id!);
    setBillingHeaders(ctx, a, deps.search.zeroBilling(a));
    ctx.body = work;
  });

  for (const [path, list] of [
    ["/:id/references", "references"],
    ["/:id/cited-by", "citedBy"],
  ] as const) {
    router.get(path, async (ctx) => {
      const a = auth(ctx);
      const page = await deps.works[list](a, ctx.params.id!, parseOr422(workListQuery, ctx.query));
      setBillingHeaders(ctx, a, deps.search.zeroBilling(a));
      ctx.body = page;
    });
  }

  return router;
}
