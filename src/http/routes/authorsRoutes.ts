// /api/v1/authors: a person by OpenAlex author id or ORCID, a search by name, and a person's works. HTTP translation
// only.
import Router from "@koa/router";
import type { Context } from "koa";
import { ApiError } from "../errors.js";
import { authorSearchQuery, parseOr422, workListQuery } from "../schemas.js";
import type { RequestState } from "../requestContext.js";
import type { AuthContext } from "../../usecases/auth/context.js";
import type { Authors } from "../../usecases/authors/authors.js";
import type { SearchService } from "../../usecases/search/searchService.js";
import { setBillingHeaders } from "./billingHeaders.js";

export interface AuthorsRouteDeps {
  authors: Authors;
  search: SearchService;
}

const auth = (ctx: Context): AuthContext => {
  const a = (ctx.state as RequestState).auth;
  if (!a) throw new ApiError(401, "UNAUTHORIZED", "missing API key");
  return a;
};

/** The id as sent: the router's wildcard gives it decoded, its segments joined by "/" (an orcid.org URL pasted whole). */
const authorIdParam = (ctx: { params: Record<string, unknown> }): string => {
  const id = ctx.params.id;
  return Array.isArray(id) ? id.join("/") : typeof id === "string" ? id : "";
};

export function authorsRoutes(deps: AuthorsRouteDeps): Router {
  const router = new Router({ prefix: "/api/v1", sensitive: true, strict: true });

  router.get("/authors", async (ctx) => {
    const a = auth(ctx);
    const page = await deps.authors.search(a, parseOr422(authorSearchQuery, ctx.query));
    setBillingHeaders(ctx, a, deps.search.zeroBilling(a));
    ctx.body = page;
  });

  // the works list first: a path ending in /works is that list of the id before it
  router.get("/authors/*id/works", async (ctx) => {
    const a = auth(ctx);
    const page = await deps.authors.works(a, authorIdParam(ctx), parseOr422(workListQuery, ctx.query));
    setBillingHeaders(ctx, a, deps.search.zeroBilling(a));
    ctx.body = page;
  });

  router.get("/authors/*id", async (ctx) => {
    const a = auth(ctx);
    const author = await deps.authors.get(a, authorIdParam(ctx));
    setBillingHeaders(ctx, a, deps.search.zeroBilling(a));
    ctx.body = author;
  });

  return router;
}
