// The OpenAPI 3.1 document, generated from the zod schemas the routes validate with (request bodies, query parameters)
// and from the response schemas in responses.ts: one source for behaviour and documentation.
import { z } from "zod";
import { DESCRIPTIONS } from "./descriptions.js";
import {
  HEADERS,
  NAMED_SCHEMAS,
  headerRefs,
  ref,
  type Access,
  type Json,
  type Operation,
  type SchemaName,
} from "./operation.js";
import { AUTHOR_ID_EXAMPLE, FREE_BODY_EXAMPLES, PATH_PARAMETER_EXAMPLES, REQUEST_EXAMPLES } from "./requestExamples.js";
import { AUTHOR_ID_DESCRIPTION } from "../../usecases/authors/authors.js";

/** zod states "any safe integer" of a bare .int() as bounds; the document leaves an unbounded integer unbounded. */
const withoutSafeIntegerBounds = ({ jsonSchema }: { jsonSchema: Json }) => {
  if (jsonSchema.minimum === Number.MIN_SAFE_INTEGER) delete jsonSchema.minimum;
  if (jsonSchema.maximum === Number.MAX_SAFE_INTEGER) delete jsonSchema.maximum;
};

function withoutDialect(schema: Json): Json {
  const { $schema: _dialect, $id: _id, ...rest } = schema;
  return rest;
}

function componentSchemas(): Record<string, Json> {
  const registry = z.registry<{ id: string }>();
  for (const [id, schema] of Object.entries(NAMED_SCHEMAS)) registry.add(schema, { id });
  const { schemas } = z.toJSONSchema(registry, {
    io: "input",
    uri: (id) => `#/components/schemas/${id}`,
    override: withoutSafeIntegerBounds,
  });
  return Object.fromEntries(Object.entries(schemas).map(([id, schema]) => [id, withoutDialect(schema as Json)]));
}

const PATH_PARAMETERS: Record<string, string> = {
  collection: "Collection name (a meta-collection name searches all its members); resolves case-insensitively.",
  name: "Collection name.",
  queryId: "The queryId of an earlier search or preview, made with the same API key.",
  prefix: "Tool namespace prefix.",
  tool: "Tool name.",
  orgId: "Organization id.",
  keyId: "API key id.",
  file: "Asset file name.",
  token: "The invite's token (from the invite link).",
  sessionId: "A session of the signed-in member (as listed on /dashboard/account).",
  ingestionId: "The ingestionId that starting the ingestion answered.",
  eventId: "The event id (`msg_…`), as its deliveries list it and its `webhook-id` header carries it.",
  alertId: "The alert id (`al_…`).",
  endpointId: "The webhook endpoint id (`we_…`).",
};

/** `id` is a work on the works routes and a webhook endpoint on the webhook routes. */
function idParameter(path: string): string {
  if (path.includes("/works/"))
    return (
      "A work, as people paste it: a DOI (bare, `doi:…` or `https://doi.org/…`), `pmid:NNN` or a PubMed URL " +
      "(`https://pubmed.ncbi.nlm.nih.gov/NNN/`), `pmcid:PMCNNN` (or `PMCNNN`, or its PMC URL), an OpenAlex id " +
      "(`W…`, `openalex:W…` or `https://openalex.org/W…`), a bare number (a PubMed id, else a `doc_id`; " +
      "404 suggests `pmid:NNN`) or the `doc_id` a result row carries. URL-encoded as one segment " +
      "(`10.1176%2Fappi.ajp.2009.09040539`), or with its slashes as they are (`10.1176/appi.ajp.2009.09040539`, " +
      "`https://doi.org/10.1176/…`): a path ending in `/references` or `/cited-by` is that list of the id before it."
    );
  if (path.includes("/authors/")) return AUTHOR_ID_DESCRIPTION;
  if (path.includes("/webhooks/")) return "The webhook endpoint id (`we_…`).";
  if (path.includes("/alerts/")) return "The alert id (`al_…`).";
  return "id";
}

function pathParameters(path: string): Json[] {
  return [...path.matchAll(/\{(\w+)\}/g)].map(([, name]) => ({
    name,
    in: "path",
    required: true,
    description: name === "id" ? idParameter(path) : (PATH_PARAMETERS[name!] ?? name),
    schema: { type: "string" },
    // the example of `id` is a work's
    ...(name === "id" && path.includes("/authors/")
      ? { example: AUTHOR_ID_EXAMPLE }
      : PATH_PARAMETER_EXAMPLES[name!] && (name !== "id" || path.includes("/works/"))
        ? { example: PATH_PARAMETER_EXAMPLES[name!] }
        : {}),
  }));
}

const ERROR_DESCRIPTIONS: Record<number, string> = {
  401: "UNAUTHORIZED (no key), INVALID_API_KEY, API_KEY_REVOKED",
  402: "INSUFFICIENT_CREDITS or BILLING_SUSPENDED; nothing charged",
  403: "NO_COLLECTION_ACCESS, SANDBOX_UNSUPPORTED_ENDPOINT",
  404: "COLLECTION_NOT_FOUND, WORK_NOT_FOUND, or NOT_FOUND",
  409:
    "CONFLICT, or IDEMPOTENCY_KEY_IN_PROGRESS: the first request with this Idempotency-Key is still running " +
    "(retry with the same key after Retry-After for its answer)",
  410:
    "CACHED_RESULT_EXPIRED: older than 7 days, or written by an older payload version; on unlock also " +
    "RESULT_WITHDRAWN: a row to buy whose document was removed since the preview (nothing charged)",
  422: "VALIDATION_ERROR, INVALID_FILTER, INVALID_QUERY, IDEMPOTENCY_KEY_REUSED, TOOL_ERROR",
  429:
    "QUOTA_EXCEEDED, API_KEY_BUDGET_EXCEEDED, PREVIEW_RATE_LIMIT_EXCEEDED, SEARCH_RATE_LIMITED; Retry-After " +
    "where sent",
  500: "INTERNAL_ERROR",
  503:
    "SERVICE_UNAVAILABLE: a dependency is unreachable, or the search engine did not answer within the search " +
    "deadline (SEARCH_DEADLINE_MS); nothing was charged, retry after Retry-After",
};

const SECURITY: Record<Access, Json[]> = {
  apiKey: [{ BearerAuth: [] }, { ApiKeyHeader: [] }],
  operator: [{ OperatorBearer: [] }],
  public: [],
  dashboardOpen: [],
  session: [{ DashboardSession: [] }],
  operatorPage: [{ DashboardSession: [] }, { OperatorBearer: [] }],
};

const BEHIND_IP_LIMITER: ReadonlySet<Access> = new Set(["operator", "dashboardOpen", "session", "operatorPage"]);

function errorResponse(status: number, access: Access): Json {
  // the per-address limiter of the operator API and the dashboard answers with a bare string (the spec), before any
  // credential check
  if (status === 429 && BEHIND_IP_LIMITER.has(access)) {
    return {
      description: "Too many requests from this address (per-IP limiter): a bare `{error: string}`, no envelope",
      headers: headerRefs("Retry-After"),
      content: { "application/json": { schema: ref("TooManyRequestsFromAddress") } },
    };
  }
  return {
    description: ERROR_DESCRIPTIONS[status] ?? "Error",
    ...(status === 409 || status === 429 || status === 503 ? { headers: headerRefs("Retry-After") } : {}),
    content: { "application/json": { schema: ref("Error") } },
  };
}

/** The media type of a request body: its schema and the examples of each schema it may be (requestExamples.ts). */
function bodyMedia(schema: Json, names: readonly SchemaName[]): Json {
  const examples: Record<string, unknown> = {};
  for (const [exampleName, example] of names.flatMap((name) => Object.entries(REQUEST_EXAMPLES[name] ?? {}))) {
    if (exampleName in examples)
      throw new Error(`request example "${exampleName}" is named twice in the body of ${names.join(" | ")}`);
    examples[exampleName] = example;
  }
  return { schema, ...(Object.keys(examples).length > 0 ? { examples } : {}) };
}

function operationObject(op: Operation): Json {
  const success =
    typeof op.response === "string"
      ? { content: { "application/json": { schema: ref(op.response) } } }
      : { content: op.response.content };
  const parameters = [...pathParameters(op.path), ...(op.query ?? []), ...(op.headerParameters ?? [])];
  return {
    operationId: op.operationId,
    summary: op.summary,
    ...(op.description ? { description: op.description } : {}),
    tags: [op.tag],
    security: SECURITY[op.access],
    ...(parameters.length ? { parameters } : {}),
    ...(op.body
      ? {
          requestBody: {
            required: true,
            content: {
              "application/json": Array.isArray(op.body)
                ? bodyMedia({ oneOf: op.body.map(ref) }, op.body)
                : bodyMedia(ref(op.body), [op.body]),
            },
          },
        }
      : {}),
    ...(op.formBody
      ? {
          requestBody: {
            required: true,
            content: {
              "application/x-www-form-urlencoded": bodyMedia(ref(op.formBody), [op.formBody]),
              "application/json": bodyMedia(ref(op.formBody), [op.formBody]),
            },
          },
        }
      : {}),
    ...(op.rawBody
      ? {
          requestBody: {
            required: true,
            description: op.rawBody,
            content: {
              "application/octet-stream": {
                schema: { type: "string", contentEncoding: "binary" },
                examples: {
                  jsonl: {
                    summary: "A jsonl corpus, one document a line",
                    value:
                      '{"id": "reef-1", "title": "Coral bleaching on the northern reef", "text": "Coral ' +
                      'bleaching followed the marine heatwave."}\n',
                  },
                },
              },
            },
          },
        }
      : {}),
    ...(op.freeBody
      ? {
          requestBody: {
            required: false,
            description: op.freeBody,
            content: {
              "application/json": {
                schema: { type: "object" },
                ...(FREE_BODY_EXAMPLES[op.operationId] ? { examples: FREE_BODY_EXAMPLES[op.operationId] } : {}),
              },
            },
          },
        }
      : {}),
    responses: {
      [String(op.status ?? 200)]: {
        description: op.responseDescription ?? op.summary,
        headers: headerRefs("X-Request-Id", ...(op.headers ?? [])),
        ...success,
      },
      ...(op.accepted
        ? {
            "202": {
              description: op.accepted.description,
              headers: headerRefs("X-Request-Id", ...(op.accepted.headers ?? [])),
              content: { "application/json": { schema: ref(op.accepted.response) } },
            },
          }
        : {}),
      ...Object.fromEntries(
        [...new Set([...op.errors, ...(op.access === "public" || op.access === "dashboardOpen" ? [] : [500])])]
          .sort((a, b) => a - b)
          .map((s) => [String(s), errorResponse(s, op.access)]),
      ),
    },
  };
}

/** The document: the declared routes' operations (src/http/openApiDocument.ts gathers them), with the components. */
export function documentOf(declared: readonly Operation[]): Json {
  const paths: Record<string, Record<string, Json>> = {};
  for (const op of declared) {
    if (paths[op.path]?.[op.method]) throw new Error(`${op.method.toUpperCase()} ${op.path} is described twice`);
    (paths[op.path] ??= {})[op.method] = operationObject(op);
  }
  return {
    openapi: "3.1.0",
    info: {
      title: "litsearch: literature search API",
      version: "1.0.0",
      description: DESCRIPTIONS.document,
    },
    tags: [
      { name: "search", description: "Search, preview, unlock, re-fetch, quota (API key)" },
      {
        name: "works",
        description: "Works by identifier, their references and citing works, and exports (API key; free)",
      },
      {
        name: "authors",
        description: "People by OpenAlex author id or ORCID, a search by name, a person's works (API key; free)",
      },
      { name: "catalogue", description: "Which journals a collection holds; journal requests (API key)" },
      {
        name: "webhooks",
        description:
          "Signed deliveries of what happened (Standard Webhooks; API key): endpoints, deliveries, attempts; " +
          "see docs/webhooks.md",
      },
      { name: "tools", description: "The tool gateway (API key)" },
      {
        name: "mcp",
        description:
          "The MCP server (Streamable HTTP, stateless; API key): the same use cases as REST, see docs/agents.md",
      },
      {
        name: "operator",
        description:
          "The operator API: organizations, credits, keys, prices, invites, ledger, audit (operator token, not " +
          "an API key)",
      },
      {
        name: "dashboard",
        description:
          "The members' console and the operator page, served as HTML pages; forms answer JSON to scripts " +
          "(session cookie; every route behind the per-IP limiter)",
      },
      { name: "health", description: "Liveness and readiness (no credentials)" },
      { name: "docs", description: "This document and its page (no credentials)" },
    ],
    security: SECURITY.apiKey,
    paths,
    components: {
      schemas: componentSchemas(),
      headers: HEADERS,
      securitySchemes: {
        BearerAuth: {
          type: "http",
          scheme: "bearer",
          description:
            "API key: `Authorization: Bearer sk_live_...` (live, spends credits) or `sk_test_...` (sandbox: " +
            "synthetic results marked synthetic for search, preview, unlock, re-fetch and assisted search, at " +
            "no cost and never in the ledger; tool calls answer 403 SANDBOX_UNSUPPORTED_ENDPOINT).",
        },
        ApiKeyHeader: {
          type: "apiKey",
          in: "header",
          name: "X-API-Key",
          description: "The API key in `X-API-Key`, the alternative to the Authorization header.",
        },
        OperatorBearer: {
          type: "http",
          scheme: "bearer",
          description: "The operator token (`ADMIN_TOKEN`) for /admin/v1; API keys are not accepted there.",
        },
        DashboardSession: {
          type: "apiKey",
          in: "cookie",
          name: "ls_session",
          description:
            "The dashboard session cookie set by sign-in (`__Host-ls_session` when the service runs with TLS). " +
            "POSTs also need the CSRF token.",
        },
      },
    },
  };
}
