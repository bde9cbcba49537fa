// /api/v1/authors: a person by OpenAlex author id or ORCID, a search by name, and a person's works. HTTP translation
// only.
import Router from "@koa/router";
import { authorSearchQuery, parseOr422, workListQuery } from "../../wire/schemas.js";
import type { Authors } from "../../usecases/authors/authors.js";
import type { SearchService } from "../../usecases/search/searchService.js";
import { setBillingHeaders } from "./billingHeaders.js";
import { keyAuth, restOfPathId } from "./keyRouteContext.js";

export interface AuthorsRouteDeps {
  authors: Authors;
  search: SearchService;
}

export function authorsRoutes(deps: AuthorsRouteDeps): Router {
  const router = new Router({ prefix: "/api/v1", sensitive: true, strict: true });

  router.get("/authors", async (ctx) => {
    const a = keyAuth(ctx);
    const page = await deps.authors.search(a, parseOr422(authorSearchQuery, ctx.query));
    setBillingHeaders(ctx, a, deps.search.zeroBilling(a));
    ctx.body = page;
  });

  // the works list first: a path ending in /works is that list of the id before it
  router.get("/authors/*id/works", async (ctx) => {
    const a = keyAuth(ctx);
    const page = await deps.authors.works(a, restOfPathId(ctx), parseOr422(workListQuery, ctx.query));
    setBillingHeaders(ctx, a, deps.search.zeroBilling(a));
    ctx.body = page;
  });

  router.get("/authors/*id", async (ctx) => {
    const a = keyAuth(ctx);
    const author = await deps.authors.get(a, restOfPathId(ctx));
    setBillingHeaders(ctx, a, deps.search.zeroBilling(a));
    ctx.body = author;
  });

  return router;
}
