// The arguments each MCP tool takes. The search tools reuse the REST bodies' zod schemas (src/wire/schemas.ts), so a
// tool validates exactly as its REST twin; the MCP-only tools' own arguments carry the reference service's names.
import { z } from "zod";
import { alertBody, assistedBody, queryBody, boundQueryBody, journalRequestBody, maxCost } from "../wire/schemas.js";

/**
 * JSON Schema of a zod schema, as a client sends it (defaults optional), without the draft marker clients do not need.
 */
export function jsonSchemaOf(schema: z.ZodType): Record<string, unknown> {
  const { $schema: _draft, ...rest } = z.toJSONSchema(schema, { io: "input", unrepresentable: "any" }) as Record<
    string,
    unknown
  >;
  return rest;
}

/**
 * Keys of a JSON Schema that an agent reads as prose or that the tool's own validation states better when it refuses.
 */
const LEAN_DROPS = new Set([
  "description",
  "deprecated",
  "title",
  "examples",
  "$schema",
  "maxLength",
  "minLength",
  "maxItems",
  "minItems",
  "pattern",
  "additionalProperties",
  "propertyNames",
]);

/** A default that says nothing: false, or an empty object. */

/** `anyOf: [X, {type: null}]` read as X: null means "absent" to every tool here. */
function withoutNullBranch(node: Record<string, unknown>): Record<string, unknown> {
  const anyOf = node.anyOf;
  if (!Array.isArray(anyOf)) return node;
  const rest = anyOf.filter((b) => !(b && typeof b === "object" && (b as { type?: unknown }).type === "null"));
  if (rest.length !== 1 || rest.length === anyOf.length) return node;
  const { anyOf: _anyOf, ...others } = node;
  return { ...others, ...(rest[0] as Record<string, unknown>) };
}

/**
 * What tools/list shows of a tool's arguments: every agent pays for each character on every turn, so the listed schema
 * keeps the names, types, enums and bounds that say what to send, and leaves out prose (inspect-tool gives the full
 * schema), `omit`ted options (aliases, rarely used ones), string lengths, defaults, null branches, an object argument's
 * own type and required list (its fields say it), and
 * `additionalProperties` (the tool refuses an unknown field itself, naming it). Options added later to a REST body
 * appear here without their prose, so they stay within the tool list's budget.
 */
export function leanSchema(schema: Record<string, unknown>, omit: readonly string[] = []): Record<string, unknown> {
  const walk = (node: unknown, nested: boolean): unknown => {
    if (Array.isArray(node)) return node.map((n) => walk(n, nested));
    if (!node || typeof node !== "object") return node;
    const out: Record<string, unknown> = {};
    const fields = withoutNullBranch(node as Record<string, unknown>);
    for (const [key, value] of Object.entries(fields)) {
      if (LEAN_DROPS.has(key) || key === "default") continue;
      // an object argument (like: {work}) lists its fields; its type and required list go without saying
      if (nested && "properties" in fields && (key === "type" || key === "required")) continue;
      if (key === "properties" && value && typeof value === "object" && !Array.isArray(value)) {
        const properties = value as Record<string, unknown>;
        out[key] = Object.fromEntries(
          Object.entries(properties)
            .filter(([name]) => !omit.includes(name))
            .map(([name, p]) => [name, walk(p, true)]),
        );
      } else {
        out[key] = walk(value, nested);
      }
    }
    return out;
  };
  return walk(schema, false) as Record<string, unknown>;
}

/**
 * The options a tool still takes but does not list (inspect-tool shows them): the reference SDK's camelCase aliases of
 * the search options, figures and their sizing, a deprecated alias, and the metadata switch (`full_metadata` chooses
 * the rows' shape).
 */
const UNLISTED_OPTIONS = [
  "include_figures",
  "includeMetadata",
  "includeFigures",
  "image_max_width",
  "image_max_height",
  "image_quality",
  "imageMaxWidth",
  "imageMaxHeight",
  "imageQuality",
  "includeImages",
  "include_metadata",
];

/**
 * `full_metadata`: the MCP answers' row shape (compact by default); an MCP-only argument, taken off before the REST
 * schema checks the rest.
 */
const FULL_METADATA = "full_metadata";
const fullMetadataProperty = { [FULL_METADATA]: { type: "boolean" } };

/** The listed schema of a tool whose rows come compact: its lean arguments and `full_metadata`. */
const withFullMetadata = (schema: Record<string, unknown>): Record<string, unknown> => ({
  ...schema,
  properties: { ...(schema.properties as Record<string, unknown>), ...fullMetadataProperty },
});

/** A tool's arguments twice: `listed` for tools/list (lean), `full` for inspect-tool (every option with its prose). */
export interface ToolSchemas {
  listed: Record<string, unknown>;
  full: Record<string, unknown>;
}

/**
 * A tool's two schemas from its full JSON Schema: every tool of the table is defined with these, so a tool added later
 * is listed lean too. `compactRows`: its answer's rows come compact, and it takes `full_metadata` for the REST rows.
 */
export function toolSchemasOf(full: Record<string, unknown>, options: { compactRows?: boolean } = {}): ToolSchemas {
  const withOption = options.compactRows ? withFullMetadata : (s: Record<string, unknown>) => s;
  const fullWithOption = options.compactRows
    ? {
        ...full,
        properties: { ...(full.properties as Record<string, unknown>), [FULL_METADATA]: jsonSchemaOf(fullMetadata) },
      }
    : full;
  return { listed: withOption(leanSchema(full, UNLISTED_OPTIONS)), full: fullWithOption };
}

/** `search`: the body of POST /query (snake_case options, exactly one of collection and collections). */
export const searchArgs = queryBody;

/** `search-<name>`: the same arguments with the collection bound by the tool's name. */
export const boundSearchArgs = boundQueryBody;

/**
 * What `preview` takes for `search` and for a `search-<name>`: that tool's own arguments (the reference's skills say to
 * preview a search with its arguments), checked as the search checks them and refusing any other field; only the
 * selection fields reach the preview, which never fetches figures and always returns metadata, as the REST preview
 * does.
 */
export const previewSearchArgs = queryBody;
export const boundPreviewSearchArgs = boundQueryBody;

export const noArgs = z.strictObject({});

export const findToolsArgs = z.strictObject({
  query: z.string().max(200, "query must be at most 200 characters").optional(),
  integration: z.string().max(100, "integration must be at most 100 characters").optional(),
  format: z.enum(["json", "text"]).default("json"),
});

export const inspectToolArgs = z.strictObject({ tool_name: z.string().min(1).max(200) });

/**
 * `full_metadata` on the tools whose rows come compact (preview, confirm, get_results; the searches take it beside
 * their REST arguments).
 */
const fullMetadata = z
  .boolean()
  .optional()
  .meta({
    description:
      "true: each row as the REST API gives it, with all its metadata; default: relevance, text, title, year, " +
      "journal, DOI/PMID and integrity status",
  });

export const previewArgs = z.strictObject({
  tool_name: z.string().min(1).max(200),
  arguments: z.record(z.string(), z.unknown()).default({}),
  full_metadata: fullMetadata,
});

/**
 * `confirm`: the reference's spellings (`queryId` or `query_id`, `result_ids`) and the search tools' `max_cost`;
 * checked again as the REST unlock body.
 */
export const confirmArgs = z.strictObject({
  queryId: z.string().min(1).max(200).optional(),
  query_id: z.string().min(1).max(200).optional(),
  result_ids: z.array(z.string().min(1).max(200)).max(30).nullable().optional(),
  include_figures: z.boolean().optional(),
  max_cost: maxCost("max_cost"),
  full_metadata: fullMetadata,
});

/**
 * `get_results`: a kept search by its id (either spelling, as confirm takes it); figures as GET /results gives them.
 */
export const getResultsArgs = z.strictObject({
  queryId: z.string().min(1).max(200).optional(),
  query_id: z.string().min(1).max(200).optional(),
  include_figures: z.boolean().optional(),
  full_metadata: fullMetadata,
});

export const callToolArgs = z.strictObject({
  tool_name: z.string().min(1).max(200),
  arguments: z.record(z.string(), z.unknown()).default({}),
});

/**
 * `list_journals`: the collection and the query parameters of GET /collections/{name}/journals. Numbers are accepted as
 * JSON numbers and handed to the REST query schema as the strings a query string carries, so the rules and messages are
 * the REST ones; this schema is what clients see.
 */
const listJournalsSchema: Record<string, unknown> = {
  type: "object",
  properties: {
    collection: { type: "string", description: "a collection the key can reach (list_collections)" },
    topic: {
      type: "string",
      maxLength: 200,
      description: "rank journals by how much relevant content each holds on this topic",
    },
    publisher: { type: "string", maxLength: 200, description: "only this publisher" },
    min_h_index: { type: "integer", minimum: 0, maximum: 10_000 },
    limit: { type: "integer", minimum: 1, maximum: 200, default: 50 },
    offset: { type: "integer", minimum: 0, maximum: 1_000_000, default: 0 },
  },
  required: ["collection"],
  additionalProperties: false,
};

export const searchSchemas = toolSchemasOf(jsonSchemaOf(searchArgs), { compactRows: true });
export const boundSearchSchemas = toolSchemasOf(jsonSchemaOf(boundSearchArgs), { compactRows: true });

/**
 * `assisted_search`: the body of POST /api/v1/search/assisted, either a new search or `{queryId, answer}` answering its
 * clarification question; checked as that body (the REST rules and messages).
 */
export const assistedSearchSchemas: ToolSchemas = (() => {
  const start = jsonSchemaOf(assistedBody) as { properties: Record<string, unknown> };
  // an MCP call streams progress and waits for its answer: the REST body's `async` has no meaning here
  const { async: _restOnly, ...startProperties } = start.properties;
  return toolSchemasOf({
    type: "object",
    properties: {
      ...startProperties,
      queryId: {
        type: "string",
        maxLength: 200,
        description:
          "to answer a clarification question: the queryId of the clarification_needed answer (send with " +
          "`answer` only)",
      },
      answer: { type: "string", maxLength: 4000, description: "the answer to the clarification question" },
      idempotency_key: {
        type: "string",
        minLength: 1,
        maxLength: 255,
        description:
          "as the REST Idempotency-Key header: a retry with the same key and arguments returns the first " +
          "answer and queryId, charged once",
      },
    },
    additionalProperties: false,
  });
})();

/** The JSON Schemas of the MCP-only tools' arguments (the same for every key: converted once, not per request). */
export const noArgsSchemas = toolSchemasOf(jsonSchemaOf(noArgs));
export const findToolsSchemas = toolSchemasOf(jsonSchemaOf(findToolsArgs));
export const inspectToolSchemas = toolSchemasOf(jsonSchemaOf(inspectToolArgs));
export const previewSchemas = toolSchemasOf(jsonSchemaOf(previewArgs));
export const confirmSchemas = toolSchemasOf(jsonSchemaOf(confirmArgs));
export const callToolSchemas = toolSchemasOf(jsonSchemaOf(callToolArgs));
export const getResultsSchemas = toolSchemasOf(jsonSchemaOf(getResultsArgs));
export const requestJournalSchemas = toolSchemasOf(jsonSchemaOf(journalRequestBody));
export const listJournalsSchemas = toolSchemasOf(listJournalsSchema);

/** alerts: one tool for the alerts of POST/GET /api/v1/alerts, an action and, to create, the REST body's fields. */
const ALERT_ACTIONS = ["create", "list", "get", "pause", "resume", "delete"] as const;
export const alertsArgs = alertBody.partial().extend({
  action: z
    .enum(ALERT_ACTIONS)
    .describe("create takes the fields of POST /api/v1/alerts; get, pause, resume and delete take id."),
  id: z.string().max(64).optional().describe("The alert id (`al_…`)."),
});
export const alertsSchemas = toolSchemasOf(jsonSchemaOf(alertsArgs));
