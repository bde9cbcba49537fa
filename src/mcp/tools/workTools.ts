// The MCP tools of works: get_work, get_works, work_references, work_cited_by, work_facets and export_results, each
// running the use case of its REST twin (GET /works/{id}, POST /works/batch, the references and cited-by lists, POST
// /works/facets, GET /results/{id}?format).
import {
  exportFormat,
  facetsRequestOf,
  parseOr422,
  unknownFieldsMessage,
  requestedCollections,
  workListQuery,
  worksBatchBody,
  worksFacetsBody,
} from "../../wire/schemas.js";
import { exportWorks } from "../../usecases/works/citationExport.js";
import { refetchDelivered } from "../../usecases/results/deliveredRefetch.js";
import { z } from "zod";
import { RECOMMENDED_MIN_RELEVANCE } from "../../retrieval/relevance.js";
import { FACET_QUERY_MAX_WORKS } from "../../usecases/works/facetCounts.js";
import { bad, objectArgs, queryIdOf, type ToolDefinition } from "../toolKit.js";
import { jsonSchemaOf, toolSchemasOf } from "../toolSchemas.js";

const id = { type: "string" };
const page = { id, limit: { type: "integer", minimum: 1, maximum: 100 }, cursor: { type: "string" } };
const schema = (properties: Record<string, unknown>, required: string[]) =>
  toolSchemasOf({ type: "object", properties, required, additionalProperties: false });

function idOf(args: unknown): string {
  const value = objectArgs(args).id;
  if (typeof value !== "string" || value.trim() === "" || value.length > 300)
    throw bad(
      "id: a DOI, pmid:NNN, pmcid:PMCNNN, an OpenAlex id, a doi.org/PubMed/OpenAlex URL or a doc_id is required",
    );
  return value;
}

/** The REST list query from tool arguments (numbers as the query string's text, so its rules and messages apply). */
function pageOf(args: unknown) {
  const { limit, cursor, ...rest } = objectArgs(args);
  delete rest.id;
  if (Object.keys(rest).length > 0) throw bad(unknownFieldsMessage(Object.keys(rest), ["id", "limit", "cursor"]));
  return parseOr422(workListQuery, {
    ...(limit !== undefined ? { limit: String(limit) } : {}),
    ...(cursor !== undefined ? { cursor } : {}),
  });
}

export const getWorkTool: ToolDefinition = {
  name: "get_work",
  cost: "free",
  description:
    "Free. A work by DOI, pmid:, pmcid:, OpenAlex id, doi.org/PubMed/OpenAlex URL or doc_id: metadata, integrity, " +
    "citation counts; no text.",
  schemas: schema({ id }, ["id"]),
  run: async ({ deps, auth }, args) => deps.works.get(auth, idOf(args)),
};

export const getWorksTool: ToolDefinition = {
  name: "get_works",
  cost: "free",
  description: "Free. Up to 100 works by id, in order; an unknown id answers a WORK_NOT_FOUND entry.",
  schemas: schema({ ids: { type: "array", items: id, minItems: 1, maxItems: 100 } }, ["ids"]),
  run: async ({ deps, auth }, args) => ({ data: await deps.works.batch(auth, parseOr422(worksBatchBody, args).ids) }),
};

export const workReferencesTool: ToolDefinition = {
  name: "work_references",
  cost: "free",
  description: "Free. A work's references, paged, with coverage; unheld ones by their ids and a resolving url.",
  schemas: schema(page, ["id"]),
  run: async ({ deps, auth }, args) => deps.works.references(auth, idOf(args), pageOf(args)),
};

export const workCitedByTool: ToolDefinition = {
  name: "work_cited_by",
  cost: "free",
  description: "Free. The works this key reaches that cite a work, paged, with coverage.",
  schemas: schema(page, ["id"]),
  run: async ({ deps, auth }, args) => deps.works.citedBy(auth, idOf(args), pageOf(args)),
};

export const workFacetsTool: ToolDefinition = {
  name: "work_facets",
  cost: "free",
  costNote: "one query of the quota",
  description:
    "Free; one query of the quota. Counts works per year, journal, subject, author, type, open access or " +
    "integrity: in collections under filters, or in a query's relevant works.",
  details:
    "The body of POST /api/v1/works/facets: exactly one of collection and collections (at most 5), facets (one or " +
    "more names), optional query, filters and limit (buckets per facet, 1-100, default 10). Answers {total, facets: " +
    "{name: [{value, count, id?}]}, counted}; buckets by count desc, then value asc; an author bucket's id is " +
    "get_author's id. With a query the works counted " +
    `are the first ${FACET_QUERY_MAX_WORKS} of its ranked list whose relevance is at least ` +
    `${RECOMMENDED_MIN_RELEVANCE}; without, every work the filters keep.`,
  schemas: toolSchemasOf(jsonSchemaOf(worksFacetsBody)),
  run: async ({ deps, auth, request }, args) => {
    const { collection, collections, ...body } = facetsRequestOf(args);
    return deps.workFacets.facets(
      auth,
      { ...body, collections: requestedCollections({ collection, collections }) },
      request.requestId,
    );
  },
};

const exportArgs = z.strictObject({
  queryId: z.string().min(1).max(200).optional(),
  query_id: z.string().min(1).max(200).optional(),
  format: exportFormat,
});

export const exportResultsTool: ToolDefinition = {
  name: "export_results",
  cost: "free",
  description:
    "Free. A kept search's works (7 days) as bibtex, ris, csljson or csv text, with integrity notes, and abstracts " +
    "of the rows paid for (a preview's unlocked rows).",
  schemas: schema({ queryId: id, format: { enum: ["bibtex", "ris", "csljson", "csv"] } }, ["queryId", "format"]),
  run: async ({ deps, auth }, args) => {
    const parsed = parseOr422(exportArgs, args);
    const queryId = queryIdOf(parsed);
    if (!queryId) throw bad("queryId: the queryId of a search or preview is required");
    // as GET /results?format: the re-fetch of an assisted answer or an alert run is its delivery
    const { record, unlocked } = await refetchDelivered(deps, auth, queryId, null);
    return {
      queryId,
      format: parsed.format,
      content: exportWorks(parsed.format, await deps.works.exportRows(record.payload.rows, unlocked)),
    };
  },
};
