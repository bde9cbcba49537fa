// The OpenAPI document against the real service: served without a key, covering the routes of the production
// composition, and describing what the endpoints actually answer (bodies parse with the documented schemas without
// losing a field; documented headers are sent).
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { z } from "zod";
import { startTestService, httpClient, operatorSteps, type TestService } from "../support/testService.js";
import { buildOpenApiDocument, declaredOperations } from "../../src/http/openApiDocument.js";
import { routeCoverage } from "../support/routeCoverage.js";
import * as responses from "../../src/http/openapi/responses.js";
import * as operator from "../../src/http/openapi/operatorResponses.js";

let svc: TestService;
let call: ReturnType<typeof httpClient>;
let key: string;
const document = buildOpenApiDocument() as {
  paths: Record<string, Record<string, { responses: Record<string, { headers?: Record<string, unknown> }> }>>;
};

beforeAll(async () => {
  svc = await startTestService();
  call = httpClient(svc.baseUrl);
  const { newOrg, newKey } = operatorSteps(call, svc.adminToken);
  const org = await newOrg({}, "25.00");
  ({ key } = await newKey(org.id));
}, 600_000);

afterAll(async () => {
  await svc?.close();
});

/**
 * The body parses with the schema and nothing is stripped: every field sent is documented, every documented required
 * field sent.
 */
function expectDocumented(schema: z.ZodType, body: unknown) {
  const parsed = schema.safeParse(body);
  expect(parsed.error?.issues ?? []).toEqual([]);
  expect(parsed.data).toEqual(body);
}

/** The headers the document lists for the success response are on the response (the optional balance aside). */
function expectDocumentedHeaders(method: string, path: string, status: string, headers: Headers) {
  const documented = Object.keys(document.paths[path]![method]!.responses[status]!.headers ?? {});
  expect(documented.length).toBeGreaterThan(0);
  for (const name of documented) expect(headers.get(name), `${method.toUpperCase()} ${path}: ${name}`).not.toBeNull();
}

describe("the document on the running service", () => {
  it("is served at /openapi.json and rendered at /docs without a key", async () => {
    const doc = await call("GET", "/openapi.json");
    expect(doc.status).toBe(200);
    expect(doc.headers.get("content-type")).toMatch(/^application\/json/);
    expect(doc.body).toEqual(JSON.parse(JSON.stringify(document)));
    const page = await fetch(`${svc.baseUrl}/docs`);
    expect(page.status).toBe(200);
    expect(await page.text()).toContain("/docs/assets/swagger-ui-bundle.js");
    const asset = await fetch(`${svc.baseUrl}/docs/assets/swagger-ui.css`);
    expect(asset.status).toBe(200);
    expect(asset.headers.get("content-type")).toMatch(/^text\/css/);
  });

  it("covers every route of the production composition (it started: its routes are the declared ones), no more", () => {
    // the routes the app serves: createApp refuses to start unless they are its declarations, each once
    const routed = declaredOperations().map((op) => ({ method: op.method.toUpperCase(), path: op.path }));
    expect(routed.length).toBeGreaterThan(30);
    const { undocumented, unrouted } = routeCoverage(routed, document);
    expect(
      undocumented,
      "routes the app registers that the OpenAPI document lacks: add them to OPERATIONS in " +
        "src/http/openapi/document.ts",
    ).toEqual([]);
    expect(unrouted, "paths the OpenAPI document describes that no router serves").toEqual([]);
  });
});

describe("responses as documented", () => {
  it("collections, quota, journals and journal requests", async () => {
    const collections = await call("GET", "/api/v1/search/collections", { key });
    expect(collections.status).toBe(200);
    expectDocumented(responses.CollectionsResponse, collections.body);
    expectDocumentedHeaders("get", "/api/v1/search/collections", "200", collections.headers);

    const quota = await call("GET", "/api/v1/search/quota", { key });
    expectDocumented(responses.QuotaInfo, quota.body);

    const journals = await call("GET", "/api/v1/search/collections/scifact/journals?limit=5", { key });
    expect(journals.status).toBe(200);
    expectDocumented(responses.Discovery, journals.body);

    const request = await call("POST", "/api/v1/search/journal-requests", {
      key,
      body: { title: "Journal of Examples", issn: "0028-0836" },
    });
    expect(request.status).toBe(201);
    expectDocumented(responses.JournalRequest, request.body);
  });

  it("search, preview, unlock and re-fetch", async () => {
    // with an Idempotency-Key, so that Idempotency-Status, which answers one, is among the headers checked
    const search = await call("POST", "/api/v1/search/query", {
      key,
      body: { collection: "scifact", query: "vitamin D and bone density", limit: 3 },
      headers: { "Idempotency-Key": "openapi-search-1" },
    });
    expect(search.status).toBe(200);
    expect(search.body.results.length).toBeGreaterThan(0);
    expectDocumented(responses.SearchResponse, search.body);
    expectDocumentedHeaders("post", "/api/v1/search/query", "200", search.headers);

    const shorthand = await call("POST", "/api/v1/search/scifact", {
      key,
      body: { query: "vitamin D and bone density", limit: 2, includeMetadata: false },
    });
    expectDocumented(responses.SearchResponse, shorthand.body);

    const preview = await call("POST", "/api/v1/search/preview", {
      key,
      body: { collection: "scifact", query: "statins and muscle pain", limit: 3 },
    });
    expect(preview.status).toBe(200);
    expectDocumented(responses.PreviewUnlockResponse, preview.body);

    const unlock = await call("POST", "/api/v1/search/unlock", {
      key,
      body: { queryId: preview.body.queryId, resultIds: [preview.body.results[0].id] },
    });
    expect(unlock.status).toBe(200);
    expectDocumented(responses.PreviewUnlockResponse, unlock.body);

    const refetch = await call("GET", `/api/v1/search/results/${preview.body.queryId}`, { key });
    expect(refetch.status).toBe(200);
    expectDocumented(responses.SearchResultsPreviewResponse, refetch.body);
    expectDocumentedHeaders("get", "/api/v1/search/results/{queryId}", "200", refetch.headers);
    // a re-fetched preview still says what the rest costs, as the unlock did, and what the threshold held back
    expect([refetch.body.costToUnlockRemaining, refetch.body.belowMinRelevance]).toEqual([
      unlock.body.costToUnlockRemaining,
      preview.body.belowMinRelevance,
    ]);
    expect(Number(refetch.body.costToUnlockRemaining)).toBeGreaterThan(0);
  });

  it("an asynchronous assisted search: its 202, its polls while it runs, its answer re-fetched", async () => {
    const started = await call("POST", "/api/v1/search/assisted", {
      key,
      body: { collection: "scifact", query: "Does vitamin D deficiency increase the risk of falls?", limit: 2 },
      headers: { Prefer: "respond-async" },
    });
    expect(started.status).toBe(202);
    expectDocumented(responses.AssistedAccepted, started.body);
    expect(started.headers.get("location")).toBe(`/api/v1/search/results/${started.body.queryId}`);
    const documented = Object.keys(document.paths["/api/v1/search/assisted"]!.post!.responses["202"]!.headers ?? {});
    expect(documented).toEqual(["X-Request-Id", "Location", "Idempotency-Status"]);
    // each poll answers how it stands until the answer is stored, then the answer: each shape documented
    let poll = await call("GET", `/api/v1/search/results/${started.body.queryId}`, { key });
    for (let i = 0; i < 120 && (poll.body.status === "running" || poll.body.status === "needs_clarification"); i++) {
      expectDocumented(responses.AssistedPending, poll.body);
      await new Promise((r) => setTimeout(r, 500));
      poll = await call("GET", `/api/v1/search/results/${started.body.queryId}`, { key });
    }
    expect(poll.status).toBe(200);
    expect(["results", "no_relevant_results"]).toContain(poll.body.status);
    expectDocumented(responses.SearchResultsPreviewResponse, poll.body);
    expect(poll.body.screening.delivered).toBe(poll.body.results.length);
    // a vague query waits for its clarification: that poll's shape is documented too
    const vague = await call("POST", "/api/v1/search/assisted", {
      key,
      body: { collection: "scifact", query: "stem cells", async: true },
    });
    expect(vague.status).toBe(202);
    let asked = await call("GET", `/api/v1/search/results/${vague.body.queryId}`, { key });
    for (let i = 0; i < 60 && asked.body.status === "running"; i++) {
      await new Promise((r) => setTimeout(r, 500));
      asked = await call("GET", `/api/v1/search/results/${vague.body.queryId}`, { key });
    }
    expect(asked.body.status).toBe("needs_clarification");
    expectDocumented(responses.AssistedPending, asked.body);
  }, 120_000);

  it("the operator API", async () => {
    const admin = svc.adminToken;
    const org = await call("POST", "/admin/v1/organizations", { admin, body: { name: "Documented lab" } });
    expect(org.status).toBe(201);
    expectDocumented(operator.Organization, org.body);
    const orgId = org.body.id as string;
    expectDocumented(
      operator.Balance,
      (await call("POST", `/admin/v1/organizations/${orgId}/credits`, { admin, body: { amount: "5.00" } })).body,
    );
    const created = await call("POST", `/admin/v1/organizations/${orgId}/keys`, {
      admin,
      body: { mode: "live", collections: ["scifact"] },
    });
    expectDocumented(operator.CreatedKey, created.body);
    // a key's name is held to the documented 100 characters at the door, not past it
    const named = (name: string) =>
      call("POST", `/admin/v1/organizations/${orgId}/keys`, { admin, body: { mode: "test", name } });
    expect((await named("n".repeat(100))).status).toBe(201);
    const long = await named("n".repeat(101));
    expect([long.status, long.body.error.code, long.body.error.message]).toEqual([
      422,
      "VALIDATION_ERROR",
      expect.stringMatching(/^name: .*100/),
    ]);
    expectDocumented(operator.ApiKeyView, (await call("GET", `/admin/v1/keys/${created.body.id}`, { admin })).body);
    expectDocumented(
      operator.Prices,
      (await call("PUT", `/admin/v1/organizations/${orgId}/prices/scifact`, { admin, body: { pricePer1000: "0.010" } }))
        .body,
    );
    expectDocumented(
      operator.Limits,
      (await call("POST", `/admin/v1/organizations/${orgId}/limits`, { admin, body: { daily: 500 } })).body,
    );
    expectDocumented(operator.Ledger, (await call("GET", `/admin/v1/organizations/${orgId}/ledger`, { admin })).body);
    expectDocumented(
      operator.Reconciliation,
      (await call("GET", `/admin/v1/organizations/${orgId}/reconciliation`, { admin })).body,
    );
    expectDocumented(
      operator.JournalRequestSummaries,
      (await call("GET", "/admin/v1/journal-requests", { admin })).body,
    );
    expectDocumented(operator.ChainVerdict, (await call("GET", "/admin/v1/verify", { admin })).body);
    expectDocumented(
      operator.RevokedKey,
      (await call("POST", `/admin/v1/keys/${created.body.id}/revoke`, { admin })).body,
    );
  });

  it("errors in the envelope", async () => {
    const res = await call("POST", "/api/v1/search/query", {
      key,
      body: { collection: "scifact", query: "x".repeat(1001) },
    });
    expect(res.status).toBe(422);
    expectDocumented(responses.ErrorResponse, res.body);
  });
});
