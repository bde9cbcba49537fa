// The words of an OpenAPI operation, as a route declares them beside its handler (src/http/routeDeclaration.ts):
// its access, tag, request schemas (the very zod schemas the route parses with), response, headers and errors.
import { z } from "zod";
import {
  queryBody,
  collectionSearchBody,
  previewBody,
  unlockBody,
  journalRequestBody,
  organizationBody,
  creditsBody,
  refundBody,
  billingSettingsBody,
  priceBody,
  limitsBody,
  keyBody,
  suspendBody,
  retractionsBody,
  collectionBody,
  collectionChangeBody,
  metaCollectionBody,
  ingestBody,
  assistedBody,
  assistedAnswerBody,
  spendingCapBody,
  inviteBody,
  loginBody,
  operatorLoginBody,
  setPasswordBody,
  dashboardKeyForm,
  dashboardCapForm,
  dashboardInviteForm,
  dashboardAlertForm,
  dashboardPlaygroundForm,
  dashboardPlaygroundUnlockForm,
  dashboardWebhookForm,
  dashboardNotificationsForm,
  csrfOnlyForm,
  operatorCreditsForm,
  operatorLimitsForm,
  operatorSuspendForm,
  worksBatchBody,
  worksFacetsBody,
  webhookEndpointBody,
  alertBody,
  notificationSettingsBody,
} from "../../wire/schemas.js";
import * as responses from "./responses.js";
import * as operator from "./operatorResponses.js";
import * as dashboard from "./dashboardResponses.js";

export type Json = Record<string, unknown>;
/**
 * dashboardOpen: no credential, behind the per-IP limiter; session: the dashboard's session cookie (operatorPage: or
 * the operator token)
 */
export type Access = "apiKey" | "operator" | "public" | "dashboardOpen" | "session" | "operatorPage";
type Tag =
  | "search"
  | "works"
  | "authors"
  | "catalogue"
  | "webhooks"
  | "tools"
  | "mcp"
  | "operator"
  | "dashboard"
  | "health"
  | "docs";

/** The named schemas: request schemas are the very objects the routes parse with. */
export const NAMED_SCHEMAS = {
  SearchRequest: queryBody,
  CollectionSearchRequest: collectionSearchBody,
  SearchPreviewRequest: previewBody,
  AssistedSearchRequest: assistedBody,
  AssistedAnswerRequest: assistedAnswerBody,
  UnlockRequest: unlockBody,
  JournalRequestInput: journalRequestBody,
  WebhookEndpointRequest: webhookEndpointBody,
  AlertRequest: alertBody,
  NotificationSettingsRequest: notificationSettingsBody,
  OrganizationRequest: organizationBody,
  CreditsRequest: creditsBody,
  RefundRequest: refundBody,
  BillingSettingsRequest: billingSettingsBody,
  PriceRequest: priceBody,
  LimitsRequest: limitsBody,
  KeyRequest: keyBody,
  SuspendRequest: suspendBody,
  RetractionsRequest: retractionsBody,
  CollectionRequest: collectionBody,
  CollectionChangeRequest: collectionChangeBody,
  MetaCollectionRequest: metaCollectionBody,
  IngestRequest: ingestBody,
  SpendingCapRequest: spendingCapBody,
  InviteRequest: inviteBody,
  LoginRequest: loginBody,
  OperatorLoginRequest: operatorLoginBody,
  SetPasswordRequest: setPasswordBody,
  DashboardKeyForm: dashboardKeyForm,
  DashboardCapForm: dashboardCapForm,
  DashboardInviteForm: dashboardInviteForm,
  DashboardAlertForm: dashboardAlertForm,
  DashboardPlaygroundForm: dashboardPlaygroundForm,
  DashboardPlaygroundUnlockForm: dashboardPlaygroundUnlockForm,
  DashboardWebhookForm: dashboardWebhookForm,
  DashboardNotificationsForm: dashboardNotificationsForm,
  CsrfOnlyForm: csrfOnlyForm,
  OperatorCreditsForm: operatorCreditsForm,
  OperatorLimitsForm: operatorLimitsForm,
  OperatorSuspendForm: operatorSuspendForm,
  Invite: operator.Invite,
  Members: operator.Members,
  DashboardSignedIn: dashboard.DashboardSignedIn,
  DashboardInvite: dashboard.DashboardInvite,
  DashboardCap: dashboard.DashboardCap,
  DashboardSignedOut: dashboard.DashboardSignedOut,
  DashboardSessionRevoked: dashboard.DashboardSessionRevoked,
  MemberRemoved: dashboard.MemberRemoved,
  InviteCancelled: dashboard.InviteCancelled,
  PlaygroundPreview: dashboard.PlaygroundPreview,
  PlaygroundUnlock: dashboard.PlaygroundUnlock,
  Error: responses.ErrorResponse,
  FilterWarning: responses.FilterWarning,
  JournalMetricExpansion: responses.JournalMetricExpansion,
  Discovery: responses.Discovery,
  SearchResult: responses.SearchResult,
  SearchResponse: responses.SearchResponse,
  PreviewResult: responses.PreviewResult,
  AssistedSearchResult: responses.AssistedSearchResult,
  AssistedSearchResponse: responses.AssistedSearchResponse,
  AssistedAccepted: responses.AssistedAccepted,
  AssistedPending: responses.AssistedPending,
  PreviewUnlockResponse: responses.PreviewUnlockResponse,
  SearchResultsPreviewResponse: responses.SearchResultsPreviewResponse,
  Collection: responses.Collection,
  CollectionsResponse: responses.CollectionsResponse,
  QuotaInfo: responses.QuotaInfo,
  JournalRequest: responses.JournalRequest,
  ToolResult: responses.ToolResult,
  WebhookEndpoint: responses.WebhookEndpoint,
  NotificationSettings: responses.NotificationSettings,
  WebhookEndpointWithSecret: responses.WebhookEndpointWithSecret,
  WebhookEndpointList: responses.WebhookEndpointList,
  Alert: responses.Alert,
  AlertList: responses.AlertList,
  AlertWithRuns: responses.AlertWithRuns,
  AlertDeleted: responses.AlertDeleted,
  WebhookEndpointDeleted: responses.WebhookEndpointDeleted,
  WebhookEventQueued: responses.WebhookEventQueued,
  WebhookDeliveryList: responses.WebhookDeliveryList,
  Liveness: responses.Liveness,
  Readiness: responses.Readiness,
  Organization: operator.Organization,
  OrganizationList: operator.OrganizationList,
  Balance: operator.Balance,
  Limits: operator.Limits,
  Prices: operator.Prices,
  CreatedKey: operator.CreatedKey,
  ApiKey: operator.ApiKeyView,
  RevokedKey: operator.RevokedKey,
  Ledger: operator.Ledger,
  Reconciliation: operator.Reconciliation,
  ReconciliationAll: operator.ReconciliationAll,
  JournalRequestSummaries: operator.JournalRequestSummaries,
  ReplayReport: operator.ReplayReport,
  ChainVerdict: operator.ChainVerdict,
  RetractionsLoad: operator.RetractionsLoad,
  AdminCollections: operator.AdminCollections,
  AdminCollection: operator.AdminCollection,
  AdminMetaCollection: operator.AdminMetaCollection,
  DefinedCollection: operator.DefinedCollection,
  RetiredCollection: operator.RetiredCollection,
  IngestionStarted: operator.IngestionStarted,
  IngestionStatus: operator.IngestionStatus,
  StoredUpload: operator.StoredUpload,
  UploadList: operator.UploadList,
  DeletedUpload: operator.DeletedUpload,
  TooManyRequestsFromAddress: responses.TooManyRequestsFromAddress,
  WorksBatchRequest: worksBatchBody,
  Integrity: responses.Integrity,
  Work: responses.Work,
  WorksBatchResponse: responses.WorksBatchResponse,
  WorkGraphPage: responses.WorkGraphPage,
  WorksFacetsRequest: worksFacetsBody,
  WorksFacetsResponse: responses.WorksFacetsResponse,
  Authorship: responses.Authorship,
  Author: responses.Author,
  AuthorsPage: responses.AuthorsPage,
  AuthorWorksPage: responses.AuthorWorksPage,
} satisfies Record<string, z.ZodType>;

export type SchemaName = keyof typeof NAMED_SCHEMAS;
export const ref = (name: SchemaName) => ({ $ref: `#/components/schemas/${name}` });

/**
 * Query parameters from the schema the route parses `ctx.query` with. They arrive as strings and are parsed into
 * numbers; each parameter's schema is the parsed value's (type, range, default), except where the parse is a mapping
 * JSON Schema cannot state (includeFigures: the strings "true"/"false"), where it is the string the client sends.
 */
export function queryParameters(schema: z.ZodObject, descriptions: Record<string, string> = {}): Json[] {
  const sent = z.toJSONSchema(schema, { io: "input" }) as { properties: Record<string, Json>; required?: string[] };
  const parsed = z.toJSONSchema(schema, { io: "output", unrepresentable: "any" }) as {
    properties: Record<string, Json>;
  };
  return Object.keys(schema.shape).map((name) => {
    const asParsed = parsed.properties[name] ?? {};
    return {
      name,
      in: "query",
      required: sent.required?.includes(name) ?? false,
      ...(descriptions[name] ? { description: descriptions[name] } : {}),
      schema: Object.keys(asParsed).length > 0 ? asParsed : sent.properties[name],
    };
  });
}

export const HEADERS: Record<string, Json> = {
  "X-Request-Id": {
    description: "Identifies the request (an incoming sane X-Request-Id is kept); also `error.requestId`.",
    schema: { type: "string" },
  },
  "X-Tokens-Used": {
    description:
      "Tokens billed for this request. Billing headers are absent when billing is switched off for the organization.",
    schema: { type: "integer" },
  },
  "X-Query-Cost": {
    description: "Amount charged, 6 decimal places; `0.000000` when nothing was charged.",
    schema: { type: "string", examples: ["0.000000"] },
  },
  "X-Billing-Mode": {
    description: "How the request was billed.",
    schema: { type: "string", enum: ["live", "exempt", "trial", "sandbox"] },
  },
  "X-Credits-Remaining": {
    description: "Balance after the request; omitted when the organization hides its balance.",
    schema: { type: "string" },
  },
  "X-RateLimit-Limit": {
    description:
      "The daily query limit (not the per-minute one). The X-RateLimit headers are sent only on /query and " +
      "/{collection}.",
    schema: { type: "integer" },
  },
  "X-RateLimit-Remaining": { description: "Queries remaining today.", schema: { type: "integer" } },
  "X-RateLimit-Reset": {
    description: "Unix timestamp (seconds) of the next UTC midnight.",
    schema: { type: "integer" },
  },
  "Retry-After": { description: "Seconds to wait before retrying.", schema: { type: "integer" } },
  Location: {
    description: "Where the answer is polled: GET /api/v1/search/results/{queryId}.",
    schema: { type: "string" },
  },
  "Idempotency-Status": {
    description:
      "Sent when the request carried Idempotency-Key: a new preview or search, or the replay of the original one.",
    schema: { type: "string", enum: ["created", "replayed"] },
  },
  "X-Cache": {
    description: "Always `hit`: the answer comes from the cached query record.",
    schema: { type: "string", enum: ["hit"] },
  },
  "X-Cache-Expires": {
    description: "Until when GET /api/v1/search/results/{queryId} re-fetches these results free (ISO 8601, UTC).",
    schema: { type: "string", format: "date-time" },
  },
};
export const headerRefs = (...names: (keyof typeof HEADERS)[]) =>
  Object.fromEntries(names.map((n) => [n, { $ref: `#/components/headers/${n}` }]));
export const BILLING_HEADERS = ["X-Tokens-Used", "X-Query-Cost", "X-Billing-Mode", "X-Credits-Remaining"] as const;
export const RATE_LIMIT_HEADERS = ["X-RateLimit-Limit", "X-RateLimit-Remaining", "X-RateLimit-Reset"] as const;

export interface Operation {
  method: "get" | "post" | "put" | "patch" | "delete";
  path: string;
  tag: Tag;
  access: Access;
  operationId: string;
  summary: string;
  description?: string;
  /** the request body's schema; several: the body is one of them */
  body?: SchemaName | SchemaName[];
  /** a body sent as an HTML form or as JSON, with the same fields */
  formBody?: SchemaName;
  /** a body with no schema of its own (the tool gateway passes it to the tool) */
  freeBody?: string;
  /** a body that is a file's bytes (application/octet-stream), described by this text */
  rawBody?: string;
  query?: Json[];
  headerParameters?: Json[];
  status?: number;
  response: SchemaName | { content: Record<string, Json>; description?: string };
  responseDescription?: string;
  headers?: readonly (keyof typeof HEADERS)[];
  /** a 202 the operation may answer instead (a run started, its answer polled) */
  accepted?: { response: SchemaName; description: string; headers?: readonly (keyof typeof HEADERS)[] };
  errors: number[];
}

export const SEARCH_ERRORS = [401, 402, 403, 404, 422, 429, 503];
export const EXPORT_CONTENT: Record<string, Json> = {
  "application/x-bibtex": { schema: { type: "string" } },
  "application/x-research-info-systems": { schema: { type: "string" } },
  "application/vnd.citationstyles.csl+json": { schema: { type: "array", items: { type: "object" } } },
  "text/csv": { schema: { type: "string" } },
};
export const OPERATOR_ERRORS = [401, 404, 422, 429];
