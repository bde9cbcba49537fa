// The MCP tools of authors: find_authors (GET /authors?name=) and get_author (GET /authors/{id}, or with works: true
// its works list GET /authors/{id}/works), each running the use case of its REST twin.
import { authorSearchQuery, parseOr422, unknownFieldsMessage, workListQuery } from "../../wire/schemas.js";
import { bad, objectArgs, type ToolDefinition } from "../toolKit.js";
import { toolSchemasOf } from "../toolSchemas.js";

const schema = (properties: Record<string, unknown>, required: string[]) =>
  toolSchemasOf({ type: "object", properties, required, additionalProperties: false });
const paging = { limit: { type: "integer", minimum: 1, maximum: 100 }, cursor: { type: "string" } };

/** The REST query from tool arguments (numbers as the query string's text, so its rules and messages apply). */
function queryOf(args: Record<string, unknown>, known: readonly string[]): Record<string, unknown> {
  const unknown = Object.keys(args).filter((k) => !known.includes(k));
  if (unknown.length > 0) throw bad(unknownFieldsMessage(unknown, known));
  const { limit, ...rest } = args;
  return { ...rest, ...(limit !== undefined ? { limit: String(limit) } : {}) };
}

export const findAuthorsTool: ToolDefinition = {
  name: "find_authors",
  cost: "free",
  description: "Free. People with an OpenAlex id or ORCID whose name holds the words (accents, case ignored), paged.",
  schemas: schema({ name: { type: "string" }, ...paging }, ["name"]),
  run: async ({ deps, auth }, args) =>
    deps.authors.search(auth, parseOr422(authorSearchQuery, queryOf(objectArgs(args), ["name", "limit", "cursor"]))),
};

export const getAuthorTool: ToolDefinition = {
  name: "get_author",
  cost: "free",
  description:
    "Free. A person by OpenAlex author id or ORCID: name, ids, works count, years, collections, co-authors; " +
    "works: true pages their works, newest first.",
  schemas: schema({ id: { type: "string" }, works: { type: "boolean" }, ...paging }, ["id"]),
  run: async ({ deps, auth }, args) => {
    const { id, works, ...rest } = objectArgs(args);
    if (typeof id !== "string" || id.trim() === "" || id.length > 300)
      throw bad("id: an OpenAlex author id (A…) or an ORCID (0000-0002-1825-0097) is required");
    if (works !== undefined && typeof works !== "boolean") throw bad("works: true or false");
    if (!works) {
      if (Object.keys(rest).length > 0) throw bad(`${Object.keys(rest).join(", ")}: only with works: true`);
      return deps.authors.get(auth, id);
    }
    return deps.authors.works(auth, id, parseOr422(workListQuery, queryOf(rest, ["limit", "cursor"])));
  },
};
