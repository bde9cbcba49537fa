// The OpenAPI document: a valid OpenAPI 3.1 document, generated from the request schemas the routes parse with,
// covering exactly the routes the app registers; /openapi.json, /docs and its assets served without credentials, no
// CDN.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import pino from "pino";
import { z } from "zod";
import { Validator } from "@seriousme/openapi-schema-validator";
import { createApp } from "../../src/http/app.js";
import { buildOpenApiDocument, declaredOperations } from "../../src/http/openApiDocument.js";
import { queryBody, previewBody, unlockBody, journalsQuery } from "../../src/wire/schemas.js";
import { routeCoverage } from "../support/routeCoverage.js";

type Doc = {
  paths: Record<
    string,
    Record<
      string,
      {
        security: Record<string, string[]>[];
        parameters?: { name: string; in: string; required: boolean; schema: Record<string, unknown> }[];
      }
    >
  >;
  components: { schemas: Record<string, any> };
};
const document = buildOpenApiDocument() as unknown as Doc;

/** A request schema's JSON Schema as a client sends it (a field with a default optional), computed here from zod. */
function requestJsonSchema(schema: z.ZodType): Record<string, unknown> {
  const { $schema: _dialect, ...direct } = z.toJSONSchema(schema, { io: "input" }) as Record<string, unknown>;
  return direct;
}

/** An app whose routes are registered as in production; no request here reaches a dependency. */
function appForRoutes() {
  return createApp({
    log: pino({ level: "silent" }),
    adminToken: "unit-test-admin-token",
    clock: () => new Date(),
    readiness: {},
  } as unknown as Parameters<typeof createApp>[0]);
}

describe("the OpenAPI document", () => {
  it("is a valid OpenAPI 3.1 document", async () => {
    const result = await new Validator().validate(document as unknown as Record<string, unknown>);
    expect(result.errors ?? []).toEqual([]);
    expect(result.valid).toBe(true);
    expect((document as unknown as { openapi: string }).openapi).toBe("3.1.0");
  });

  it("documents every route the app registers and routes every documented path", () => {
    // the routes the app serves: createApp refuses to start unless they are its declarations, each once
    const routed = declaredOperations().map((op) => ({ method: op.method.toUpperCase(), path: op.path }));
    expect(routed.length).toBeGreaterThan(30);
    const { undocumented, unrouted } = routeCoverage(routed, document);
    // a new route (POST /mcp, POST /api/v1/search/assisted...) lands here until it is added to
    // src/http/openapi/document.ts
    expect(
      undocumented,
      "routes the app registers that the OpenAPI document lacks: add them to OPERATIONS in " +
        "src/http/openapi/document.ts",
    ).toEqual([]);
    expect(unrouted, "paths the OpenAPI document describes that no router serves").toEqual([]);
  });

  it("generates the request schemas from the zod schemas the routes parse with", () => {
    const searchRequest = document.components.schemas.SearchRequest;
    expect(searchRequest).toEqual(requestJsonSchema(queryBody));
    // the spec's limits, as the schema enforces them
    expect(searchRequest.properties.limit).toMatchObject({ type: "integer", minimum: 1, maximum: 30, default: 10 });
    expect(searchRequest.properties.query).toMatchObject({ type: "string", maxLength: 1000 });
    // collection and collections may be sent as null (the reference's SearchRequest), so each is an array or null
    expect(searchRequest.properties.collections.anyOf).toEqual([
      expect.objectContaining({ type: "array", maxItems: 5 }),
      { type: "null" },
    ]);
    // a field with a default is optional for the client; query and like are one-of (checked by the body's refinement:
    // 422)
    expect(searchRequest.required).toBeUndefined();
    expect(Object.keys(searchRequest.properties)).toEqual(
      expect.arrayContaining(["query", "like", "sort", "cursor", "max_cost"]),
    );
    expect(document.components.schemas.SearchPreviewRequest).toEqual(requestJsonSchema(previewBody));
    expect(document.components.schemas.UnlockRequest).toEqual(requestJsonSchema(unlockBody));
    // the deprecated alias reads as includeFigures; includeFigures wins when both are sent
    expect([
      unlockBody.parse({ queryId: "q", includeImages: true }).includeFigures,
      unlockBody.parse({ queryId: "q" }).includeFigures,
      unlockBody.parse({ queryId: "q", includeFigures: false, includeImages: true }).includeFigures,
    ]).toEqual([true, false, false]);
    expect(document.components.schemas.UnlockRequest.additionalProperties).toBe(false);
  });

  it("states query parameters with the ranges the route parses them to", () => {
    const params = document.paths["/api/v1/search/collections/{name}/journals"]!.get!.parameters!;
    expect(params.map((p) => p.name)).toEqual(["name", ...Object.keys(journalsQuery.shape)]);
    expect(params.find((p) => p.name === "limit")).toMatchObject({
      in: "query",
      required: false,
      schema: { type: "integer", minimum: 1, maximum: 200, default: 50 },
    });
    expect(params.find((p) => p.name === "min_h_index")).toMatchObject({
      required: false,
      schema: { type: "integer", minimum: 0, maximum: 10000 },
    });
    const refetch = document.paths["/api/v1/search/results/{queryId}"]!.get!.parameters!;
    expect(refetch.find((p) => p.name === "includeFigures")!.schema).toMatchObject({
      enum: ["true", "false"],
      default: "false",
    });
    expect(refetch.find((p) => p.name === "imageMaxWidth")!.schema).toMatchObject({
      type: "integer",
      minimum: 100,
      maximum: 1920,
      default: 800,
    });
  });

  it("asks an API key on /api/v1 and /mcp, the operator token on /admin/v1, a session on the dashboard", () => {
    const beforeSignIn = /^\/dashboard\/(login|operator\/login|invite\/\{token\}|assets\/\{file\})$/;
    for (const [path, ops] of Object.entries(document.paths)) {
      for (const op of Object.values(ops)) {
        const schemes = op.security.flatMap((s) => Object.keys(s)).sort();
        if (path.startsWith("/api/v1/") || path === "/mcp")
          expect(schemes, path).toEqual(["ApiKeyHeader", "BearerAuth"]);
        else if (path.startsWith("/admin/v1/")) expect(schemes, path).toEqual(["OperatorBearer"]);
        else if (path === "/dashboard/operator" || path.startsWith("/dashboard/operator/orgs/"))
          expect(schemes, path).toEqual(["DashboardSession", "OperatorBearer"]);
        else if (path.startsWith("/dashboard") && !beforeSignIn.test(path))
          expect(schemes, path).toEqual(["DashboardSession"]);
        else expect(schemes, path).toEqual([]);
      }
    }
  });

  it("describes errors with the envelope and search responses with the billing headers", () => {
    const query = (document.paths["/api/v1/search/query"]!.post as any).responses;
    expect(query["422"].content["application/json"].schema).toEqual({ $ref: "#/components/schemas/Error" });
    expect(Object.keys(query["200"].headers)).toEqual(
      expect.arrayContaining([
        "X-Query-Cost",
        "X-Tokens-Used",
        "X-Billing-Mode",
        "X-Credits-Remaining",
        "X-RateLimit-Limit",
        "X-Request-Id",
      ]),
    );
    expect(document.components.schemas.Error.properties.error.required).toEqual(["code", "message", "requestId"]);
    expect(Object.keys(document.components.schemas.CollectionsResponse.properties)).toEqual(["collections", "count"]);
    expect(document.components.schemas.Collection.required).toContain("documentCount");
  });
});

describe("/openapi.json and /docs", () => {
  let server: Server;
  let base: string;
  beforeAll(async () => {
    server = createServer(appForRoutes().callback());
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    await new Promise<void>((resolve) => server.close(() => resolve()));
  });

  it("serves the document without a key", async () => {
    const res = await fetch(`${base}/openapi.json`);
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toMatch(/^application\/json/);
    expect(res.headers.get("cache-control")).toMatch(/public/);
    expect(await res.json()).toEqual(JSON.parse(JSON.stringify(document)));
  });

  it("serves the page without a key, loading only its own assets under a self-only policy", async () => {
    const res = await fetch(`${base}/docs`);
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toMatch(/^text\/html/);
    const policy = res.headers.get("content-security-policy");
    expect(policy).toMatch(/^default-src 'none'; script-src 'self'; style-src 'self';/);
    expect(policy).toContain("frame-ancestors 'none'");
    expect(policy).not.toMatch(/https?:|unsafe/);
    const html = await res.text();
    const references = [...html.matchAll(/(?:src|href)="([^"]+)"/g)].map((m) => m[1]!);
    expect(references.length).toBeGreaterThanOrEqual(3);
    for (const ref of references) expect(ref).toMatch(/^\/docs\/assets\/[\w.-]+$/);
    expect(html).not.toMatch(/<script>|<script [^>]*>[^<\s]/); // no inline script
    for (const ref of references) expect((await fetch(`${base}${ref}`)).status, ref).toBe(200);
  });

  it("serves the assets from swagger-ui-dist with their content types, and nothing else", async () => {
    const bundle = await fetch(`${base}/docs/assets/swagger-ui-bundle.js`);
    expect(bundle.headers.get("content-type")).toMatch(/^application\/javascript/);
    expect(await bundle.text()).toContain("SwaggerUIBundle");
    expect((await fetch(`${base}/docs/assets/swagger-ui.css`)).headers.get("content-type")).toMatch(/^text\/css/);
    const init = await (await fetch(`${base}/docs/assets/docs-init.js`)).text();
    expect(init).toContain("url: '/openapi.json'");
    const unknown = await fetch(`${base}/docs/assets/package.json`);
    expect(unknown.status).toBe(404);
    expect(((await unknown.json()) as { error: { code: string } }).error.code).toBe("NOT_FOUND");
  });
});
