// The arguments each MCP tool takes. The search tools reuse the REST bodies' zod schemas (src/http/schemas.ts), so a
// tool validates exactly as its REST twin; the MCP-only tools' own arguments carry the reference service's names.
import { z } from 'zod';
import { assistedBody, queryBody, boundQueryBody, journalRequestBody } from '../http/schemas.js';

/** JSON Schema of a zod schema, as a client sends it (defaults optional), without the draft marker clients do not need. */
export function jsonSchemaOf(schema: z.ZodType): Record<string, unknown> {
  const { $schema: _draft, ...rest } = z.toJSONSchema(schema, { io: 'input', unrepresentable: 'any' }) as Record<string, unknown>;
  return rest;
}

/** `search`: the body of POST /query (snake_case options, exactly one of collection and collections). */
export const searchArgs = queryBody;

/** `search-<name>`: the same arguments with the collection bound by the tool's name. */
export const boundSearchArgs = boundQueryBody;

/**
 * What `preview` takes for `search` and for a `search-<name>`: that tool's own arguments (the reference's skills say to
 * preview a search with its arguments), checked as the search checks them and refusing any other field; only the
 * selection fields reach the preview, which never fetches figures and always returns metadata, as the REST preview does.
 */
export const previewSearchArgs = queryBody;
export const boundPreviewSearchArgs = boundQueryBody;

export const noArgs = z.strictObject({});

export const findToolsArgs = z.strictObject({
  query: z.string().max(200, 'query must be at most 200 characters').optional(),
  integration: z.string().max(100, 'integration must be at most 100 characters').optional(),
  format: z.enum(['json', 'text']).default('json'),
});

export const inspectToolArgs = z.strictObject({ tool_name: z.string().min(1).max(200) });

export const previewArgs = z.strictObject({
  tool_name: z.string().min(1).max(200),
  arguments: z.record(z.string(), z.unknown()).default({}),
});

/** `confirm`: the reference's spellings (`queryId` or `query_id`, `result_ids`); checked again as the REST unlock body. */
export const confirmArgs = z.strictObject({
  queryId: z.string().min(1).max(200).optional(),
  query_id: z.string().min(1).max(200).optional(),
  result_ids: z.array(z.string().min(1).max(200)).max(30).nullable().optional(),
  include_figures: z.boolean().optional(),
});

/** `get_results`: a kept search by its id (either spelling, as confirm takes it); figures as GET /results gives them. */
export const getResultsArgs = z.strictObject({
  queryId: z.string().min(1).max(200).optional(),
  query_id: z.string().min(1).max(200).optional(),
  include_figures: z.boolean().optional(),
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
export const listJournalsSchema: Record<string, unknown> = {
  type: 'object',
  properties: {
    collection: { type: 'string', description: 'a collection the key can reach (list_collections)' },
    topic: { type: 'string', maxLength: 200, description: 'rank journals by how much relevant content each holds on this topic' },
    publisher: { type: 'string', maxLength: 200, description: 'only this publisher' },
    min_h_index: { type: 'integer', minimum: 0, maximum: 10_000 },
    limit: { type: 'integer', minimum: 1, maximum: 200, default: 50 },
    offset: { type: 'integer', minimum: 0, maximum: 1_000_000, default: 0 },
  },
  required: ['collection'],
  additionalProperties: false,
};

export const searchSchema = jsonSchemaOf(searchArgs);
export const boundSearchSchema = jsonSchemaOf(boundSearchArgs);

/**
 * `assisted_search`: the body of POST /api/v1/search/assisted, either a new search or `{queryId, answer}` answering its
 * clarification question; checked as that body (the REST rules and messages).
 */
export const assistedSearchSchema: Record<string, unknown> = (() => {
  const start = jsonSchemaOf(assistedBody) as { properties: Record<string, unknown> };
  // an MCP call streams progress and waits for its answer: the REST body's `async` has no meaning here
  const { async: _restOnly, ...startProperties } = start.properties;
  return {
    type: 'object',
    properties: {
      ...startProperties,
      queryId: { type: 'string', maxLength: 200, description: 'to answer a clarification question: the queryId of the clarification_needed answer (send with `answer` only)' },
      answer: { type: 'string', maxLength: 4000, description: 'the answer to the clarification question' },
      idempotency_key: {
        type: 'string',
        minLength: 1,
        maxLength: 255,
        description: 'as the REST Idempotency-Key header: a retry with the same key and arguments returns the first answer and queryId, charged once',
      },
    },
    additionalProperties: false,
  };
})();

/** The JSON Schemas of the MCP-only tools' arguments (the same for every key: converted once, not per request). */
export const noArgsSchema = jsonSchemaOf(noArgs);
export const findToolsSchema = jsonSchemaOf(findToolsArgs);
export const inspectToolSchema = jsonSchemaOf(inspectToolArgs);
export const previewSchema = jsonSchemaOf(previewArgs);
export const confirmSchema = jsonSchemaOf(confirmArgs);
export const callToolSchema = jsonSchemaOf(callToolArgs);
export const getResultsSchema = jsonSchemaOf(getResultsArgs);
export const requestJournalSchema = jsonSchemaOf(journalRequestBody);
