// Each route declared once: every route the app serves comes from a declaration carrying its access and its OpenAPI
// words, and every declaration is a route the app serves. A group is mounted with the check its one access requires:
// a declaration without access, or a group mixing kinds, is refused at start.
import { describe, expect, it } from "vitest";
import pino from "pino";
import { createApp } from "../../src/http/app.js";
import { routeMismatches } from "../../src/http/openapi/routedOperations.js";
import { DECLARED_ROUTES, declaredOperations } from "../../src/http/openApiDocument.js";
import { declareRoute, declaredGroup, type AccessChecks } from "../../src/http/routeDeclaration.js";

describe("route declarations", () => {
  it("the app starts: it serves each declared route once and no other (createApp refuses to start otherwise)", () => {
    const app = createApp({
      log: pino({ level: "silent" }),
      adminToken: "unit-test-admin-token",
      clock: () => new Date(),
      readiness: {},
    } as unknown as Parameters<typeof createApp>[0]);
    expect(app.middleware.length).toBeGreaterThan(5);
  });

  it("a route served but not declared, declared but not served, or twice, is a mismatch the app refuses", () => {
    const get = (path: string) => ({ method: "GET", path });
    expect(routeMismatches([get("/a"), get("/b")], [{ method: "get", path: "/a" }, get("/b")])).toEqual([]);
    expect(routeMismatches([get("/a"), get("/b"), get("/b")], [get("/a"), get("/c"), get("/c")])).toEqual([
      "GET /b is served but not declared",
      "GET /c is declared but not served",
      "GET /b is served twice",
      "GET /c is declared twice",
    ]);
  });

  it("every declaration carries its OpenAPI words: operation id, summary, tag, access, response and errors", () => {
    const ops = declaredOperations();
    for (const op of ops) {
      expect(op.operationId, `${op.method} ${op.path}`).toMatch(/^[a-z][A-Za-z]+$/);
      expect(op.summary.length, op.operationId).toBeGreaterThan(5);
      expect(op.tag && op.access && op.response, op.operationId).toBeTruthy();
      // a public route (health, docs) may answer nothing but its document; every other one has its refusals
      if (op.access !== "public") expect(op.errors.length, op.operationId).toBeGreaterThan(0);
    }
    expect(new Set(ops.map((op) => op.operationId)).size).toBe(ops.length);
    expect(DECLARED_ROUTES.length).toBeGreaterThanOrEqual(6);
  });
});

describe("each route's access, as an attacker would probe it", () => {
  const ops = declaredOperations();
  const where = (test: (path: string) => boolean) => ops.filter((op) => test(op.path));
  /** The console's routes a visitor reaches before signing in: sign-in, invites, the pages' files, the icon. */
  const OPEN = /^\/(dashboard\/(login|operator\/login|invite\/\{token\}|assets\/\{file\})|favicon\.ico)$/;

  it("every operator route needs the operator token", () => {
    const operator = where((p) => p.startsWith("/admin/v1/"));
    expect(operator.length).toBeGreaterThan(40);
    expect(operator.filter((op) => op.access !== "operator").map((op) => op.operationId)).toEqual([]);
  });

  it("every console route needs a session (CSRF-checked on a POST) but sign-in, invites and the pages' files", () => {
    const console = where((p) => p.startsWith("/dashboard") || p === "/favicon.ico");
    expect(console.length).toBeGreaterThan(50);
    for (const op of console)
      expect(op.access, `${op.method} ${op.path}`).toBe(
        OPEN.test(op.path) ? "dashboardOpen" : op.path.startsWith("/dashboard/operator") ? "operatorPage" : "session",
      );
  });

  it("public routes are the health checks and the document, nothing else", () => {
    expect(
      where(() => true)
        .filter((op) => op.access === "public")
        .map((op) => op.path),
    ).toEqual(expect.arrayContaining(["/healthz", "/readyz", "/openapi.json", "/docs", "/docs/assets/{file}"]));
    expect(ops.filter((op) => op.access === "public").length).toBe(5);
  });
});

describe("a route group's access, decided at start", () => {
  const route = (path: string, access: string) =>
    declareRoute({
      method: "get",
      path,
      tag: "docs",
      access: access as "public",
      operationId: "probe",
      summary: "A probe route",
      response: "Liveness",
      errors: [],
      handler: (ctx) => {
        ctx.body = "reached";
      },
    });
  const checks: AccessChecks = { apiKey: async () => undefined, operator: async () => undefined, public: "public" };

  it("refuses a declaration without access, or with an access the app has no check for", () => {
    expect(() => declaredGroup([route("/a", undefined as unknown as string)], {}, checks)).toThrow(/declare access/);
    expect(() => declaredGroup([route("/a", "session")], {}, checks)).toThrow(/get \/a declare access session/);
  });

  it("refuses a group whose routes mix access kinds: an operator route cannot ride a public group", () => {
    expect(() => declaredGroup([route("/a", "public"), route("/admin/v1/b", "operator")], {}, checks)).toThrow(
      /get \/a, get \/admin\/v1\/b declare access public,operator/,
    );
    expect(() => declaredGroup([route("/a", "apiKey"), route("/b", "operator")], {}, checks)).toThrow();
  });

  it("mounts a group of one access with that access's check", () => {
    expect(declaredGroup([route("/a", "operator")], {}, checks).access).toBe(checks.operator);
    expect(declaredGroup([route("/a", "public")], {}, checks).access).toBe("public");
  });
});
