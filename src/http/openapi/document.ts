// The OpenAPI 3.1 document, generated from the zod schemas the routes validate with (request bodies, query parameters)
// and from the response schemas in responses.ts: one source for behaviour and documentation.
import { z } from "zod";
import { DESCRIPTIONS } from "./descriptions.js";
import {
  alertRunsQuery,
  dashboardExportQuery,
  dashboardWorkExportQuery,
  dashboardWorkQuery,
  operatorDoneQuery,
  operatorListQuery,
  organizationListQuery,
  queriesQuery,
  reconciliationQuery,
  webhookDeliveriesQuery,
} from "../../wire/schemas.js";
import {
  EXPORT_CONTENT,
  HEADERS,
  NAMED_SCHEMAS,
  OPERATOR_ERRORS,
  headerRefs,
  queryParameters,
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

/** The JSON Schema of one request schema as a client sends it (`io: 'input'`: a field with a default is optional). */
export function requestJsonSchema(schema: z.ZodType): Json {
  return withoutDialect(z.toJSONSchema(schema, { io: "input", override: withoutSafeIntegerBounds }) as Json);
}

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

const OPERATIONS: Operation[] = [
  // health and docs
  {
    method: "get",
    path: "/healthz",
    tag: "health",
    access: "public",
    operationId: "liveness",
    summary: "Liveness",
    response: "Liveness",
    errors: [],
  },
  {
    method: "get",
    path: "/readyz",
    tag: "health",
    access: "public",
    operationId: "readiness",
    summary: "Readiness: the event store, Temporal and the search engine answer",
    response: "Readiness",
    responseDescription: "Ready; 503 with the same body when a dependency is down",
    errors: [503],
  },
  {
    method: "get",
    path: "/openapi.json",
    tag: "docs",
    access: "public",
    operationId: "openApiDocument",
    summary: "This document",
    response: { content: { "application/json": { schema: { type: "object" } } } },
    errors: [],
  },
  {
    method: "get",
    path: "/docs",
    tag: "docs",
    access: "public",
    operationId: "docsPage",
    summary: "This document rendered as a page (Swagger UI, served locally)",
    response: { content: { "text/html": { schema: { type: "string" } } } },
    errors: [],
  },
  {
    method: "get",
    path: "/docs/assets/{file}",
    tag: "docs",
    access: "public",
    operationId: "docsAsset",
    summary: "The documentation page's scripts and styles",
    response: {
      content: {
        "application/javascript": { schema: { type: "string" } },
        "text/css": { schema: { type: "string" } },
        "image/png": { schema: { type: "string", contentMediaType: "image/png" } },
      },
    },
    errors: [404],
  },
  // operator
  ...operatorOperations(),
  // dashboard
  ...dashboardOperations(),
  ...dashboardQueryOperations(),
];

/** The dashboard operations' builders: a page (HTML), a form (form or JSON body, CSRF) and downloads. */
function dashboardBuilders() {
  const htmlPage = (description: string) => ({ content: { "text/html": { schema: { type: "string" } } }, description });
  const csv = { content: { "text/csv": { schema: { type: "string" } } } };
  const op = (
    method: Operation["method"],
    path: string,
    access: Access,
    operationId: string,
    summary: string,
    rest: Pick<Operation, "response"> & Partial<Operation>,
  ): Operation => ({
    method,
    path,
    tag: "dashboard",
    access,
    operationId,
    summary,
    errors: access === "dashboardOpen" ? [422, 429] : [401, 403, 404, 422, 429],
    ...rest,
  });
  const page = (path: string, operationId: string, summary: string, description?: string) =>
    op("get", path, "session", operationId, summary, {
      response: htmlPage(summary),
      ...(description ? { description } : {}),
      errors: [401, 403, 429],
    });
  const form = (
    path: string,
    operationId: string,
    summary: string,
    body: SchemaName,
    response: SchemaName,
    description: string,
    status = 200,
  ) =>
    op("post", path, "session", operationId, summary, {
      formBody: body,
      response,
      status,
      description:
        `${description} Needs the session's CSRF token (\`_csrf\` field or X-CSRF-Token). A browser (Accept: ` +
        "text/html) gets a page or a 303 redirect instead of JSON.",
    });
  return { htmlPage, csv, op, page, form };
}

/** The recent queries, one query's rows and their unlock, and a work's page (dashboardQueryRoutes.ts). */
function dashboardQueryOperations(): Operation[] {
  const { htmlPage, op, page, form } = dashboardBuilders();
  return [
    op(
      "get",
      "/dashboard/queries/{queryId}/export",
      "session",
      "dashboardQueryExport",
      "One of the organization's kept searches (7 days) as BibTeX, RIS or CSL-JSON: one entry per work, in " +
        "result order",
      {
        query: queryParameters(dashboardExportQuery),
        response: { content: EXPORT_CONTENT },
        errors: [401, 403, 404, 410, 422, 429],
      },
    ),
    op(
      "get",
      "/dashboard/queries",
      "session",
      "dashboardQueries",
      "Recent searches and previews, filtered by key, collection, days and cost; each opens to its rows",
      {
        response: htmlPage("The recent queries page"),
        query: queryParameters(queriesQuery, {
          queryId: "Only this search (a ledger entry links here).",
          key: "Only this key's searches and previews (its id).",
          collection: "Only those searching this collection.",
          from: "From this day (YYYY-MM-DD, UTC).",
          to: "To this day, included (YYYY-MM-DD, UTC).",
          minCost: "Costing at least this many credits (a preview: its unlocks).",
          maxCost: "Costing at most this many credits.",
        }),
        errors: [401, 403, 422, 429],
      },
    ),
    page(
      "/dashboard/queries/{queryId}",
      "dashboardQuery",
      "One kept search or preview of the organization: its rows owned or locked, unlocking the ticked ones",
      "Any member sees the organization's queries; only a member who may use the preview's key unlocks its rows. " +
        "Another organization's query is 404; one older than 7 days is 410 CACHED_RESULT_EXPIRED.",
    ),
    form(
      "/dashboard/queries/{queryId}/unlock",
      "dashboardQueryUnlock",
      "Quote, then unlock, ticked rows of a recent preview",
      "DashboardPlaygroundUnlockForm",
      "PlaygroundUnlock",
      "The playground's unlock (POST /dashboard/playground/unlock) from the query's page: without `confirm` the " +
        "cost, nothing charged; with it the unlock paid by the preview's key, the member the actor. A member who " +
        "may not use the key is 422; another organization's preview 404.",
    ),
    op(
      "get",
      "/dashboard/works",
      "session",
      "dashboardWork",
      "A work's page: what GET /api/v1/works/{id} answers the key, its abstract, references and citing works",
      {
        query: queryParameters(dashboardWorkQuery, {
          id: "The work: a DOI, pmid:…, pmcid:…, an OpenAlex id or a result's doc_id.",
          key: "The key to read it as (one the member may use); absent: the member's first.",
        }),
        response: htmlPage("The work's page"),
        errors: [401, 403, 404, 422, 429],
      },
    ),
    op(
      "get",
      "/dashboard/works/export",
      "session",
      "dashboardWorkExport",
      "A work as BibTeX, RIS or CSL-JSON, read as the key (POST /api/v1/works/batch?format=…)",
      {
        query: queryParameters(dashboardWorkExportQuery),
        response: { content: EXPORT_CONTENT },
        errors: [401, 403, 404, 422, 429],
      },
    ),
  ];
}

function dashboardOperations(): Operation[] {
  const { htmlPage, csv, op, page, form } = dashboardBuilders();
  const operatorForm = (
    path: string,
    operationId: string,
    summary: string,
    body: SchemaName,
    response: SchemaName,
    status = 200,
  ) =>
    op("post", path, "operatorPage", operationId, summary, {
      formBody: body,
      response,
      status,
      description: DESCRIPTIONS.operatorForm,
    });
  return [
    op(
      "get",
      "/dashboard/login",
      "dashboardOpen",
      "dashboardLoginPage",
      "The sign-in page (members and the operator)",
      { response: htmlPage("The sign-in page; sets the form cookie its forms echo"), errors: [429] },
    ),
    op("post", "/dashboard/login", "dashboardOpen", "dashboardLogin", "Sign in with email and password", {
      formBody: "LoginRequest",
      response: "DashboardSignedIn",
      description: DESCRIPTIONS.dashboardLogin,
      errors: [401, 403, 422, 429],
    }),
    op(
      "post",
      "/dashboard/operator/login",
      "dashboardOpen",
      "dashboardOperatorLogin",
      "Sign in to the operator pages with the operator token",
      { formBody: "OperatorLoginRequest", response: "DashboardSignedIn", errors: [401, 403, 422, 429] },
    ),
    op("get", "/dashboard/invite/{token}", "dashboardOpen", "dashboardInvitePage", "An invite's set-password page", {
      response: htmlPage("The set-password page"),
      description: "A used, expired or unknown invite is 404 (alike); each counts as a failed sign-in of the address.",
      errors: [404, 429],
    }),
    op(
      "post",
      "/dashboard/invite/{token}",
      "dashboardOpen",
      "dashboardAcceptInvite",
      "Set a password: creates the member and signs them in",
      {
        formBody: "SetPasswordRequest",
        response: "DashboardSignedIn",
        status: 201,
        description: "At least 12 characters. A used or expired invite is refused with 404.",
        errors: [403, 404, 422, 429],
      },
    ),
    op("get", "/dashboard/assets/{file}", "dashboardOpen", "dashboardAsset", "The pages' stylesheet and script", {
      response: {
        content: {
          "text/css": { schema: { type: "string" } },
          "application/javascript": { schema: { type: "string" } },
        },
      },
      errors: [404, 429],
    }),
    page(
      "/dashboard",
      "dashboardOverview",
      "Overview: balance, billing mode, quota use, spend this month, low-balance notice",
    ),
    page(
      "/dashboard/keys",
      "dashboardKeys",
      "Settings > API Keys: every key with mode, scope, spend, cap, created and last used",
    ),
    form(
      "/dashboard/keys",
      "dashboardCreateKey",
      "Create an API key (the secret is shown once)",
      "DashboardKeyForm",
      "CreatedKey",
      "Any member; a spending cap at creation is an owner's.",
      201,
    ),
    form(
      "/dashboard/keys/{keyId}/revoke",
      "dashboardRevokeKey",
      "Revoke a key",
      "CsrfOnlyForm",
      "RevokedKey",
      "Owners revoke any key of their organization, members the keys they created (403 otherwise); a key of " +
        "another organization is 404.",
    ),
    form(
      "/dashboard/keys/{keyId}/cap",
      "dashboardSetCap",
      "Set or clear (empty) a key's spending cap",
      "DashboardCapForm",
      "DashboardCap",
      "Owners only.",
    ),
    page("/dashboard/playground", "dashboardPlayground", "Playground: run a preview as one of your keys"),
    form(
      "/dashboard/playground",
      "dashboardPlaygroundPreview",
      "Run a preview as one of the organization's keys",
      "DashboardPlaygroundForm",
      "PlaygroundPreview",
      "The fields of POST /api/v1/search/preview as form text (collections comma-separated, filters as JSON) and " +
        "`key`, the key it runs as: an owner any unrevoked key of the organization, a member the keys they created " +
        "(422 otherwise). Free, within the organization's previews per hour and the key's collections.",
    ),
    form(
      "/dashboard/playground/unlock",
      "dashboardPlaygroundUnlock",
      "Quote, then unlock, ticked rows of a playground preview",
      "DashboardPlaygroundUnlockForm",
      "PlaygroundUnlock",
      "Without `confirm`: the cost of the ticked rows (`row_1` … `row_30`, each a result id), nothing charged. " +
        "With `confirm` (the cost confirmed, in credits, the most it may charge): the unlock of POST " +
        "/api/v1/search/unlock paid by the preview's key, its cap and the organization's balance and limits " +
        "applying, recorded with the member as actor. A preview of another key or organization is 404.",
    ),
    page("/dashboard/alerts", "dashboardAlerts", "The organization's alerts, with the form that creates one"),
    form(
      "/dashboard/alerts",
      "dashboardCreateAlert",
      "Create an alert paid by one of the organization's live keys",
      "DashboardAlertForm",
      "Alert",
      "The fields of POST /api/v1/alerts as form text (collections comma-separated) and `key`, the live key that " +
        "pays its runs: an owner may choose any live key of the organization, a member the keys they created " +
        "(422 otherwise). Takes one request of the organization's per-minute budget, as the API's creation does. " +
        "A browser is redirected to the alert's page.",
      201,
    ),
    page(
      "/dashboard/alerts/{alertId}",
      "dashboardAlert",
      "An alert with its runs: status, works delivered, charge, queryId",
    ),
    form(
      "/dashboard/alerts/{alertId}/pause",
      "dashboardPauseAlert",
      "Pause an alert",
      "CsrfOnlyForm",
      "Alert",
      "Any member; an alert of another organization is 404.",
    ),
    form(
      "/dashboard/alerts/{alertId}/resume",
      "dashboardResumeAlert",
      "Resume a paused alert",
      "CsrfOnlyForm",
      "Alert",
      "Any member; an alert of another organization is 404.",
    ),
    form(
      "/dashboard/alerts/{alertId}/delete",
      "dashboardDeleteAlert",
      "Delete an alert",
      "CsrfOnlyForm",
      "AlertDeleted",
      "Any member; its schedule goes with it and its runs stay in the ledger. An alert of another organization is 404.",
    ),
    page("/dashboard/webhooks", "dashboardWebhooks", "The organization's webhook endpoints and low-balance threshold"),
    form(
      "/dashboard/webhooks",
      "dashboardCreateWebhook",
      "Register a webhook endpoint; its signing secret is shown once",
      "DashboardWebhookForm",
      "WebhookEndpointWithSecret",
      "Owners only (403 for members). The fields of POST /api/v1/webhooks, the event types comma-separated; " +
        "the same URL rules apply. The secret is in this answer only: a browser gets the page with it (201), " +
        "never a redirect.",
      201,
    ),
    form(
      "/dashboard/notifications",
      "dashboardSetNotifications",
      "Set or clear (empty) the balance under which `balance.low` is sent",
      "DashboardNotificationsForm",
      "NotificationSettings",
      "Owners only (403 for members).",
    ),
    page(
      "/dashboard/webhooks/{endpointId}",
      "dashboardWebhook",
      "A webhook endpoint with its deliveries and every attempt (status, latency, the answer's excerpt)",
    ),
    form(
      "/dashboard/webhooks/{endpointId}/test",
      "dashboardTestWebhook",
      "Send a test event to the endpoint",
      "CsrfOnlyForm",
      "WebhookEventQueued",
      "Owners only (403 for members); an endpoint of another organization is 404.",
      202,
    ),
    form(
      "/dashboard/webhooks/{endpointId}/rotate-secret",
      "dashboardRotateWebhookSecret",
      "Rotate the endpoint's signing secret; the new one is shown once",
      "CsrfOnlyForm",
      "WebhookEndpointWithSecret",
      "Owners only (403 for members); for 24 hours each delivery carries both signatures. A browser gets " +
        "the endpoint's page with the new secret, never a redirect.",
    ),
    op(
      "post",
      "/dashboard/webhooks/{endpointId}/deliveries/{eventId}/redeliver",
      "session",
      "dashboardRedeliverWebhookEvent",
      "Send an ended delivery again, with the same webhook-id",
      {
        status: 202,
        response: "WebhookEventQueued",
        errors: [401, 403, 404, 409, 429],
        description:
          "Owners only (403 for members); a delivery still under way is 409. No body: the session's CSRF token " +
          "goes in X-CSRF-Token (or a form's `_csrf` field). A browser is redirected to the endpoint's page.",
      },
    ),
    form(
      "/dashboard/webhooks/{endpointId}/delete",
      "dashboardDeleteWebhook",
      "Delete the endpoint: nothing more is sent to it",
      "CsrfOnlyForm",
      "WebhookEndpointDeleted",
      "Owners only (403 for members); an endpoint of another organization is 404.",
    ),
    page(
      "/dashboard/usage",
      "dashboardUsage",
      "Usage: searches, tokens and spend per day and collection, last 30 days (SVG charts and a table)",
    ),
    op("get", "/dashboard/usage.csv", "session", "dashboardUsageCsv", "Usage per day and collection as CSV", {
      response: csv,
      errors: [401, 403, 429],
    }),
    page("/dashboard/ledger", "dashboardLedger", "Ledger entries with the balance after each"),
    op("get", "/dashboard/ledger.csv", "session", "dashboardLedgerCsv", "The ledger as CSV", {
      response: csv,
      errors: [401, 403, 429],
    }),
    page("/dashboard/members", "dashboardMembers", "The organization's members and open invites"),
    form(
      "/dashboard/members/invites",
      "dashboardInvite",
      "Invite someone to the organization",
      "DashboardInviteForm",
      "DashboardInvite",
      "Owners only.",
      201,
    ),
    form(
      "/dashboard/members/{memberId}/remove",
      "dashboardRemoveMember",
      "Remove a member: their sessions stop at once and their address may be invited again",
      "CsrfOnlyForm",
      "MemberRemoved",
      "Owners only; the last owner stays (422). The keys the member created stay the organization's. A member " +
        "of another organization is 404.",
    ),
    form(
      "/dashboard/invites/{inviteId}/cancel",
      "dashboardCancelInvite",
      "Withdraw an invite not yet used: its link reads as unknown",
      "CsrfOnlyForm",
      "InviteCancelled",
      "Owners only; a used invite is 422 (remove the member instead).",
    ),
    page("/dashboard/account", "dashboardSessions", "The member's live sessions"),
    form(
      "/dashboard/sessions/{sessionId}/revoke",
      "dashboardRevokeSession",
      "End one of your other sessions",
      "CsrfOnlyForm",
      "DashboardSessionRevoked",
      "Only the member's own sessions (another is 404).",
    ),
    form(
      "/dashboard/logout",
      "dashboardLogout",
      "Sign out: the session ends on the server",
      "CsrfOnlyForm",
      "DashboardSignedOut",
      "The cookie is cleared and the session can no longer be used.",
    ),
    op(
      "get",
      "/dashboard/operator",
      "operatorPage",
      "dashboardOperator",
      "The operator page: organizations (25 a page, searchable) with balances, billing and suspension, " +
        "reconciliation, the hash chain, journal requests",
      {
        response: htmlPage("The operator page"),
        query: queryParameters(operatorListQuery, {
          q: "Organizations whose name or id contains this (case-insensitive).",
          page: "Page number, from 1.",
        }),
        errors: [401, 403, 422, 429],
      },
    ),
    op(
      "get",
      "/dashboard/operator/orgs/{orgId}",
      "operatorPage",
      "dashboardOperatorOrganization",
      "An organization's page for the operator: balance, keys, usage, ledger, members, and the operator's actions",
      {
        response: htmlPage("The organization's page"),
        query: queryParameters(operatorDoneQuery, { done: "The action that led here (shown as a notice)." }),
        errors: [401, 403, 404, 422, 429],
      },
    ),
    operatorForm(
      "/dashboard/operator/orgs/{orgId}/credits",
      "dashboardOperatorAddCredits",
      "Add credits to the organization",
      "OperatorCreditsForm",
      "Balance",
    ),
    operatorForm(
      "/dashboard/operator/orgs/{orgId}/limits",
      "dashboardOperatorChangeLimits",
      "Change the organization's limits",
      "OperatorLimitsForm",
      "Limits",
    ),
    operatorForm(
      "/dashboard/operator/orgs/{orgId}/suspend",
      "dashboardOperatorSuspend",
      "Suspend the organization's billing",
      "OperatorSuspendForm",
      "Organization",
    ),
    operatorForm(
      "/dashboard/operator/orgs/{orgId}/resume",
      "dashboardOperatorResume",
      "Resume the organization's billing",
      "CsrfOnlyForm",
      "Organization",
    ),
    operatorForm(
      "/dashboard/operator/orgs/{orgId}/keys",
      "dashboardOperatorCreateKey",
      "Create an API key for the organization (the secret is shown once)",
      "DashboardKeyForm",
      "CreatedKey",
      201,
    ),
    operatorForm(
      "/dashboard/operator/orgs/{orgId}/keys/{keyId}/revoke",
      "dashboardOperatorRevokeKey",
      "Revoke a key of the organization",
      "CsrfOnlyForm",
      "RevokedKey",
    ),
    operatorForm(
      "/dashboard/operator/orgs/{orgId}/keys/{keyId}/cap",
      "dashboardOperatorSetCap",
      "Set or clear (empty) a key's spending cap",
      "DashboardCapForm",
      "ApiKey",
    ),
    op("get", "/favicon.ico", "dashboardOpen", "favicon", "The service's icon", {
      response: { content: { "image/x-icon": { schema: { type: "string", contentEncoding: "binary" } } } },
      errors: [429],
    }),
  ];
}

/** An operator operation: under /admin/v1, tagged and authorized as the operator's, with the operator errors. */
function operatorOp(
  method: Operation["method"],
  path: string,
  operationId: string,
  summary: string,
  rest: Pick<Operation, "response"> & Partial<Operation>,
): Operation {
  return {
    method,
    path: `/admin/v1${path}`,
    tag: "operator",
    access: "operator",
    operationId,
    summary,
    errors: OPERATOR_ERRORS,
    ...rest,
  };
}

/** Organizations, their money and books, keys and members. */
function operatorAccountOperations(): Operation[] {
  const op = operatorOp;
  const reconciliation = queryParameters(reconciliationQuery, {
    from: "First day (UTC), inclusive.",
    to: "Last day (UTC), inclusive.",
    format: "Ignored here; the ledger takes it.",
  });
  const csv = { "text/csv": { schema: { type: "string" } } };
  return [
    op("post", "/organizations", "createOrganization", "Create an organization", {
      body: "OrganizationRequest",
      status: 201,
      response: "Organization",
    }),
    op(
      "get",
      "/organizations",
      "listOrganizations",
      "Organizations by name, a page at a time, with balance, billing mode and active keys",
      {
        query: queryParameters(organizationListQuery, {
          q: "Part of the name (any case), or a whole organization id.",
          limit: "Page size, 1 to 200.",
          offset: "Organizations to skip.",
        }),
        response: "OrganizationList",
      },
    ),
    op("get", "/organizations/{orgId}", "getOrganization", "An organization", { response: "Organization" }),
    op("post", "/organizations/{orgId}/credits", "addCredits", "Add credits", {
      body: "CreditsRequest",
      response: "Balance",
    }),
    op("post", "/organizations/{orgId}/refunds", "issueRefund", "Refund credits", {
      body: "RefundRequest",
      response: "Balance",
      description:
        "With `queryId`: at most what that query cost the organization (its charge and unlocks) less the " +
        "refunds already tied to it, and only a query the organization paid for; otherwise 422 and nothing " +
        "moves.",
    }),
    op(
      "post",
      "/organizations/{orgId}/billing",
      "changeBillingSettings",
      "Change billing mode, visibility, trial queries",
      { body: "BillingSettingsRequest", response: "Organization" },
    ),
    op("get", "/organizations/{orgId}/prices", "listPrices", "The organization's prices per collection", {
      response: "Prices",
    }),
    op(
      "put",
      "/organizations/{orgId}/prices/{collection}",
      "setPrice",
      "Set the price of a physical collection for the organization",
      { body: "PriceRequest", response: "Prices" },
    ),
    op(
      "delete",
      "/organizations/{orgId}/prices/{collection}",
      "clearPrice",
      "Back to the collection's catalogue price",
      { response: "Prices" },
    ),
    op(
      "get",
      "/organizations/{orgId}/reconciliation",
      "reconcileOrganization",
      "Reconcile charges against the ledger for one organization",
      { query: reconciliation, response: "Reconciliation" },
    ),
    op("get", "/reconciliation", "reconcileAll", "Reconcile every organization", {
      query: reconciliation,
      response: "ReconciliationAll",
    }),
    op("get", "/keys/{keyId}", "getKey", "An API key (never its secret)", { response: "ApiKey" }),
    op(
      "post",
      "/keys/{keyId}/spending-cap",
      "setSpendingCap",
      "Set a key's spending cap in credits, or clear it with null",
      { body: "SpendingCapRequest", response: "ApiKey" },
    ),
    op(
      "post",
      "/organizations/{orgId}/invites",
      "inviteMember",
      "Invite someone to the dashboard as owner or member (one use, 7 days)",
      { body: "InviteRequest", status: 201, response: "Invite" },
    ),
    op(
      "get",
      "/organizations/{orgId}/members",
      "listMembers",
      "The organization's current members and open invites, with their ids",
      { response: "Members" },
    ),
    op(
      "post",
      "/organizations/{orgId}/invites/{inviteId}/cancel",
      "cancelInvite",
      "Withdraw an invite not yet used (a used one is 422)",
      { response: "InviteCancelled" },
    ),
    op(
      "post",
      "/organizations/{orgId}/members/{memberId}/remove",
      "removeMember",
      "Remove a member: their sessions stop and their address is free again; the last owner stays (422)",
      { response: "MemberRemoved" },
    ),
    op(
      "post",
      "/organizations/{orgId}/limits",
      "changeLimits",
      "Change per-minute, daily, monthly and preview limits",
      { body: "LimitsRequest", response: "Limits" },
    ),
    op(
      "post",
      "/organizations/{orgId}/suspend",
      "suspendOrganization",
      "Suspend billing (requests answer 402 BILLING_SUSPENDED)",
      { body: "SuspendRequest", response: "Organization" },
    ),
    op("post", "/organizations/{orgId}/resume", "resumeOrganization", "Resume a suspended organization", {
      response: "Organization",
    }),
    op("post", "/organizations/{orgId}/keys", "createKey", "Create an API key; the secret is shown once", {
      body: "KeyRequest",
      status: 201,
      response: "CreatedKey",
    }),
    op("post", "/keys/{keyId}/revoke", "revokeKey", "Revoke an API key", { response: "RevokedKey" }),
    op("get", "/organizations/{orgId}/balance", "getBalance", "Balance", { response: "Balance" }),
    op("get", "/organizations/{orgId}/ledger", "getLedger", "Ledger entries (JSON, or CSV with format=csv)", {
      query: queryParameters(reconciliationQuery, { format: "`csv` answers text/csv." }).filter(
        (p) => p.name === "format",
      ),
      response: { content: { "application/json": { schema: ref("Ledger") }, ...csv } },
    }),
    op("get", "/organizations/{orgId}/ledger.csv", "getLedgerCsv", "Ledger entries as CSV", {
      response: { content: csv },
    }),
  ];
}

/** The log's checks, journal requests, retractions, collections and their ingestions. */
function operatorCatalogueOperations(): Operation[] {
  const op = operatorOp;
  return [
    op("post", "/replay", "replay", "Rebuild the projections from the event log and compare", {
      description:
        "A divergence is 409 CONFLICT with the replay report in error.details; a replay already running is 409 too.",
      response: "ReplayReport",
      errors: [401, 409, 429],
    }),
    op(
      "get",
      "/journal-requests",
      "listJournalRequests",
      "Journal requests, grouped by journal, most requested first",
      { response: "JournalRequestSummaries" },
    ),
    op(
      "post",
      "/retractions",
      "loadRetractions",
      "Load newer retraction lists: their works leave the results of every collection that excludes " +
        "retractions, without re-ingesting",
      {
        body: "RetractionsRequest",
        response: "RetractionsLoad",
        description: DESCRIPTIONS.loadRetractions,
      },
    ),
    op(
      "get",
      "/collections",
      "listAdminCollections",
      "The catalogue: collections with their state, size and last ingestion; meta-collections; retired names",
      { response: "AdminCollections" },
    ),
    op("post", "/collections", "defineCollection", "Define a plain collection and start its first ingestion", {
      body: "CollectionRequest",
      status: 201,
      response: "DefinedCollection",
      description:
        "Recorded as an event. Its searches answer 503 until the first ingestion completes. 409 when the name " +
        "is taken (names of retired collections too); 422 for a bad definition, an unreadable file or a name a " +
        "fixed route uses.",
    }),
    op("patch", "/collections/{name}", "changeCollection", "Change a collection's display name, description or price", {
      body: "CollectionChangeRequest",
      response: "AdminCollection",
    }),
    op(
      "delete",
      "/collections/{name}",
      "retireCollection",
      "Retire a collection: its searches answer 404 from now on",
      {
        response: "RetiredCollection",
        description:
          "Keys scoped to it lose it; its query records stay re-fetchable for their 7 days; its index is " +
          "deleted. 409 while a meta-collection lists it or an ingestion of it runs.",
      },
    ),
    op("put", "/meta-collections/{metaCollection}", "defineMetaCollection", "Define or change a meta-collection", {
      body: "MetaCollectionRequest",
      status: 201,
      response: "AdminMetaCollection",
      description: "201 when defined, 200 when changed. Members are plain collections, at least two.",
    }),
    op(
      "post",
      "/collections/{name}/ingest",
      "ingestCollection",
      "Ingest source files into a plain collection (upsert or replace) while it keeps answering searches",
      {
        body: "IngestRequest",
        status: 202,
        response: "IngestionStarted",
        description: DESCRIPTIONS.ingestCollection,
      },
    ),
    op("post", "/ingestions/{ingestionId}/cancel", "cancelIngestion", "Cancel a running ingestion", {
      response: "IngestionStatus",
      errors: [401, 404, 409, 429],
      description:
        "Its workflow stops and it is recorded `failed` with the error `cancelled: by the operator` and the " +
        "counts of the batches it committed (each batch is whole). Its collection can then be ingested again " +
        "or retired. 409 when the ingestion has already ended.",
    }),
    op("put", "/uploads/{name}", "uploadFile", "Upload a source file or retraction list into the data root", {
      rawBody: "The file's bytes, streamed (gzip them yourself for a `.gz` name).",
      status: 201,
      response: "StoredUpload",
      description: DESCRIPTIONS.uploadFile,
    }),
    op(
      "get",
      "/ingestions/{ingestionId}",
      "getIngestion",
      "An ingestion's state and counts: progress while it runs, the recorded outcome after",
      { response: "IngestionStatus" },
    ),
  ];
}

/** An organization's webhook endpoints and alerts, and the hash chain's check. */
function operatorFeatureOperations(): Operation[] {
  const op = operatorOp;
  return [
    op("get", "/organizations/{orgId}/webhooks", "listOrganizationWebhooks", "The organization's webhook endpoints", {
      response: "WebhookEndpointList",
    }),
    op(
      "post",
      "/organizations/{orgId}/webhooks",
      "createOrganizationWebhook",
      "Register a webhook endpoint for the organization; the secret is shown once",
      {
        body: "WebhookEndpointRequest",
        status: 201,
        response: "WebhookEndpointWithSecret",
        errors: [401, 404, 409, 422, 429],
      },
    ),
    op(
      "delete",
      "/organizations/{orgId}/webhooks/{id}",
      "deleteOrganizationWebhook",
      "Delete a webhook endpoint of the organization",
      { response: "WebhookEndpointDeleted" },
    ),
    op(
      "post",
      "/organizations/{orgId}/webhooks/{id}/rotate-secret",
      "rotateOrganizationWebhookSecret",
      "Rotate a webhook endpoint's secret; the new one is shown once",
      { response: "WebhookEndpointWithSecret" },
    ),
    op(
      "post",
      "/organizations/{orgId}/webhooks/{id}/test",
      "testOrganizationWebhook",
      "Send a test event to a webhook endpoint",
      { status: 202, response: "WebhookEventQueued", errors: [401, 404, 409, 429] },
    ),
    op(
      "get",
      "/organizations/{orgId}/webhooks/{id}/deliveries",
      "listOrganizationWebhookDeliveries",
      "A webhook endpoint's deliveries with every attempt",
      { query: queryParameters(webhookDeliveriesQuery), response: "WebhookDeliveryList" },
    ),
    op("get", "/organizations/{orgId}/alerts", "listOrganizationAlerts", "The organization's alerts", {
      response: "AlertList",
    }),
    op(
      "get",
      "/organizations/{orgId}/alerts/{id}",
      "getOrganizationAlert",
      "An alert of the organization with its runs, newest first",
      { query: queryParameters(alertRunsQuery), response: "AlertWithRuns" },
    ),
    op("post", "/organizations/{orgId}/alerts/{id}/pause", "pauseOrganizationAlert", "Pause an alert", {
      response: "Alert",
      description: "Recorded with the operator as actor; its runs stop until it is resumed (a schedule is paused).",
    }),
    op("post", "/organizations/{orgId}/alerts/{id}/resume", "resumeOrganizationAlert", "Resume a paused alert", {
      response: "Alert",
    }),
    op("delete", "/organizations/{orgId}/alerts/{id}", "deleteOrganizationAlert", "Delete an alert", {
      response: "AlertDeleted",
      description:
        "Its schedule goes with it; the runs it made stay in the ledger. An alert of another organization is 404.",
    }),
    op("get", "/verify", "verifyChain", "Verify the event log's hash chain", {
      description: "A break is 409 CONFLICT with the verdict in error.details.",
      response: "ChainVerdict",
      errors: [401, 409, 429],
    }),
  ];
}

function operatorOperations(): Operation[] {
  return [...operatorAccountOperations(), ...operatorCatalogueOperations(), ...operatorFeatureOperations()];
}

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
      ...Object.fromEntries(
        [...new Set([...op.errors, ...(op.access === "public" || op.access === "dashboardOpen" ? [] : [500])])]
          .sort((a, b) => a - b)
          .map((s) => [String(s), errorResponse(s, op.access)]),
      ),
    },
  };
}

/**
 * The document: the declared routes' operations (src/http/openApiDocument.ts gathers them), then the operations of the
 * route groups not declared that way yet (OPERATIONS).
 */
export function documentOf(declared: readonly Operation[]): Json {
  const paths: Record<string, Record<string, Json>> = {};
  for (const op of [...declared, ...OPERATIONS]) {
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
