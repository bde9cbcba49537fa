// /api/v1/authors: a person by OpenAlex author id or ORCID, a search by name, and a person's works. HTTP translation
// only.
import Router from "@koa/router";
import { authorSearchQuery, parseOr422, workListQuery } from "../../wire/schemas.js";
import type { Authors } from "../../usecases/authors/authors.js";
import type { SearchService } from "../../usecases/search/searchService.js";
import { answerFree } from "./billingHeaders.js";
import { restOfPathId } from "./keyRouteContext.js";

export interface AuthorsRouteDeps {
  authors: Authors;
  search: SearchService;
}

export function authorsRoutes(deps: AuthorsRouteDeps): Router {
  const router = new Router({ prefix: "/api/v1", sensitive: true, strict: true });

  router.get("/authors", (ctx) =>
    answerFree(ctx, deps.search, (a) => deps.authors.search(a, parseOr422(authorSearchQuery, ctx.query))),
  );

  // the works list first: a path ending in /works is that list of the id before it
  router.get("/authors/*id/works", (ctx) =>
    answerFree(ctx, deps.search, (a) => deps.authors.works(a, restOfPathId(ctx), parseOr422(workListQuery, ctx.query))),
  );

  router.get("/authors/*id", (ctx) => answerFree(ctx, deps.search, (a) => deps.authors.get(a, restOfPathId(ctx))));

  return router;
}
