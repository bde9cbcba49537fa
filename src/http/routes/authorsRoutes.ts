// /api/v1/authors: a person by OpenAlex author id or ORCID, a search by name, and a person's works. Each route declared
// once: its handler (HTTP translation only) and its OpenAPI words.
import { authorSearchQuery, parseOr422, workListQuery } from "../../wire/schemas.js";
import type { Authors } from "../../usecases/authors/authors.js";
import type { SearchService } from "../../usecases/search/searchService.js";
import { DESCRIPTIONS } from "../openapi/descriptions.js";
import { BILLING_HEADERS, queryParameters } from "../openapi/operation.js";
import { declareRoute } from "../routeDeclaration.js";
import { answerFree } from "./billingHeaders.js";
import { restOfPathId } from "./keyRouteContext.js";

export interface AuthorsRouteDeps {
  authors: Authors;
  search: SearchService;
}

const route = declareRoute<AuthorsRouteDeps>;
const authorsRoute = { tag: "authors", access: "apiKey" } as const;

// the works list first: a path ending in /works is that list of the id before it
export const AUTHORS_ROUTES = [
  route({
    method: "get",
    path: "/api/v1/authors",
    ...authorsRoute,
    operationId: "searchAuthors",
    summary: "People by name, accent- and case-insensitive, paged",
    description: DESCRIPTIONS.searchAuthors,
    query: queryParameters(authorSearchQuery, {
      name:
        "Words of the name, in any order, accents, case and punctuation ignored (`kirschbaum`, `Clemens " +
        "Kirschbaum`).",
      cursor: "The `nextCursor` of the previous page.",
    }),
    response: "AuthorsPage",
    headers: BILLING_HEADERS,
    errors: [401, 422, 429, 503],
    handler: (ctx, deps) =>
      answerFree(ctx, deps.search, (a) => deps.authors.search(a, parseOr422(authorSearchQuery, ctx.query))),
  }),
  route({
    method: "get",
    path: "/api/v1/authors/*id/works",
    ...authorsRoute,
    operationId: "getAuthorWorks",
    summary: "A person's works, newest first, paged",
    description:
      "Free; one slot of the per-minute budget. The author's works in the collections the key reaches, as works " +
      "lookups answer them, newest first then by id (the order of every works list), a work held by several " +
      "collections once.",
    query: queryParameters(workListQuery),
    response: "AuthorWorksPage",
    headers: BILLING_HEADERS,
    errors: [401, 404, 422, 429, 503],
    handler: (ctx, deps) =>
      answerFree(ctx, deps.search, (a) =>
        deps.authors.works(a, restOfPathId(ctx), parseOr422(workListQuery, ctx.query)),
      ),
  }),
  route({
    method: "get",
    path: "/api/v1/authors/*id",
    ...authorsRoute,
    operationId: "getAuthor",
    summary: "A person by OpenAlex author id or ORCID: name, ids, works count, years, collections, co-authors",
    description: DESCRIPTIONS.getAuthor,
    response: "Author",
    headers: BILLING_HEADERS,
    errors: [401, 404, 422, 429, 503],
    handler: (ctx, deps) => answerFree(ctx, deps.search, (a) => deps.authors.get(a, restOfPathId(ctx))),
  }),
];
