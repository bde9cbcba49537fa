// /api/v1/works: a work by any identifier, many at once, its references and the works citing it. Each route declared
// once: its handler (HTTP translation only) and its OpenAPI words.
import {
  parseOr422,
  requestedCollections,
  workListQuery,
  worksBatchBody,
  worksBatchQuery,
  facetsRequestOf,
} from "../../wire/schemas.js";
import type { z } from "zod";
import type { RequestState } from "../requestContext.js";
import type { Works } from "../../usecases/works/works.js";
import type { WorkFacets } from "../../usecases/works/workFacets.js";
import type { SearchService } from "../../usecases/search/searchService.js";
import { DESCRIPTIONS } from "../openapi/descriptions.js";
import { BILLING_HEADERS, EXPORT_CONTENT, queryParameters, ref } from "../openapi/operation.js";
import { declareRoute } from "../routeDeclaration.js";
import { answerFree, setBillingHeaders } from "./billingHeaders.js";
import { sendExport } from "./exportResponse.js";
import { keyAuth, restOfPathId } from "./keyRouteContext.js";

export interface WorksRouteDeps {
  works: Works;
  workFacets: WorkFacets;
  search: SearchService;
}

const route = declareRoute<WorksRouteDeps>;

/**
 * A work route's own query parameters. An id pasted as a URL with its slashes brings the URL's own query string along
 * (`https://doi.org/10.1001/x?utm_source=pubmed`): that is part of the link, not a parameter, so only the route's own
 * names are read from it and the rest is ignored; any other id keeps the strict reading that names an unknown field.
 */
function workQuery<S extends z.ZodObject>(ctx: { params: Record<string, unknown>; query: unknown }, schema: S) {
  if (!/^https?:/i.test(restOfPathId(ctx))) return parseOr422(schema, ctx.query);
  const own = Object.entries(ctx.query as Record<string, unknown>).filter(([name]) =>
    Object.hasOwn(schema.shape, name),
  );
  return parseOr422(schema, Object.fromEntries(own));
}
const worksRoute = { tag: "works", access: "apiKey" } as const;

// The id is everything after /works/, slashes included (a DOI pasted as is, a URL): the lists' routes come first, so a
// path ending in /references or /cited-by is that list of the id before it.
export const WORKS_ROUTES = [
  route({
    method: "post",
    path: "/api/v1/works/batch",
    ...worksRoute,
    operationId: "getWorksBatch",
    summary: "Up to 100 works at once, in the order sent",
    description:
      "Free; one slot of the per-minute budget for the whole batch. Always 200 with one entry per id: the " +
      "work, or `{id, error: {code: WORK_NOT_FOUND, message}}`. With `format`, the found works as a BibTeX, " +
      "RIS, CSL-JSON or CSV file instead (with each work's keywords and MeSH headings and its integrity status as a " +
      "note; not its abstract, the text searches sell: export a search's results for the abstracts of its rows).",
    query: queryParameters(worksBatchQuery, {
      format: "Answer the found works as a file: `bibtex`, `ris`, `csljson` or `csv`.",
    }),
    body: "WorksBatchRequest",
    response: {
      content: { "application/json": { schema: ref("WorksBatchResponse") }, ...EXPORT_CONTENT },
      description: "The entries; with `format`, the file",
    },
    headers: BILLING_HEADERS,
    errors: [401, 422, 429, 503],
    handler: async (ctx, deps) => {
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
    },
  }),
  route({
    method: "post",
    path: "/api/v1/works/facets",
    ...worksRoute,
    operationId: "getWorksFacets",
    summary: "How many works per year, journal, subject, author, type, open access or integrity",
    description: DESCRIPTIONS.getWorksFacets,
    body: "WorksFacetsRequest",
    response: "WorksFacetsResponse",
    headers: BILLING_HEADERS,
    errors: [401, 403, 404, 422, 429, 503],
    handler: (ctx, deps) =>
      answerFree(ctx, deps.search, (a) => {
        const { collection, collections, ...body } = facetsRequestOf(ctx.request.body);
        const names = requestedCollections({ collection, collections });
        return deps.workFacets.facets(a, { ...body, collections: names }, (ctx.state as RequestState).requestId);
      }),
  }),
  route({
    method: "get",
    path: "/api/v1/works/*id/references",
    ...worksRoute,
    operationId: "getWorkReferences",
    summary: "A work's references, paged",
    description: DESCRIPTIONS.getWorkReferences,
    query: queryParameters(workListQuery),
    response: "WorkGraphPage",
    headers: BILLING_HEADERS,
    errors: [401, 404, 422, 429, 503],
    handler: (ctx, deps) =>
      answerFree(ctx, deps.search, (a) => deps.works.references(a, restOfPathId(ctx), workQuery(ctx, workListQuery))),
  }),
  route({
    method: "get",
    path: "/api/v1/works/*id/cited-by",
    ...worksRoute,
    operationId: "getWorkCitedBy",
    summary: "The works citing a work, paged, newest first",
    description:
      "Free; one slot of the per-minute budget. The citing works the collections the key reaches hold (found " +
      "through their reference lists). `coverage.recorded` is the source's count of citing works across the " +
      "literature (OpenAlex cited_by_count), null where the source has none.",
    query: queryParameters(workListQuery),
    response: "WorkGraphPage",
    headers: BILLING_HEADERS,
    errors: [401, 404, 422, 429, 503],
    handler: (ctx, deps) =>
      answerFree(ctx, deps.search, (a) => deps.works.citedBy(a, restOfPathId(ctx), workQuery(ctx, workListQuery))),
  }),
  route({
    method: "get",
    path: "/api/v1/works/*id",
    ...worksRoute,
    operationId: "getWork",
    summary: "A work by DOI, PMID, PMCID, OpenAlex id or doc_id",
    description: DESCRIPTIONS.getWork,
    query: queryParameters(worksBatchQuery, {
      format:
        "Answer the work as a file: `bibtex`, `ris`, `csljson` or `csv` (its keywords, MeSH headings and " +
        "integrity note, as a batch exports it).",
    }),
    response: {
      content: { "application/json": { schema: ref("Work") }, ...EXPORT_CONTENT },
      description: "The work; with `format`, the file",
    },
    headers: BILLING_HEADERS,
    errors: [401, 404, 422, 429, 503],
    handler: async (ctx, deps) => {
      const { format } = workQuery(ctx, worksBatchQuery);
      if (!format) return answerFree(ctx, deps.search, (a) => deps.works.get(a, restOfPathId(ctx)));
      const a = keyAuth(ctx);
      const entries = await deps.works.exportId(a, restOfPathId(ctx));
      setBillingHeaders(ctx, a, deps.search.zeroBilling(a));
      return sendExport(ctx, format, entries, "work");
    },
  }),
];
