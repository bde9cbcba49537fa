// Hostile HTTP against every route of the real service (Koa, Temporal, PGlite, embedded engine, embedding model): NUL
// bytes, lone surrogates, deep nesting, 1-20 MB bodies, odd methods, every spelling of every path, SQL- and
// prototype-pollution-shaped text, huge numbers, wrong types; with and without valid keys and the operator token.
// Expected: no 5xx, every error in the envelope, no 2xx for a path spelled other than as documented, no balance moved
// but by the requests that succeeded, the hash chain intact and Object.prototype untouched (the service runs in this
// process). The requests come from fast-check with a fixed seed, so a failure reproduces.
import { DECLARED_ROUTES } from "../../src/http/openApiDocument.js";
import http from "node:http";
import { createHash } from "node:crypto";
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestService, httpClient, type TestService } from "../support/testService.js";
import { parseCredits } from "../../src/domain/money.js";

/** Micro-credits of a decimal string the service wrote; anything else is a failure of the test's reading. */
function credits(text: unknown): bigint {
  const micros = typeof text === "string" ? parseCredits(text) : null;
  if (micros === null) throw new Error(`not an amount: ${String(text)}`);
  return micros;
}
import { nearMiss, simpleWithDefect, structuredWithDefect, validTree } from "../filters/malformedFilterArbitraries.js";

const SEED = 20_251_123;
const RANDOM_REQUESTS = 5_000;
const CONCURRENCY = 8;

let svc: TestService;
let call: ReturnType<typeof httpClient>;
let admin: string;

type Credential =
  | "live"
  | "scoped"
  | "sandbox"
  | "revoked"
  | "otherOrg"
  | "victimOrg"
  | "malformed"
  | "unknownKey"
  | "none"
  | "xApiKey"
  | "basic"
  | "hugeBearer";
type AdminCredential = "token" | "lowercaseBearer" | "wrongToken" | "none" | "apiKey";

/** A dashboard session: its cookie and its CSRF token. */
interface Session {
  cookie: string;
  csrf: string;
}

interface Fixtures {
  orgs: { main: string; other: string; victim: string };
  keys: Record<"live" | "scoped" | "sandbox" | "revoked" | "otherOrg" | "victimOrg", string>;
  victimKeyId: string;
  previewId: string;
  previewRowIds: string[];
  /** the dashboard: an owner of the main organization, a member of the other, an ended session, spare sessions */
  sessions: { owner: Session; otherOrg: Session; ended: Session; forLogout: Session; spareId: string };
  /** a key of the main organization the dashboard may revoke and cap (the fuzz searches with another) */
  dashboardKeyId: string;
  inviteToken: string;
}
let fx: Fixtures;

// ---------------------------------------------------------------------------------------------------------------
// The routes, from src/http/routes/*.ts. `:id` parts take a value from the fixtures or a hostile one.

interface Route {
  method: string;
  path: string;
  /** dashboard: a session cookie and its CSRF token; dashboardOpen: no credential (login, invites, assets) */
  door: "api" | "admin" | "open" | "dashboard" | "dashboardOpen";
  /** a valid body for the route, the starting point of mutations */
  body?: (f: Fixtures) => Record<string, unknown>;
  /** the values a `:parameter` takes on this route instead of the shared ones */
  ids?: Record<string, string[]>;
}

const SEARCH_BODY = { collection: "scifact", query: "vitamin D and bone density", limit: 3 };
const ROUTES: Route[] = [
  { method: "GET", path: "/healthz", door: "open" },
  { method: "GET", path: "/readyz", door: "open" },
  { method: "GET", path: "/openapi.json", door: "open" },
  { method: "GET", path: "/docs", door: "open" },
  { method: "GET", path: "/docs/assets/:file", door: "open" },
  { method: "GET", path: "/api/v1/search/collections", door: "api" },
  { method: "POST", path: "/api/v1/search/query", door: "api", body: () => ({ ...SEARCH_BODY }) },
  { method: "POST", path: "/api/v1/search/preview", door: "api", body: () => ({ ...SEARCH_BODY }) },
  {
    method: "POST",
    path: "/api/v1/search/assisted",
    door: "api",
    body: () => ({ ...SEARCH_BODY, allowClarification: false }),
  },
  {
    method: "POST",
    path: "/api/v1/search/unlock",
    door: "api",
    body: (f) => ({ queryId: f.previewId, resultIds: f.previewRowIds.slice(0, 1) }),
  },
  { method: "GET", path: "/api/v1/search/results/:queryId", door: "api" },
  { method: "GET", path: "/api/v1/search/quota", door: "api" },
  { method: "GET", path: "/api/v1/search/collections/:name/journals", door: "api" },
  {
    method: "POST",
    path: "/api/v1/search/journal-requests",
    door: "api",
    body: () => ({ title: "Journal of Fuzzing", issn: "1234-5678", note: "fuzz" }),
  },
  {
    method: "POST",
    path: "/api/v1/search/:collection",
    door: "api",
    body: () => ({ query: "vitamin D and bone density", limit: 3 }),
  },
  { method: "POST", path: "/api/v1/tools/:prefix/:tool", door: "api", body: () => ({ input: "x" }) },
  // a work's id may hold slashes (a DOI as pasted, a URL): the router takes the rest of the path
  { method: "GET", path: "/api/v1/works/*id", door: "api" },
  { method: "GET", path: "/api/v1/works/*id/references", door: "api" },
  { method: "GET", path: "/api/v1/works/*id/cited-by", door: "api" },
  // an author's id may be pasted as its URL: the same rest-of-the-path parameter
  { method: "GET", path: "/api/v1/authors", door: "api" },
  { method: "GET", path: "/api/v1/authors/*id", door: "api" },
  { method: "GET", path: "/api/v1/authors/*id/works", door: "api" },
  {
    method: "POST",
    path: "/api/v1/works/batch",
    door: "api",
    body: () => ({ ids: ["10.1530/eje.0.1410619", "pmid:1", "W2125158795"] }),
  },
  {
    method: "POST",
    path: "/api/v1/works/facets",
    door: "api",
    body: () => ({ collection: "scifact", facets: ["publication_year", "journal"], limit: 3 }),
  },
  // webhooks: a public address that is never reached (no event the fuzz causes subscribes it to anything it sends)
  {
    method: "POST",
    path: "/api/v1/webhooks",
    door: "api",
    body: () => ({ url: "https://93.184.215.14/hooks/fuzz", events: ["key.budget_exhausted"], description: "fuzz" }),
  },
  { method: "GET", path: "/api/v1/webhooks", door: "api" },
  { method: "GET", path: "/api/v1/webhooks/:id", door: "api" },
  { method: "DELETE", path: "/api/v1/webhooks/:id", door: "api" },
  { method: "POST", path: "/api/v1/webhooks/:id/rotate-secret", door: "api", body: () => ({}) },
  { method: "POST", path: "/api/v1/webhooks/:id/test", door: "api", body: () => ({}) },
  { method: "GET", path: "/api/v1/webhooks/:id/deliveries", door: "api" },
  { method: "POST", path: "/api/v1/webhooks/:id/deliveries/:eventId/redeliver", door: "api", body: () => ({}) },
  { method: "GET", path: "/api/v1/notifications", door: "api" },
  { method: "PUT", path: "/api/v1/notifications", door: "api", body: () => ({ balanceLowThreshold: null }) },
  { method: "GET", path: "/admin/v1/organizations/:orgId/webhooks", door: "admin" },
  {
    method: "POST",
    path: "/admin/v1/organizations/:orgId/webhooks",
    door: "admin",
    body: () => ({ url: "https://93.184.215.14/hooks/fuzz-operator", events: ["key.budget_exhausted"] }),
  },
  { method: "DELETE", path: "/admin/v1/organizations/:orgId/webhooks/:id", door: "admin" },
  {
    method: "POST",
    path: "/admin/v1/organizations/:orgId/webhooks/:id/rotate-secret",
    door: "admin",
    body: () => ({}),
  },
  { method: "POST", path: "/admin/v1/organizations/:orgId/webhooks/:id/test", door: "admin", body: () => ({}) },
  {
    method: "POST",
    path: "/admin/v1/organizations/:orgId/webhooks/:id/deliveries/:eventId/redeliver",
    door: "admin",
    body: () => ({}),
  },
  { method: "GET", path: "/admin/v1/organizations/:orgId/webhooks/:id/deliveries", door: "admin" },
  // alerts: created on the slice's scifact (a search, no charge), shown, paused, resumed, deleted
  {
    method: "POST",
    path: "/api/v1/alerts",
    door: "api",
    body: () => ({ query: "bone density", collection: "scifact", max_cost_per_run: "0.10" }),
  },
  { method: "GET", path: "/api/v1/alerts", door: "api" },
  { method: "GET", path: "/api/v1/alerts/:id", door: "api" },
  { method: "POST", path: "/api/v1/alerts/:id/pause", door: "api", body: () => ({}) },
  { method: "POST", path: "/api/v1/alerts/:id/resume", door: "api", body: () => ({}) },
  { method: "DELETE", path: "/api/v1/alerts/:id", door: "api" },
  { method: "GET", path: "/admin/v1/organizations/:orgId/alerts", door: "admin" },
  { method: "GET", path: "/admin/v1/organizations/:orgId/alerts/:id", door: "admin" },
  { method: "POST", path: "/admin/v1/organizations/:orgId/alerts/:id/pause", door: "admin", body: () => ({}) },
  { method: "POST", path: "/admin/v1/organizations/:orgId/alerts/:id/resume", door: "admin", body: () => ({}) },
  { method: "DELETE", path: "/admin/v1/organizations/:orgId/alerts/:id", door: "admin" },
  {
    method: "POST",
    path: "/mcp",
    door: "api",
    body: () => ({ jsonrpc: "2.0", id: 1, method: "tools/call", params: { name: "get_balance", arguments: {} } }),
  },
  { method: "DELETE", path: "/mcp", door: "api" },
  { method: "POST", path: "/admin/v1/organizations", door: "admin", body: () => ({ name: "Fuzz lab" }) },
  { method: "GET", path: "/admin/v1/organizations", door: "admin" },
  // a list naming a file the server does not hold: refused (422) and nothing loaded, so the fuzz's works stay in
  // results
  {
    method: "POST",
    path: "/admin/v1/retractions",
    door: "admin",
    body: () => ({ files: ["retractions/fuzz-no-such-list.csv"] }),
  },
  // collections: a definition naming a file the server does not hold is refused (422) and defines nothing; a retirement
  // of openalex-synergy is refused while the biomedical meta-collection lists it (409)
  { method: "GET", path: "/admin/v1/collections", door: "admin" },
  {
    method: "POST",
    path: "/admin/v1/collections",
    door: "admin",
    body: () => ({
      name: "fuzz-notes",
      displayName: "Fuzz notes",
      description: null,
      kind: "scholarly",
      retrieval: "sparse",
      pricePer1000: "0.010",
      openAccessOnly: false,
      scanFilterable: false,
      source: { reader: "jsonl", files: ["fuzz-no-such-file.jsonl"] },
    }),
  },
  {
    method: "PATCH",
    path: "/admin/v1/collections/:name",
    door: "admin",
    body: () => ({ description: "fuzzed description" }),
  },
  { method: "DELETE", path: "/admin/v1/collections/:name", door: "admin" },
  {
    method: "POST",
    path: "/admin/v1/collections/:name/ingest",
    door: "admin",
    body: () => ({ files: ["fuzz-no-such-file.jsonl"], mode: "upsert" }),
  },
  { method: "GET", path: "/admin/v1/ingestions/:ingestionId", door: "admin" },
  // no such ingestion: 404, nothing cancelled
  { method: "POST", path: "/admin/v1/ingestions/:ingestionId/cancel", door: "admin", body: () => ({}) },
  { method: "GET", path: "/admin/v1/uploads", door: "admin" },
  // no such upload (or a name no upload takes): 404 or 422, nothing deleted
  { method: "DELETE", path: "/admin/v1/uploads/:name", door: "admin" },
  // an upload stores its body (any bytes) under the test data root's uploads/, named by a plain file name or refused
  {
    method: "PUT",
    path: "/admin/v1/uploads/:name",
    door: "admin",
    body: () => ({ id: "fuzz-1", title: "Fuzzed upload", text: "fuzzed" }),
  },
  {
    method: "PUT",
    path: "/admin/v1/meta-collections/:metaCollection",
    door: "admin",
    body: () => ({
      displayName: "Biomedical",
      description: "fuzz",
      members: ["openalex-synergy", "scifact", "clinical-digest"],
    }),
  },
  // retiring the biomedical meta-collection would end the searches the fuzz runs: a plain collection (422), none (404)
  {
    method: "DELETE",
    path: "/admin/v1/meta-collections/:metaCollection",
    door: "admin",
    ids: { metaCollection: ["openalex-synergy", "scifact", "no-such-meta"] },
  },
  { method: "GET", path: "/admin/v1/organizations/:orgId", door: "admin" },
  {
    method: "POST",
    path: "/admin/v1/organizations/:orgId/credits",
    door: "admin",
    body: () => ({ amount: "1.25", reference: "fuzz" }),
  },
  { method: "POST", path: "/admin/v1/organizations/:orgId/refunds", door: "admin", body: () => ({ amount: "0.50" }) },
  {
    method: "POST",
    path: "/admin/v1/organizations/:orgId/billing",
    door: "admin",
    body: () => ({ billingMode: "live" }),
  },
  { method: "GET", path: "/admin/v1/organizations/:orgId/prices", door: "admin" },
  {
    method: "PUT",
    path: "/admin/v1/organizations/:orgId/prices/:collection",
    door: "admin",
    body: () => ({ pricePer1000: "0.010" }),
  },
  { method: "DELETE", path: "/admin/v1/organizations/:orgId/prices/:collection", door: "admin" },
  { method: "GET", path: "/admin/v1/organizations/:orgId/reconciliation", door: "admin" },
  { method: "GET", path: "/admin/v1/reconciliation", door: "admin" },
  { method: "GET", path: "/admin/v1/keys/:keyId", door: "admin" },
  { method: "POST", path: "/admin/v1/organizations/:orgId/limits", door: "admin", body: () => ({ perMinute: 1000 }) },
  { method: "POST", path: "/admin/v1/organizations/:orgId/suspend", door: "admin", body: () => ({ reason: "fuzz" }) },
  { method: "POST", path: "/admin/v1/organizations/:orgId/resume", door: "admin", body: () => ({}) },
  {
    method: "POST",
    path: "/admin/v1/organizations/:orgId/keys",
    door: "admin",
    body: () => ({ mode: "live", collections: ["scifact"] }),
  },
  { method: "POST", path: "/admin/v1/keys/:keyId/revoke", door: "admin", body: () => ({}) },
  { method: "GET", path: "/admin/v1/organizations/:orgId/balance", door: "admin" },
  { method: "GET", path: "/admin/v1/organizations/:orgId/ledger", door: "admin" },
  { method: "GET", path: "/admin/v1/organizations/:orgId/ledger.csv", door: "admin" },
  { method: "POST", path: "/admin/v1/replay", door: "admin", body: () => ({}) },
  { method: "GET", path: "/admin/v1/verify", door: "admin" },
  { method: "GET", path: "/admin/v1/journal-requests", door: "admin" },
  { method: "POST", path: "/admin/v1/keys/:keyId/spending-cap", door: "admin", body: () => ({ spendingCap: "3.00" }) },
  {
    method: "POST",
    path: "/admin/v1/organizations/:orgId/invites",
    door: "admin",
    body: () => ({ email: "fuzz-invitee@example.org", role: "member" }),
  },
  { method: "GET", path: "/admin/v1/organizations/:orgId/members", door: "admin" },
  { method: "POST", path: "/admin/v1/organizations/:orgId/invites/:inviteId/cancel", door: "admin", body: () => ({}) },
  { method: "POST", path: "/admin/v1/organizations/:orgId/members/:memberId/remove", door: "admin", body: () => ({}) },
  { method: "GET", path: "/dashboard/login", door: "dashboardOpen" },
  {
    method: "POST",
    path: "/dashboard/login",
    door: "dashboardOpen",
    body: () => ({ email: "owner@fuzz.example", password: "not the password at all" }),
  },
  {
    method: "POST",
    path: "/dashboard/operator/login",
    door: "dashboardOpen",
    body: () => ({ token: "not-the-operator-token" }),
  },
  { method: "GET", path: "/dashboard/invite/:token", door: "dashboardOpen" },
  {
    method: "POST",
    path: "/dashboard/invite/:token",
    door: "dashboardOpen",
    body: () => ({ password: "a fuzzed passphrase" }),
  },
  { method: "GET", path: "/dashboard/assets/:file", door: "dashboardOpen" },
  { method: "GET", path: "/dashboard", door: "dashboard" },
  { method: "GET", path: "/dashboard/keys", door: "dashboard" },
  {
    method: "POST",
    path: "/dashboard/keys",
    door: "dashboard",
    body: () => ({ mode: "test", collections: "scifact" }),
  },
  { method: "POST", path: "/dashboard/keys/:keyId/revoke", door: "dashboard", body: () => ({}) },
  { method: "POST", path: "/dashboard/keys/:keyId/cap", door: "dashboard", body: () => ({ spendingCap: "2.00" }) },
  { method: "GET", path: "/dashboard/usage", door: "dashboard" },
  { method: "GET", path: "/dashboard/usage.csv", door: "dashboard" },
  { method: "GET", path: "/dashboard/ledger", door: "dashboard" },
  { method: "GET", path: "/dashboard/ledger.csv", door: "dashboard" },
  { method: "GET", path: "/dashboard/queries", door: "dashboard" },
  { method: "GET", path: "/dashboard/queries/:queryId", door: "dashboard" },
  { method: "GET", path: "/dashboard/queries/:queryId/export", door: "dashboard" },
  {
    method: "POST",
    path: "/dashboard/queries/:queryId/unlock",
    door: "dashboard",
    body: () => ({ row_1: "r1", confirm: "1", maxCost: "0.010000" }),
  },
  { method: "GET", path: "/dashboard/works", door: "dashboard" },
  { method: "GET", path: "/dashboard/works/export", door: "dashboard" },
  { method: "GET", path: "/dashboard/members", door: "dashboard" },
  {
    method: "POST",
    path: "/dashboard/members/invites",
    door: "dashboard",
    body: () => ({ email: "fuzz-member@example.org", role: "member" }),
  },
  { method: "POST", path: "/dashboard/members/:memberId/remove", door: "dashboard", body: () => ({}) },
  { method: "POST", path: "/dashboard/invites/:inviteId/cancel", door: "dashboard", body: () => ({}) },
  { method: "GET", path: "/dashboard/account", door: "dashboard" },
  { method: "GET", path: "/dashboard/playground", door: "dashboard" },
  {
    method: "POST",
    path: "/dashboard/playground",
    door: "dashboard",
    body: () => ({ key: "key_does_not_exist", query: "bone density", collections: "scifact" }),
  },
  {
    method: "POST",
    path: "/dashboard/playground/unlock",
    door: "dashboard",
    body: () => ({ key: "key_does_not_exist", queryId: "q_does_not_exist", row_1: "r1" }),
  },
  { method: "GET", path: "/dashboard/alerts", door: "dashboard" },
  {
    method: "POST",
    path: "/dashboard/alerts",
    door: "dashboard",
    body: () => ({ query: "bone density", collections: "scifact", key: "key_does_not_exist" }),
  },
  { method: "GET", path: "/dashboard/alerts/:alertId", door: "dashboard" },
  { method: "POST", path: "/dashboard/alerts/:alertId/pause", door: "dashboard", body: () => ({}) },
  { method: "POST", path: "/dashboard/alerts/:alertId/resume", door: "dashboard", body: () => ({}) },
  { method: "POST", path: "/dashboard/alerts/:alertId/delete", door: "dashboard", body: () => ({}) },
  { method: "GET", path: "/dashboard/webhooks", door: "dashboard" },
  {
    method: "POST",
    path: "/dashboard/webhooks",
    door: "dashboard",
    body: () => ({ url: "https://93.184.215.14/hooks/fuzz-dashboard", events: "key.budget_exhausted" }),
  },
  { method: "POST", path: "/dashboard/notifications", door: "dashboard", body: () => ({ balanceLowThreshold: "" }) },
  { method: "GET", path: "/dashboard/webhooks/:endpointId", door: "dashboard" },
  { method: "POST", path: "/dashboard/webhooks/:endpointId/test", door: "dashboard", body: () => ({}) },
  { method: "POST", path: "/dashboard/webhooks/:endpointId/rotate-secret", door: "dashboard", body: () => ({}) },
  {
    method: "POST",
    path: "/dashboard/webhooks/:endpointId/deliveries/:eventId/redeliver",
    door: "dashboard",
    body: () => ({}),
  },
  { method: "POST", path: "/dashboard/webhooks/:endpointId/delete", door: "dashboard", body: () => ({}) },
  { method: "POST", path: "/dashboard/sessions/:sessionId/revoke", door: "dashboard", body: () => ({}) },
  { method: "POST", path: "/dashboard/logout", door: "dashboard", body: () => ({}) },
  { method: "GET", path: "/dashboard/operator", door: "dashboard" },
  // the operator's organization pages: the member's session the fuzz holds is refused on each (403), whatever it sends
  { method: "GET", path: "/dashboard/operator/orgs/:orgId", door: "dashboard" },
  {
    method: "POST",
    path: "/dashboard/operator/orgs/:orgId/credits",
    door: "dashboard",
    body: () => ({ amount: "1.25", reference: "fuzz" }),
  },
  {
    method: "POST",
    path: "/dashboard/operator/orgs/:orgId/limits",
    door: "dashboard",
    body: () => ({ perMinute: "60", daily: "1000", monthly: "25000", previewPerHour: "50" }),
  },
  {
    method: "POST",
    path: "/dashboard/operator/orgs/:orgId/suspend",
    door: "dashboard",
    body: () => ({ reason: "fuzz" }),
  },
  { method: "POST", path: "/dashboard/operator/orgs/:orgId/resume", door: "dashboard", body: () => ({}) },
  {
    method: "POST",
    path: "/dashboard/operator/orgs/:orgId/keys",
    door: "dashboard",
    body: () => ({ mode: "test", name: "fuzz" }),
  },
  { method: "POST", path: "/dashboard/operator/orgs/:orgId/keys/:keyId/revoke", door: "dashboard", body: () => ({}) },
  {
    method: "POST",
    path: "/dashboard/operator/orgs/:orgId/keys/:keyId/cap",
    door: "dashboard",
    body: () => ({ spendingCap: "2.00" }),
  },
  { method: "GET", path: "/favicon.ico", door: "dashboardOpen" },
];

/**
 * Every route the app's routers register (createApp refuses to start unless they are the declared ones): the fuzz
 * covers each one, so a new route cannot be left out of it.
 */
function registeredRoutes(): string[] {
  return DECLARED_ROUTES.flatMap((routes) => routes.map((r) => `${r.method.toUpperCase()} ${r.path}`)).sort();
}

// ---------------------------------------------------------------------------------------------------------------
// Hostile material.

const SQL = [
  "' OR 1=1 --",
  "; DROP TABLE events;",
  "'); DELETE FROM balances; --",
  "1; SELECT pg_sleep(0)",
  '" OR ""="',
  "\\'; TRUNCATE query_records; --",
];
const POLLUTION = ["__proto__", "constructor", "prototype", "hasOwnProperty", "toString", "valueOf"];
const hostileText = fc.oneof(
  fc.constantFrom(
    ...SQL,
    ...POLLUTION,
    "\u0000",
    "a\u0000b",
    "\ud800",
    "x\udfff",
    "\udc00\ud800",
    "%00",
    "\\u0000",
    "😀",
    "\u202e",
    "",
    " ",
    "\t\n",
    "NaN",
    "null",
    "${jndi:ldap://x/a}",
    "<script>alert(1)</script>",
    "../../etc/passwd",
  ),
  fc.string({ unit: "binary", maxLength: 30 }),
  fc.integer({ min: 1_000, max: 200_000 }).map((n) => "a".repeat(n)),
);
const hostileValue: fc.Arbitrary<unknown> = fc.oneof(
  { weight: 4, arbitrary: hostileText },
  {
    weight: 2,
    arbitrary: fc.constantFrom(
      1e308,
      -1e308,
      -1,
      0,
      -0,
      0.5,
      // 2^53 + 1 on purpose: a client sends more precision than JSON keeps
      // eslint-disable-next-line no-loss-of-precision -- the imprecise literal is the test
      9_007_199_254_740_993,
      Number.MIN_VALUE,
      31,
      1_000_000_000_000,
      true,
      false,
      null,
    ),
  },
  { weight: 1, arbitrary: fc.double() },
  { weight: 1, arbitrary: fc.array(hostileText, { maxLength: 6 }) },
  { weight: 1, arbitrary: fc.object({ maxDepth: 2 }) },
  {
    weight: 1,
    arbitrary: fc.constantFrom({ __proto__: null, polluted: true }, { constructor: { prototype: { polluted: true } } }),
  },
);
/**
 * Raw texts that cannot be built with JSON.stringify: numbers JSON cannot hold as doubles, own __proto__ keys, garbage.
 */
const RAW_BODIES = [
  '{"collection":"scifact","query":"bone density","limit":1e400}',
  '{"collection":"scifact","query":"bone density","limit":-1e-400}',
  '{"amount":1e999}',
  '{"amount":"99999999999999999999999999.999999"}',
  '{"__proto__":{"polluted":true},"collection":"scifact","query":"bone density"}',
  '{"constructor":{"prototype":{"polluted":true}},"query":"bone density"}',
  '{"name":"x","__proto__":{"isAdmin":true}}',
  '{"filters":{"__proto__":{"eq":"x"}},"collection":"scifact","query":"bone density"}',
  '{"collection":"scifact","query":"bone density","collection":"clinical-digest"}',
  '\ufeff{"collection":"scifact","query":"bone density"}',
  '{"collection": "scifact", ',
  "null",
  "[]",
  '"just a string"',
  "true",
  "1e999999",
  "NaN",
  '{"a":"\\ud800"}',
  '{"query":"\\u0000"}',
  '{"name":"\\udfff\\ud800"}',
  "{'single':'quotes'}",
  '{"a":1}}}}',
  "\u0000",
  '{"a":"\\x00"}',
];
const RAW_BYTES = [
  Buffer.from([0xff, 0xfe, 0x7b, 0x7d]),
  Buffer.from([0x7b, 0x22, 0x71, 0x22, 0x3a, 0x22, 0xc3, 0x28, 0x22, 0x7d]),
  Buffer.from([0xed, 0xa0, 0x80]),
  Buffer.from([0x00, 0x00, 0x00]),
];

/**
 * Deep nesting of one shape, `depth` levels, as raw text (building it as an object and stringifying would overflow).
 */
type DeepShape = "and" | "or" | "not" | "notArray" | "array" | "object" | "flatNot";
function deepText(shape: DeepShape, depth: number): string {
  const condition = '{"field":"journal","eq":"A"}';
  switch (shape) {
    case "and":
    case "or":
      return `${`{"${shape}":[`.repeat(depth)}${condition}${"]}".repeat(depth)}`;
    case "notArray":
      return `${'{"not":['.repeat(depth)}${condition}${"]}".repeat(depth)}`;
    case "not":
      return `{"journal":${'{"not":'.repeat(depth)}"A"${"}".repeat(depth)}}`;
    case "flatNot":
      return `{"journal":${"[".repeat(depth)}"A"${"]".repeat(depth)}}`;
    case "array":
      return `${"[".repeat(depth)}1${"]".repeat(depth)}`;
    case "object":
      return `${'{"a":'.repeat(depth)}1${"}".repeat(depth)}`;
  }
}

const filterArb: fc.Arbitrary<unknown> = fc.oneof(
  nearMiss,
  simpleWithDefect,
  structuredWithDefect,
  validTree,
  fc.record({ journal: hostileText }),
  fc.record({
    and: fc.array(fc.record({ field: fc.constantFrom("journal", "doi", ...POLLUTION), eq: hostileText }), {
      minLength: 1,
      maxLength: 3,
    }),
  }),
);

type BodyRecipe =
  | { kind: "none" }
  | { kind: "valid" }
  | { kind: "mutate"; mutations: { target: number; value: unknown }[] }
  | { kind: "extraField"; name: string; value: unknown }
  | { kind: "filters"; filter: unknown }
  | { kind: "deep"; shape: DeepShape; depth: number; at: "filters" | "body" | "field" }
  | { kind: "raw"; index: number }
  | { kind: "bytes"; index: number }
  | { kind: "wrongRoot"; value: unknown };

const bodyRecipe: fc.Arbitrary<BodyRecipe> = fc.oneof(
  { weight: 1, arbitrary: fc.constant({ kind: "none" as const }) },
  { weight: 1, arbitrary: fc.constant({ kind: "valid" as const }) },
  {
    weight: 5,
    arbitrary: fc
      .array(fc.record({ target: fc.nat(), value: hostileValue }), { minLength: 1, maxLength: 3 })
      .map((mutations) => ({ kind: "mutate" as const, mutations })),
  },
  {
    weight: 1,
    arbitrary: fc
      .record({ name: fc.oneof(hostileText, fc.constantFrom(...POLLUTION)), value: hostileValue })
      .map((r) => ({ kind: "extraField" as const, ...r })),
  },
  { weight: 3, arbitrary: filterArb.map((filter) => ({ kind: "filters" as const, filter })) },
  {
    weight: 2,
    arbitrary: fc
      .record({
        shape: fc.constantFrom<DeepShape>("and", "or", "not", "notArray", "array", "object", "flatNot"),
        depth: fc.oneof(fc.integer({ min: 3000, max: 5000 }), fc.integer({ min: 30, max: 140 })),
        at: fc.constantFrom<"filters" | "body" | "field">("filters", "body", "field"),
      })
      .map((r) => ({ kind: "deep" as const, ...r })),
  },
  { weight: 2, arbitrary: fc.nat({ max: RAW_BODIES.length - 1 }).map((index) => ({ kind: "raw" as const, index })) },
  { weight: 1, arbitrary: fc.nat({ max: RAW_BYTES.length - 1 }).map((index) => ({ kind: "bytes" as const, index })) },
  { weight: 1, arbitrary: hostileValue.map((value) => ({ kind: "wrongRoot" as const, value })) },
);

const SPELLINGS = [
  "canonical",
  "upperAll",
  "upperSegment",
  "doubleSlash",
  "trailingSlash",
  "encodedSlash",
  "encodedLetter",
  "nulSuffix",
  "dotSegment",
  "leadingDoubleSlash",
  "query",
] as const;
type Spelling = (typeof SPELLINGS)[number];
const ODD_METHODS = [
  "PROPFIND",
  "TRACE",
  "PATCH",
  "DELETE",
  "OPTIONS",
  "HEAD",
  "PUT",
  "GET",
  "POST",
  "SEARCH",
  "PURGE",
  "MKCOL",
  "LOCK",
];
const HOSTILE_IDS = [
  "%00",
  "abc%00def",
  "%ED%A0%80",
  "%FF",
  "%C0%AF",
  encodeURIComponent("' OR 1=1 --"),
  encodeURIComponent("; DROP TABLE events;"),
  "__proto__",
  "constructor",
  "..",
  "%2e%2e",
  "a%2Fb",
  "x".repeat(5000),
  "9".repeat(400),
  "-1",
  "null",
  "undefined",
  encodeURIComponent("😀"),
  "%25",
  "%",
  "00000000-0000-0000-0000-000000000000",
  "SCIFACT",
  "biomedical",
];
const HOSTILE_QUERIES = [
  "?from=%00",
  `?from=${encodeURIComponent("' OR 1=1 --")}`,
  `?to=${encodeURIComponent("; DROP TABLE events;")}`,
  "?__proto__[polluted]=1",
  "?constructor[prototype][polluted]=1",
  "?format=csv&format=json",
  "?includeFigures=true&imageMaxWidth=1e400",
  "?imageQuality=-1",
  "?to=9999-99-99",
  "?x=%ED%A0%80",
  "?a=%00&b=%FF",
  `?q=${"a".repeat(10_000)}`,
  "?format=csv",
];

interface Recipe {
  route: number;
  spelling: Spelling;
  method: string | null;
  credential: Credential;
  adminCredential: AdminCredential;
  ids: number[];
  body: BodyRecipe;
  query: number | null;
  contentType: string | null;
  idempotencyKey: string | null;
  requestId: string | null;
}

const recipe: fc.Arbitrary<Recipe> = fc.record({
  route: fc.nat({ max: ROUTES.length - 1 }),
  spelling: fc.oneof(
    { weight: 10, arbitrary: fc.constant("canonical" as const) },
    { weight: 6, arbitrary: fc.constantFrom(...SPELLINGS) },
  ),
  method: fc.oneof(
    { weight: 4, arbitrary: fc.constant(null) },
    { weight: 1, arbitrary: fc.constantFrom(...ODD_METHODS) },
  ),
  credential: fc.oneof(
    { weight: 6, arbitrary: fc.constant("live" as const) },
    {
      weight: 5,
      arbitrary: fc.constantFrom<Credential>(
        "scoped",
        "sandbox",
        "revoked",
        "otherOrg",
        "victimOrg",
        "malformed",
        "unknownKey",
        "none",
        "xApiKey",
        "basic",
        "hugeBearer",
      ),
    },
  ),
  adminCredential: fc.oneof(
    { weight: 6, arbitrary: fc.constant("token" as const) },
    { weight: 4, arbitrary: fc.constantFrom<AdminCredential>("lowercaseBearer", "wrongToken", "none", "apiKey") },
  ),
  ids: fc.array(fc.nat(), { minLength: 2, maxLength: 2 }),
  body: bodyRecipe,
  query: fc.option(fc.nat({ max: HOSTILE_QUERIES.length - 1 }), { freq: 5 }),
  contentType: fc.option(
    fc.constantFrom(
      "application/json",
      "text/plain",
      "multipart/form-data; boundary=x",
      "application/x-www-form-urlencoded",
      "application/json; charset=latin1",
    ),
    { freq: 2 },
  ),
  idempotencyKey: fc.option(
    fc.oneof(
      fc.constantFrom(...SQL, ...POLLUTION, "k".repeat(256), "ÿþ", ""),
      fc.string({ minLength: 1, maxLength: 20, unit: "grapheme-ascii" }),
    ),
    { freq: 3 },
  ),
  requestId: fc.option(fc.constantFrom("' OR 1=1 --", "x".repeat(500), "__proto__", "ok-request-id-1"), { freq: 8 }),
});

// ---------------------------------------------------------------------------------------------------------------
// Turning a recipe into a request.

interface FuzzRequest {
  label: string;
  route: Route;
  method: string;
  path: string;
  headers: Record<string, string>;
  body?: Buffer;
  /** the path is spelled exactly as documented (only ids vary) */
  canonical: boolean;
  /** the org whose balance a success of this request may move (API key's org, or the admin path's org) */
  orgId?: string;
  /** a request that must be refused whatever its body (two different keys): this status, never a success */
  mustAnswer?: number;
}

function idFor(name: string, pick: number, f: Fixtures, route?: Route): string {
  const real: Record<string, string[]> = {
    queryId: [f.previewId, f.previewId, "no-such-query"],
    // a work of the slice by its DOI (its slash encoded, as a client sends it), by OpenAlex id, and one held nowhere
    // works', webhook endpoints' and alerts' ids share the name: the fuzz sends every kind to each
    id: [
      "10.1530%2Feje.0.1410619",
      "W2125158795",
      "no-such-work",
      "we_doesnotexist00000000000000",
      "we_x",
      "al_doesnotexist0000000000000",
      // a DOI with its slash as pasted, and its doi.org URL unencoded
      "10.1530/eje.0.1410619",
      "https://doi.org/10.1530/eje.0.1410619",
      // an author of the slice by OpenAlex id, and an ORCID
      "A2162078502",
      "0000-0003-3707-4444",
    ],
    alertId: ["al_doesnotexist0000000000000", "al_x"],
    endpointId: ["we_doesnotexist00000000000000", "we_x"],
    collection: ["scifact", "biomedical", "clinical-digest", "no-such-collection"],
    name: ["openalex-synergy", "biomedical", "no-such-collection"],
    metaCollection: ["biomedical", "openalex-synergy", "no-such-meta"],
    ingestionId: ["00000000-0000-4000-8000-000000000000", "not-an-ingestion"],
    file: ["swagger-ui-bundle.js", "swagger-ui.css", "dashboard.css", "dashboard.js", "no-such-file.js"],
    token: [f.inviteToken, "A".repeat(43), "not-a-token"],
    sessionId: [f.sessions.spareId, "f".repeat(64)],
    prefix: ["demo", "mcp"],
    tool: ["echo", "search"],
    // operator mutations only reach the victim organization, so the organization the fuzz searches with stays usable
    orgId: [f.orgs.victim, f.orgs.victim, "00000000-0000-0000-0000-000000000000"],
    keyId: [f.victimKeyId, f.dashboardKeyId, "key_does_not_exist"],
    // none that exists: removing the fuzz's own members or withdrawing its invite would end the sessions and the link
    // it uses
    memberId: ["mem_does_not_exist", "mem_00000000000000000000"],
    eventId: ["msg_doesnotexist0000000000", "msg_x"],
    inviteId: ["inv_does_not_exist", "inv_00000000000000000000"],
  };
  const pool = route?.ids?.[name] ?? real[name] ?? ["x"];
  const all = pick % 3 === 0 ? HOSTILE_IDS : pool;
  return all[pick % all.length]!;
}

function spell(path: string, spelling: Spelling, pick: number): string {
  const segments = path.split("/");
  switch (spelling) {
    case "canonical":
    case "query":
      return path;
    case "upperAll":
      return path.toUpperCase();
    case "upperSegment": {
      const i = 1 + (pick % (segments.length - 1));
      segments[i] = segments[i]!.charAt(0).toUpperCase() + segments[i]!.slice(1);
      return segments.join("/");
    }
    case "doubleSlash": {
      const i = 1 + (pick % (segments.length - 1));
      segments[i] = `/${segments[i]}`;
      return segments.join("/");
    }
    case "leadingDoubleSlash":
      return `/${path}`;
    case "trailingSlash":
      return `${path}/`;
    case "encodedSlash": {
      const i = 1 + (pick % Math.max(1, segments.length - 2));
      return `${segments.slice(0, i + 1).join("/")}%2F${segments.slice(i + 1).join("/")}`;
    }
    case "encodedLetter":
      return path.replace(/[a-z]/, (c) => `%${c.charCodeAt(0).toString(16)}`);
    case "nulSuffix":
      return `${path}%00`;
    case "dotSegment":
      return path.replace(/\/([^/]+)$/, "/./$1");
  }
}

function bodyText(r: Recipe, route: Route, f: Fixtures): Buffer | undefined {
  const base = route.body?.(f) ?? {};
  const b = r.body;
  switch (b.kind) {
    case "none":
      return undefined;
    case "valid":
      return Buffer.from(JSON.stringify(base));
    case "mutate": {
      const out: Record<string, unknown> = { ...base };
      const keys = Object.keys(out).length > 0 ? Object.keys(out) : ["query"];
      for (const m of b.mutations) out[keys[m.target % keys.length]!] = m.value;
      return Buffer.from(JSON.stringify(out));
    }
    case "extraField":
      return Buffer.from(JSON.stringify({ ...base, [b.name]: b.value }));
    case "filters":
      return Buffer.from(JSON.stringify({ ...base, filters: b.filter }));
    case "deep": {
      const inner = deepText(b.shape, b.depth);
      const rest = JSON.stringify(base).slice(1, -1);
      if (b.at === "body") return Buffer.from(inner);
      const field = b.at === "filters" ? "filters" : (Object.keys(base)[0] ?? "query");
      return Buffer.from(`{${rest ? `${rest},` : ""}"${field}":${inner}}`);
    }
    case "raw":
      return Buffer.from(RAW_BODIES[b.index]!);
    case "bytes":
      return RAW_BYTES[b.index];
    case "wrongRoot":
      return Buffer.from(JSON.stringify(b.value) ?? "undefined");
  }
}

/**
 * Whether some other route's path, its `:parameters` filled with one segment each, spells `path` exactly. Routes with a
 * rest-of-the-path `*id` are left out: they would take every respelling of their prefix.
 */
function documentedElsewhere(path: string, route: Route): boolean {
  return ROUTES.some((other) => {
    if (other === route || other.door !== route.door || other.path.includes("*")) return false;
    const pattern = other.path
      .split("/")
      .map((segment) => (segment.startsWith(":") ? "[^/]+" : segment.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")))
      .join("/");
    return new RegExp(`^${pattern}$`).test(path);
  });
}

function build(r: Recipe, f: Fixtures, n: number): FuzzRequest {
  const route = ROUTES[r.route]!;
  let idIndex = 0;
  const filled = route.path.replace(/[:*]([A-Za-z]+)/g, (_m, name: string) =>
    idFor(name, r.ids[idIndex++ % r.ids.length]!, f, route),
  );
  let path = spell(filled, r.spelling, r.ids[0]!);
  // a respelling that changes nothing (upper-casing a segment that starts with a digit, say) is the documented
  // spelling, and so is one that only upper-cases a parameter's value: collection names, for one, are case-insensitive
  const routeSegments = route.path.split("/");
  const changed = path.split("/").flatMap((segment, i) => (segment === filled.split("/")[i] ? [] : [i]));
  const onlyParameterCase =
    r.spelling === "upperSegment" && changed.length > 0 && changed.every((i) => routeSegments[i]?.startsWith(":"));
  // a respelling that is another route's documented spelling (POST /search/Journal-requests is a search of the
  // collection "Journal-requests") is that route's own path
  const respelled = path !== filled && !onlyParameterCase && !documentedElsewhere(path, route);
  if (r.spelling === "query" && r.query !== null) path += HOSTILE_QUERIES[r.query]!;
  else if (r.query !== null && r.query % 4 === 0) path += HOSTILE_QUERIES[r.query]!;
  const method = r.method ?? route.method;
  const headers: Record<string, string> = {};
  let orgId: string | undefined;
  if (route.door === "api") {
    const keyOf: Partial<Record<Credential, { key: string; org: string }>> = {
      live: { key: f.keys.live, org: f.orgs.main },
      scoped: { key: f.keys.scoped, org: f.orgs.main },
      sandbox: { key: f.keys.sandbox, org: f.orgs.main },
      revoked: { key: f.keys.revoked, org: f.orgs.main },
      otherOrg: { key: f.keys.otherOrg, org: f.orgs.other },
      victimOrg: { key: f.keys.victimOrg, org: f.orgs.victim },
      xApiKey: { key: f.keys.live, org: f.orgs.main },
    };
    const k = keyOf[r.credential];
    orgId = k?.org;
    if (r.credential === "xApiKey") headers["X-API-Key"] = k!.key;
    else if (k) headers.Authorization = `Bearer ${k.key}`;
    else if (r.credential === "malformed") headers.Authorization = "Bearer ' OR 1=1 --";
    else if (r.credential === "unknownKey") headers.Authorization = `Bearer sk_live_${"Z".repeat(40)}`;
    else if (r.credential === "basic") headers.Authorization = "Basic YWRtaW46YWRtaW4=";
    else if (r.credential === "hugeBearer") headers.Authorization = `Bearer sk_live_${"a".repeat(8000)}`;
  } else if (route.door === "admin") {
    if (r.adminCredential === "token") headers.Authorization = `Bearer ${admin}`;
    else if (r.adminCredential === "lowercaseBearer") headers.Authorization = `bearer ${admin}`;
    else if (r.adminCredential === "wrongToken") headers.Authorization = `Bearer ${admin.slice(0, -1)}X`;
    else if (r.adminCredential === "apiKey") headers.Authorization = `Bearer ${f.keys.live}`;
    const m = /^\/admin\/v1\/organizations\/([^/]+)/.exec(filled);
    orgId = m?.[1];
  } else if (route.door === "dashboard") {
    // the logout route gets a session of its own, so the fuzz's owner session lives on
    const s = route.path === "/dashboard/logout" ? f.sessions.forLogout : f.sessions.owner;
    const session: Partial<Record<Credential, Session>> = {
      live: s,
      scoped: s,
      revoked: f.sessions.ended,
      otherOrg: f.sessions.otherOrg,
      victimOrg: f.sessions.otherOrg,
    };
    const chosen = session[r.credential];
    if (chosen) {
      headers.Cookie = chosen.cookie;
      headers["X-CSRF-Token"] = chosen.csrf;
    } else if (r.credential === "xApiKey")
      headers.Cookie = s.cookie; // no CSRF token
    else if (r.credential === "basic")
      Object.assign(headers, { Cookie: s.cookie, "X-CSRF-Token": f.sessions.otherOrg.csrf }); // another session's token
    else if (r.credential === "malformed") headers.Cookie = "ls_session=' OR 1=1 --";
    else if (r.credential === "hugeBearer") headers.Authorization = `Bearer ${"a".repeat(8000)}`;
    else if (r.credential === "sandbox") headers.Authorization = `Bearer ${f.keys.sandbox}`;
  } else if (r.credential === "live") {
    headers.Authorization = `Bearer ${f.keys.live}`;
  }
  const body = method === "GET" || method === "HEAD" ? undefined : bodyText(r, route, f);
  if (body !== undefined) headers["Content-Type"] = r.contentType ?? "application/json";
  if (r.idempotencyKey !== null) headers["Idempotency-Key"] = r.idempotencyKey;
  if (r.requestId !== null) headers["X-Request-Id"] = r.requestId;
  return {
    label: `#${n} ${r.spelling} ${r.credential}/${r.adminCredential} ${r.body.kind}`,
    route,
    method,
    path,
    headers,
    body,
    canonical: r.spelling === "canonical" || r.spelling === "query" || !respelled,
    orgId,
  };
}

/** The requests outside the random draw: every route with 1-20 MB bodies and deeply nested filters on every POST. */
function fixedRequests(f: Fixtures): FuzzRequest[] {
  const out: FuzzRequest[] = [];
  const posts = ROUTES.filter((r) => r.method !== "GET" && r.method !== "DELETE");
  const sizes = [1, 3, 5, 8, 12, 20];
  sizes.forEach((mb, i) => {
    const route = posts[(i * 5) % posts.length]!;
    const filler = "a".repeat(mb * 1024 * 1024);
    const body = Buffer.from(JSON.stringify({ ...(route.body?.(f) ?? {}), query: filler }));
    const headers: Record<string, string> = {
      "Content-Type": "application/json",
      Authorization: `Bearer ${route.door === "admin" ? admin : f.keys.live}`,
    };
    out.push({
      label: `big ${mb} MB`,
      route,
      method: route.method,
      path: route.path.replace(/[:*]([A-Za-z]+)/g, (_m, name: string) => idFor(name, 1, f, route)),
      headers,
      body,
      canonical: true,
      orgId: route.door === "admin" ? f.orgs.victim : f.orgs.main,
    });
    // the same size sent chunked (no Content-Length), so the limit is found while reading
    out.push({
      ...out[out.length - 1]!,
      label: `big ${mb} MB chunked`,
      headers: { ...headers, "Transfer-Encoding": "chunked" },
    });
  });
  for (const route of posts) {
    for (const [shape, depth] of [
      ["and", 3000],
      ["not", 5000],
      ["flatNot", 5000],
      ["notArray", 5000],
    ] as const) {
      const headers: Record<string, string> = {
        "Content-Type": "application/json",
        Authorization: `Bearer ${route.door === "admin" ? admin : f.keys.live}`,
        "Idempotency-Key": `deep-${shape}`,
      };
      const base = JSON.stringify(route.body?.(f) ?? {}).slice(1, -1);
      const body = Buffer.from(`{${base ? `${base},` : ""}"filters":${deepText(shape, depth)}}`);
      out.push({
        label: `deep ${shape} ${depth}`,
        route,
        method: route.method,
        path: route.path.replace(/[:*]([A-Za-z]+)/g, (_m, name: string) => idFor(name, 1, f, route)),
        headers,
        body,
        canonical: true,
        orgId: route.door === "admin" ? f.orgs.victim : f.orgs.main,
      });
    }
  }
  // every API route with two different keys (the live one and a revoked one, or another organization's) in any pair
  // of headers: 401 before anything runs or is charged; and with an Expect the service cannot meet: 417 in the envelope
  for (const route of ROUTES.filter((r) => r.door === "api")) {
    const path = route.path.replace(/[:*]([A-Za-z]+)/g, (_m, name: string) => idFor(name, 1, f, route));
    const body =
      route.method === "GET" || route.method === "HEAD"
        ? undefined
        : Buffer.from(JSON.stringify(route.body?.(f) ?? {}));
    const json: Record<string, string> = body ? { "Content-Type": "application/json" } : {};
    for (const [label, keys] of [
      ["Bearer + revoked X-API-Key", { Authorization: `Bearer ${f.keys.live}`, "X-API-Key": f.keys.revoked }],
      [
        "Bearer + another organization's X-API-Key",
        { Authorization: `Bearer ${f.keys.live}`, "X-API-Key": f.keys.otherOrg },
      ],
      [
        "X-API-Key + bare Authorization of another organization",
        { Authorization: f.keys.victimOrg, "X-API-Key": f.keys.live },
      ],
    ] as const) {
      out.push({
        label: `two keys: ${label}`,
        route,
        method: route.method,
        path,
        headers: { ...json, ...keys },
        body,
        canonical: true,
        orgId: f.orgs.main,
        mustAnswer: 401,
      });
    }
    out.push({
      label: "Expect: 200-ok",
      route,
      method: route.method,
      path,
      headers: { ...json, Authorization: `Bearer ${f.keys.live}`, Expect: "200-ok" },
      body,
      canonical: true,
      orgId: f.orgs.main,
      mustAnswer: 417,
    });
  }
  return out;
}

// ---------------------------------------------------------------------------------------------------------------
// Sending.

interface Answer {
  status: number;
  headers: http.IncomingHttpHeaders;
  text: string;
}

const agent = new http.Agent({ keepAlive: true, maxSockets: CONCURRENCY });

function send(baseUrl: string, req: FuzzRequest): Promise<Answer> {
  const url = new URL(baseUrl);
  return new Promise((resolve, reject) => {
    const headers: Record<string, string> = { ...req.headers };
    const chunked = headers["Transfer-Encoding"] === "chunked";
    if (req.body && !chunked) headers["Content-Length"] = String(req.body.length);
    const outgoing = http.request(
      { host: url.hostname, port: url.port, method: req.method, path: req.path, headers, agent },
      (res) => {
        const chunks: Buffer[] = [];
        res.on("data", (c: Buffer) => chunks.push(c));
        res.on("end", () =>
          resolve({ status: res.statusCode ?? 0, headers: res.headers, text: Buffer.concat(chunks).toString("utf8") }),
        );
        res.on("error", reject);
      },
    );
    outgoing.on("error", reject);
    if (req.body) {
      if (chunked)
        for (let i = 0; i < req.body.length; i += 256 * 1024) outgoing.write(req.body.subarray(i, i + 256 * 1024));
      else outgoing.write(req.body);
    }
    outgoing.end();
  });
}

async function inPool<T, R>(items: T[], width: number, work: (item: T) => Promise<R>): Promise<R[]> {
  const results: R[] = new Array(items.length);
  let next = 0;
  await Promise.all(
    Array.from({ length: width }, async () => {
      while (next < items.length) {
        const i = next++;
        results[i] = await work(items[i]!);
      }
    }),
  );
  return results;
}

// ---------------------------------------------------------------------------------------------------------------
// Judging.

interface Failure {
  kind: string;
  request: string;
  detail: string;
}

const isEnvelope = (body: any, requestId: string | undefined) =>
  body !== null &&
  typeof body === "object" &&
  typeof body.error === "object" &&
  body.error !== null &&
  typeof body.error.code === "string" &&
  typeof body.error.message === "string" &&
  typeof body.error.requestId === "string" &&
  body.error.requestId === requestId;

/** The route a path reaches once spelling is forgiven: what a success there could have moved. */
function normalizedPath(path: string): string {
  let p = path.split("?")[0]!;
  try {
    p = decodeURIComponent(p);
  } catch {
    /* stays raw */
  }
  return p
    .toLowerCase()
    .replace(/\/\.\//g, "/")
    .replace(/\/+/g, "/")
    .replace(/\/$/, "");
}

function judge(req: FuzzRequest, res: Answer): Failure[] {
  const failures: Failure[] = [];
  const where = `${req.method} ${req.path.length > 120 ? `${req.path.slice(0, 120)}...` : req.path} (${req.label})`;
  const type = String(res.headers["content-type"] ?? "");
  const requestId = res.headers["x-request-id"] as string | undefined;
  if (res.status >= 500) failures.push({ kind: `5xx ${res.status}`, request: where, detail: res.text.slice(0, 200) });
  if (req.mustAnswer !== undefined && res.status !== req.mustAnswer)
    failures.push({
      kind: `${res.status} where ${req.mustAnswer} is due (${req.label})`,
      request: where,
      detail: res.text.slice(0, 200),
    });
  if (res.status >= 200 && res.status < 300 && !req.canonical)
    failures.push({
      kind: `2xx for a path not spelled as documented (${req.route.method} ${req.route.path})`,
      request: where,
      detail: `${res.status}`,
    });
  if (res.status >= 300) {
    if (req.method === "HEAD") {
      if (!type.startsWith("application/json"))
        failures.push({ kind: `HEAD ${res.status} not JSON (${type || "no type"})`, request: where, detail: "" });
    } else {
      let body: any;
      try {
        body = JSON.parse(res.text);
      } catch {
        body = undefined;
      }
      const limiter = res.status === 429 && body && typeof body.error === "string";
      if (!type.startsWith("application/json") || (!limiter && !isEnvelope(body, requestId))) {
        failures.push({
          kind: `${res.status} not in the envelope (${type || "no type"})`,
          request: where,
          detail: res.text.slice(0, 200),
        });
      }
    }
  }
  return failures;
}

/**
 * Money a successful request may move, by organization: search charges, unlock charges, operator credits and refunds.
 */
function moneyMoved(req: FuzzRequest, res: Answer): { orgId: string; micros: bigint } | undefined {
  if (res.status < 200 || res.status >= 300 || !req.orgId) return undefined;
  const path = normalizedPath(req.path);
  const method = req.method.toUpperCase();
  if (method !== "POST") return undefined;
  if (/^\/api\/v1\/search\/unlock$/.test(path)) {
    // costCharged is null when the call unlocked nothing new
    const charged: unknown = JSON.parse(res.text).costCharged;
    return { orgId: req.orgId, micros: charged === null ? 0n : -credits(charged) };
  }
  if (/^\/api\/v1\/search\/[^/]+$/.test(path) && !/\/(preview|collections|quota)$/.test(path)) {
    const cost = res.headers["x-query-cost"];
    return { orgId: req.orgId, micros: typeof cost === "string" ? -credits(cost) : 0n };
  }
  if (/^\/admin\/v1\/organizations\/[^/]+\/(credits|refunds)$/.test(path))
    return { orgId: req.orgId, micros: credits(JSON.parse(req.body!.toString("utf8")).amount) };
  return undefined;
}

// ---------------------------------------------------------------------------------------------------------------

async function balances(): Promise<Record<string, bigint>> {
  const out: Record<string, bigint> = {};
  for (const id of Object.values(fx.orgs))
    out[id] = credits((await call("GET", `/admin/v1/organizations/${id}/balance`, { admin })).body.balance);
  return out;
}

beforeAll(async () => {
  // the per-IP limiter has its own tests; here every hostile request should reach the code that reads its input
  svc = await startTestService({
    env: {
      ADMIN_REQUESTS_PER_MINUTE: "1000000",
      ADMIN_FAILED_AUTH_PER_MINUTE: "1000000",
      DASHBOARD_REQUESTS_PER_MINUTE: "1000000",
      DASHBOARD_FAILED_LOGINS_PER_MINUTE: "1000000",
      DASHBOARD_FAILED_LOGINS_PER_ACCOUNT: "1000000",
    },
  });
  call = httpClient(svc.baseUrl);
  admin = svc.adminToken;
  const limits = { perMinute: 1_000_000, daily: 100_000_000, monthly: 1_000_000_000, previewPerHour: 1_000_000 };
  const org = async (name: string, credits: string) => {
    const made = await call("POST", "/admin/v1/organizations", { admin, body: { name, limits } });
    expect(made.status).toBe(201);
    expect(
      (await call("POST", `/admin/v1/organizations/${made.body.id}/credits`, { admin, body: { amount: credits } }))
        .status,
    ).toBe(200);
    return made.body.id as string;
  };
  const key = async (orgId: string, body: Record<string, unknown>) => {
    const made = await call("POST", `/admin/v1/organizations/${orgId}/keys`, { admin, body });
    expect(made.status).toBe(201);
    return made.body as { id: string; key: string };
  };
  const orgs = {
    main: await org("Fuzz main", "50.00"),
    other: await org("Fuzz other", "20.00"),
    victim: await org("Fuzz victim", "10.00"),
  };
  const live = await key(orgs.main, { mode: "live" });
  const revoked = await key(orgs.main, { mode: "live" });
  expect((await call("POST", `/admin/v1/keys/${revoked.id}/revoke`, { admin })).status).toBe(200);
  const victim = await key(orgs.victim, { mode: "live" });
  const preview = await call("POST", "/api/v1/search/preview", { key: live.key, body: SEARCH_BODY });
  expect(preview.status).toBe(200);
  // dashboard members: an owner of the main organization and a member of the other, signed in over JSON
  const session = (res: { status: number; headers: Headers; body: any }): Session => {
    expect(res.status, JSON.stringify(res.body)).toBeLessThan(300);
    const cookie = res.headers
      .getSetCookie()
      .find((c) => c.startsWith("ls_session="))!
      .split(";")[0]!;
    return { cookie, csrf: res.body.csrfToken };
  };
  const join = async (orgId: string, email: string, role: string) => {
    const invite = await call("POST", `/admin/v1/organizations/${orgId}/invites`, { admin, body: { email, role } });
    expect(invite.status).toBe(201);
    return session(
      await call("POST", new URL(invite.body.inviteUrl).pathname, { body: { password: "fuzzing passphrase 1" } }),
    );
  };
  const login = async (email: string) =>
    session(await call("POST", "/dashboard/login", { body: { email, password: "fuzzing passphrase 1" } }));
  const owner = await join(orgs.main, "owner@fuzz.example", "owner");
  const otherOrg = await join(orgs.other, "member@fuzz.example", "member");
  const ended = await login("owner@fuzz.example");
  expect(
    (
      await call("POST", "/dashboard/logout", {
        headers: { Cookie: ended.cookie, "X-CSRF-Token": ended.csrf },
        body: {},
      })
    ).status,
  ).toBe(200);
  const spare = await login("owner@fuzz.example");
  // a session is named by the SHA-256 of its cookie's token
  const spareId = createHash("sha256").update(spare.cookie.split("=")[1]!).digest("hex");
  const dashboardKey = await key(orgs.main, { mode: "test" });
  const pendingInvite = await call("POST", `/admin/v1/organizations/${orgs.other}/invites`, {
    admin,
    body: { email: "pending@fuzz.example", role: "member" },
  });
  fx = {
    orgs,
    keys: {
      live: live.key,
      scoped: (await key(orgs.main, { mode: "live", collections: ["clinical-digest"] })).key,
      sandbox: (await key(orgs.main, { mode: "test" })).key,
      revoked: revoked.key,
      otherOrg: (await key(orgs.other, { mode: "live" })).key,
      victimOrg: victim.key,
    },
    victimKeyId: victim.id,
    previewId: preview.body.queryId,
    previewRowIds: preview.body.results.map((r: { id: string }) => r.id),
    sessions: { owner, otherOrg, ended, forLogout: await login("owner@fuzz.example"), spareId },
    dashboardKeyId: dashboardKey.id,
    inviteToken: new URL(pendingInvite.body.inviteUrl).pathname.split("/").pop()!,
  };
}, 600_000);

afterAll(async () => {
  agent.destroy();
  await svc?.close();
});

describe("HTTP fuzz", () => {
  it("knows every route the app registers", () => {
    expect(ROUTES.map((r) => `${r.method} ${r.path}`).sort()).toEqual(registeredRoutes());
  });

  it(
    `answers ${RANDOM_REQUESTS}+ hostile requests on every route without a 5xx, always in the envelope, moving ` +
      "no money by a failure",
    async () => {
      const prototypeBefore = Object.getOwnPropertyNames(Object.prototype).sort();
      const before = await balances();
      const requests = [
        ...fixedRequests(fx),
        ...fc.sample(recipe, { seed: SEED, numRuns: RANDOM_REQUESTS }).map((r, i) => build(r, fx, i)),
      ];
      expect(requests.length).toBeGreaterThanOrEqual(5_000);
      const covered = new Set(requests.map((r) => `${r.route.method} ${r.route.path}`));
      expect(ROUTES.filter((r) => !covered.has(`${r.method} ${r.path}`))).toEqual([]);

      const failures: Failure[] = [];
      const expectedMoves: Record<string, bigint> = Object.fromEntries(Object.values(fx.orgs).map((id) => [id, 0n]));
      const statuses = new Map<number, number>();
      await inPool(requests, CONCURRENCY, async (req) => {
        let res: Answer;
        try {
          res = await send(svc.baseUrl, req);
        } catch (err) {
          failures.push({
            kind: `no answer (${(err as NodeJS.ErrnoException).code ?? (err as Error).message})`,
            request: `${req.method} ${req.path.slice(0, 120)} (${req.label})`,
            detail: "",
          });
          return;
        }
        statuses.set(res.status, (statuses.get(res.status) ?? 0) + 1);
        failures.push(...judge(req, res));
        try {
          const moved = moneyMoved(req, res);
          if (moved && moved.orgId in expectedMoves) expectedMoves[moved.orgId]! += moved.micros;
        } catch (err) {
          failures.push({
            kind: "a success whose money cannot be read",
            request: `${req.method} ${req.path.slice(0, 120)} (${req.label})`,
            detail: String(err),
          });
        }
      });

      const after = await balances();
      for (const id of Object.values(fx.orgs)) {
        if (after[id] !== before[id]! + expectedMoves[id]!) {
          failures.push({
            kind: "balance moved by a failed request",
            request: id,
            detail: `before ${before[id]}, successful requests moved ${expectedMoves[id]}, after ${after[id]}`,
          });
        }
      }
      const verify = await call("GET", "/admin/v1/verify", { admin });
      if (verify.status !== 200 || verify.body.ok !== true)
        failures.push({
          kind: "hash chain broken",
          request: "/admin/v1/verify",
          detail: JSON.stringify(verify.body).slice(0, 200),
        });
      // quiet now: every projection rebuilt from the events must equal the live one (replays during the fuzz raced
      // writes)
      const replay = await call("POST", "/admin/v1/replay", { admin });
      if (replay.status !== 200 || replay.body.equal !== true)
        failures.push({
          kind: "projections differ from the events",
          request: "/admin/v1/replay",
          detail: JSON.stringify(replay.body?.tables?.filter((t: { equal: boolean }) => !t.equal)).slice(0, 300),
        });
      const prototypeAfter = Object.getOwnPropertyNames(Object.prototype).sort();
      if (
        JSON.stringify(prototypeAfter) !== JSON.stringify(prototypeBefore) ||
        ({} as Record<string, unknown>).polluted !== undefined
      ) {
        failures.push({
          kind: "Object.prototype polluted",
          request: "",
          detail: prototypeAfter.filter((n) => !prototypeBefore.includes(n)).join(", "),
        });
      }

      // one line per kind of failure with a count and the first example, so the report names what to fix
      const byKind = new Map<string, Failure[]>();
      for (const f of failures) byKind.set(f.kind, [...(byKind.get(f.kind) ?? []), f]);
      const summary = [...byKind.entries()].map(
        ([kind, list]) => `${list.length} x ${kind}; e.g. ${list[0]!.request} -> ${list[0]!.detail}`,
      );
      const histogram = [...statuses.entries()]
        .sort(([a], [b]) => a - b)
        .map(([status, n]) => `${status}: ${n}`)
        .join(", ");
      console.log(
        `fuzz: ${requests.length} requests (${histogram}), ${failures.length} failures\n${summary.join("\n")}`,
      );
      expect(summary).toEqual([]);
    },
    600_000,
  );
});
