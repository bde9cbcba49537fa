// The HTTP shell as an attacker meets it, on the real service with default settings: every spelling of every route
// without credentials, the error envelope for what no handler answers, the operator limiter, and the headers.
import { connect } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestService, sliceDataRoot, type TestService } from "../support/testService.js";
import { ADMIN_ROUTES } from "../../src/http/routes/adminRoutes.js";
import {
  dashboardMemberRoutes,
  dashboardOperatorRoutes,
  type DashboardRouteDeps,
} from "../../src/http/routes/dashboardRoutes.js";
import { rawRequest, type RawResponse } from "./rawRequest.js";

/**
 * Spellings of a canonical path that must never reach its handler: case, empty and dot segments, trailing /, escapes, ;
 * params.
 */
function spellingsOf(path: string): string[] {
  const [, first, second, ...rest] = path.split("/");
  const tail = rest.length ? `/${rest.join("/")}` : "";
  const upperFirst = first!.toUpperCase();
  const capitalFirst = first![0]!.toUpperCase() + first!.slice(1);
  const escapedFirst = `%${first!.charCodeAt(0).toString(16)}${first!.slice(1)}`;
  return [
    `/${upperFirst}/${second}${tail}`,
    `/${capitalFirst}/${second}${tail}`,
    `/${first}/${second!.toUpperCase()}${tail}`,
    path.toUpperCase(),
    `${path}/`,
    `/${first}//${second}${tail}`,
    `/${path}`,
    `${path.replace(/\/([^/]+)$/, "//$1")}`,
    `/${first}%2F${second}${tail}`,
    `/${first}%2f${second}${tail}`,
    `/${escapedFirst}/${second}${tail}`,
    `/${first}/${second}/%2e%2e/${second}${tail}`,
    `/${first}/${second}/../${second}${tail}`,
    `/${first}/./${second}${tail}`,
    `/${first}/%2E/${second}${tail}`,
    `${path};x=1`,
    `/${first};x/${second}${tail}`,
    `/${first}\\${second}${tail}`,
    `${path}%00`,
    `/${first}/${second}${tail.replace(/([a-z])/, (c) => `%${c.charCodeAt(0).toString(16)}`)}`,
  ];
}

let svc: TestService;
let now = Date.parse("2031-03-04T10:00:00Z");
let orgId: string;
let keyId: string;
let liveKey: string;
const send = (method: string, path: string, headers: Record<string, string> = {}, body?: unknown) =>
  rawRequest(svc.baseUrl, method, path, headers, body);
const asOperator = () => ({ Authorization: `Bearer ${svc.adminToken}` });
/** a fresh minute for the per-address limiters, so each test starts from zero failed attempts */
const nextMinute = () => (now += 61_000);

beforeAll(async () => {
  svc = await startTestService({ dataRoot: await sliceDataRoot(10), clock: () => new Date(now) });
  const org = await send("POST", "/admin/v1/organizations", asOperator(), { name: "Attack surface lab" });
  expect(org.status).toBe(201);
  orgId = org.body.id;
  expect(
    (await send("POST", `/admin/v1/organizations/${orgId}/credits`, asOperator(), { amount: "5.00" })).status,
  ).toBe(200);
  const key = await send("POST", `/admin/v1/organizations/${orgId}/keys`, asOperator(), { mode: "live" });
  expect(key.status).toBe(201);
  keyId = key.body.id;
  liveKey = key.body.key;
}, 600_000);

afterAll(async () => {
  await svc?.close();
});

/**
 * Every operator route, read from the declarations its router is built from (a GET is served to HEAD too): a new route
 * is covered without editing this.
 */
function operatorRoutes(): { method: string; path: string }[] {
  return ADMIN_ROUTES.flatMap((route) =>
    (route.method === "get" ? ["HEAD", "GET"] : [route.method.toUpperCase()]).map((method) => ({
      method,
      path: route.path.replace(":orgId", orgId).replace(":keyId", keyId).replace(":collection", "scifact"),
    })),
  );
}

/** Every signed-in dashboard route, read from its router like the operator's. */
function signedInDashboardRoutes(): { method: string; path: string }[] {
  const deps = {} as DashboardRouteDeps;
  const declared = [...dashboardMemberRoutes(deps), ...dashboardOperatorRoutes(deps)];
  return declared.map((route) => ({
    method: route.method.toUpperCase(),
    path: route.path.replace(":keyId", keyId).replace(":sessionId", "f".repeat(64)),
  }));
}

const API_ROUTES = [
  { method: "GET", path: "/api/v1/search/collections" },
  {
    method: "POST",
    path: "/api/v1/search/query",
    body: { collection: "scifact", query: "vitamin D and bone fractures" },
  },
  { method: "POST", path: "/api/v1/search/scifact", body: { query: "vitamin D and bone fractures" } },
  {
    method: "POST",
    path: "/api/v1/search/preview",
    body: { collection: "scifact", query: "vitamin D and bone fractures" },
  },
  { method: "POST", path: "/api/v1/search/unlock", body: { queryId: "q_x", resultIds: ["r_1"] } },
  { method: "GET", path: "/api/v1/search/results/q_123" },
  { method: "GET", path: "/api/v1/search/quota" },
  { method: "POST", path: "/api/v1/tools/demo/echo", body: {} },
  { method: "GET", path: "/api/v1/alerts" },
  { method: "POST", path: "/api/v1/alerts", body: { query: "vitamin D and bone fractures", collection: "scifact" } },
  { method: "POST", path: "/api/v1/alerts/al_x/pause", body: {} },
  { method: "GET", path: "/api/v1/webhooks" },
  { method: "POST", path: "/api/v1/webhooks/we_x/test", body: {} },
];

/** A refusal that no handler wrote: 401 from the authentication, or 404 because the spelling is no route. */
function expectRefusedBeforeHandler(res: RawResponse, method: string, path: string) {
  expect([401, 404], `${method} ${path} -> ${res.status} ${JSON.stringify(res.body)}`).toContain(res.status);
  if (method === "HEAD") return;
  expect(res.body?.error?.requestId, `${method} ${path}`).toBe(res.headers["x-request-id"]);
  if (res.status === 404)
    expect(res.body.error).toMatchObject({ code: "NOT_FOUND", message: expect.stringMatching(/^no route for /) });
  else expect(res.body.error.code).toBe("UNAUTHORIZED");
}

describe("every spelling of every route, without credentials", () => {
  it("the operator API answers 401 or 404 to each route in any spelling, without or with a wrong token", async () => {
    const routes = operatorRoutes();
    expect(routes.length).toBeGreaterThanOrEqual(25);
    for (const { method, path } of routes) {
      nextMinute();
      const canonical = await send(method, path);
      expect(canonical.status, `${method} ${path}`).toBe(401);
      expect((await send(method, path, { Authorization: "Bearer not-the-operator-token-at-all" })).status).toBe(401);
      for (const spelling of spellingsOf(path)) {
        expectRefusedBeforeHandler(await send(method, spelling), method, spelling);
        // a body a handler would accept
        expectRefusedBeforeHandler(
          await send(method, spelling, {}, { name: "Bypass lab", amount: "1000.00", mode: "live" }),
          method,
          spelling,
        );
      }
    }
    // nothing was made, credited or revoked
    expect((await send("GET", `/admin/v1/organizations/${orgId}/balance`, asOperator())).body.balance).toBe("5.000000");
    expect((await send("GET", `/admin/v1/keys/${keyId}`, asOperator())).body.revoked).toBe(false);
  });

  it("with the operator token the canonical spelling works", async () => {
    nextMinute();
    expect((await send("GET", "/admin/v1/reconciliation", asOperator())).status).toBe(200);
    expect((await send("POST", "/admin/v1/organizations", asOperator(), { name: "Second lab" })).status).toBe(201);
    expect((await send("GET", "/ADMIN/v1/reconciliation", asOperator())).status).toBe(404);
  });

  it("every signed-in dashboard route needs a session in every spelling: 401 or 404, never a handler", async () => {
    const routes = signedInDashboardRoutes();
    expect(routes.length).toBeGreaterThanOrEqual(16);
    for (const { method, path } of routes) {
      nextMinute();
      expect((await send(method, path)).status, `${method} ${path}`).toBe(401);
      // an API key or a forged cookie is no session
      expect((await send(method, path, { Authorization: `Bearer ${liveKey}` })).status, `${method} ${path}`).toBe(401);
      expect((await send(method, path, { Cookie: `ls_session=${"A".repeat(43)}` })).status, `${method} ${path}`).toBe(
        401,
      );
      if (path.split("/").length < 3) continue; // /dashboard has no second segment to respell
      for (const spelling of spellingsOf(path))
        expectRefusedBeforeHandler(await send(method, spelling, {}, {}), method, spelling);
    }
    expect((await send("GET", `/admin/v1/keys/${keyId}`, asOperator())).body.revoked).toBe(false);
  });

  it("every API route needs a key in every spelling: 401 or 404, never a handler", async () => {
    for (const { method, path, body } of API_ROUTES) {
      expect((await send(method, path, {}, body)).status, `${method} ${path}`).toBe(401);
      for (const spelling of spellingsOf(path))
        expectRefusedBeforeHandler(await send(method, spelling, {}, body), method, spelling);
    }
    // and the key opens the canonical spelling
    expect((await send("GET", "/api/v1/search/quota", { Authorization: `Bearer ${liveKey}` })).status).toBe(200);
  });
});

describe("one error envelope for what no handler answers", () => {
  it("405 METHOD_NOT_ALLOWED with Allow for PUT/PATCH/DELETE on API routes", async () => {
    for (const method of ["PUT", "PATCH", "DELETE"]) {
      const res = await send(method, "/api/v1/search/query", { Authorization: `Bearer ${liveKey}` });
      expect(res.status).toBe(405);
      expect(res.headers.allow).toBe("POST");
      expect(res.headers["content-type"]).toMatch(/^application\/json/);
      expect(res.body).toEqual({
        error: {
          code: "METHOD_NOT_ALLOWED",
          message: expect.stringContaining("POST"),
          requestId: res.headers["x-request-id"],
        },
      });
    }
  });

  it("a body no route would read is never parsed: 404 and 405 before any 422, without credentials too", async () => {
    const form = { "Content-Type": "application/x-www-form-urlencoded" };
    const ab = Buffer.from("a=b");
    expect((await send("POST", "/admin/v1/nonexistent", form, ab)).status).toBe(404);
    expect((await send("POST", "/dashboard/nonexistent", form, Buffer.alloc(1_500_000, "x"))).status).toBe(404);
    const put = await send("PUT", "/api/v1/search/query", { ...form, Authorization: `Bearer ${liveKey}` }, ab);
    expect([put.status, put.headers.allow]).toEqual([405, "POST"]);
    // a routed one is read after its authentication: 401 without a key, 422 with one
    expect((await send("POST", "/api/v1/search/query", form, ab)).status).toBe(401);
    const read = await send("POST", "/api/v1/search/query", { ...form, Authorization: `Bearer ${liveKey}` }, ab);
    expect([read.status, read.body.error.message]).toEqual([422, expect.stringContaining("not valid JSON")]);
  });

  it("a method the service does not know is 405 with Allow on a routed path, 404 elsewhere, never a 5xx", async () => {
    for (const [method, path, allow] of [
      ["PROPFIND", "/api/v1/search/query", "POST"],
      ["TRACE", "/healthz", "HEAD, GET"],
      ["LOCK", "/admin/v1/verify", "HEAD, GET"],
    ] as const) {
      const res = await send(method, path);
      expect(res.status, `${method} ${path}`).toBe(405);
      expect(res.headers.allow).toBe(allow);
      expect(res.body).toEqual({
        error: {
          code: "METHOD_NOT_ALLOWED",
          message: expect.stringContaining(method),
          requestId: res.headers["x-request-id"],
        },
      });
    }
    const nowhere = await send("PROPFIND", "/nowhere");
    expect(nowhere.status).toBe(404);
    expect(nowhere.body.error.code).toBe("NOT_FOUND");
  });

  it("an Expect but 100-continue is 417, CONNECT 405, both in the envelope with a request id and nosniff", async () => {
    for (const path of ["/api/v1/search/query", "/admin/v1/verify", "/healthz"]) {
      const res = await send(
        "POST",
        path,
        { Authorization: `Bearer ${liveKey}`, Expect: "200-ok" },
        { collection: "scifact", query: "x" },
      );
      expect(res.status, path).toBe(417);
      expect(res.headers["x-content-type-options"]).toBe("nosniff");
      expect(res.body).toEqual({
        error: {
          code: "VALIDATION_ERROR",
          message: expect.stringContaining("100-continue"),
          requestId: res.headers["x-request-id"],
        },
      });
    }
    const { hostname, port } = new URL(svc.baseUrl);
    const answer = await new Promise<string>((resolve, reject) => {
      const socket = connect(Number(port), hostname, () =>
        socket.write(`CONNECT ${hostname}:${port} HTTP/1.1\r\nHost: ${hostname}:${port}\r\n\r\n`),
      );
      let data = "";
      socket.on("data", (d) => (data += d.toString("latin1")));
      socket.on("end", () => resolve(data));
      socket.on("error", reject);
    });
    const [head, body] = answer.split("\r\n\r\n");
    expect(head).toMatch(/^HTTP\/1\.1 405 /);
    expect(head).toMatch(/x-content-type-options: nosniff/i);
    expect(JSON.parse(body!).error).toMatchObject({
      code: "METHOD_NOT_ALLOWED",
      requestId: /x-request-id: (\S+)/i.exec(head!)?.[1],
    });
  });

  it("a malformed percent-encoding is 400 VALIDATION_ERROR in the envelope, not a 500", async () => {
    for (const path of ["/api/v1/search/%", "/admin/v1/organizations/%zz", "/api/v1/search/results/%E0%A4%A"]) {
      const res = await send("GET", path);
      expect(res.status, path).toBe(400);
      expect(res.body).toEqual({
        error: { code: "VALIDATION_ERROR", message: expect.any(String), requestId: res.headers["x-request-id"] },
      });
    }
  });

  it("HEAD and OPTIONS: HEAD follows GET; OPTIONS lists the methods, granting nothing cross-origin", async () => {
    expect((await send("HEAD", "/healthz")).status).toBe(200);
    const options = await send("OPTIONS", "/api/v1/search/query", {
      Origin: "https://evil.example",
      "Access-Control-Request-Method": "POST",
    });
    expect(options.headers.allow).toBe("POST");
    expect(Object.keys(options.headers).filter((h) => h.startsWith("access-control-"))).toEqual([]);
  });
});

describe("the per-address limiter on the operator API", () => {
  it("after 20 failed attempts in a minute the 21st is 429 in the bare form; the right token still works", async () => {
    nextMinute();
    for (let i = 0; i < 20; i++)
      expect(
        (await send("GET", "/admin/v1/verify", { Authorization: `Bearer guess-${i}-0123456789abcdef` })).status,
      ).toBe(401);
    const refused = await send("GET", "/admin/v1/verify", { Authorization: "Bearer guess-21-0123456789abcdef" });
    expect(refused.status).toBe(429);
    expect(refused.body).toEqual({ error: expect.any(String) });
    expect(Number(refused.headers["retry-after"])).toBeGreaterThan(0);
    expect(Object.keys(refused.headers).filter((h) => h.startsWith("x-ratelimit-"))).toEqual([]);
    expect((await send("POST", "/admin/v1/organizations", {}, { name: "x" })).status).toBe(429);
    // the operator is not locked out
    expect((await send("GET", "/admin/v1/verify", asOperator())).status).toBe(200);
    expect((await send("GET", `/admin/v1/organizations/${orgId}/balance`, asOperator())).status).toBe(200);
    // the window passes
    nextMinute();
    expect((await send("GET", "/admin/v1/verify", { Authorization: "Bearer guess-22-0123456789abcdef" })).status).toBe(
      401,
    );
  });

  it("X-Forwarded-For is untrusted without TRUST_PROXY: a new claimed address per try evades no limit", async () => {
    nextMinute();
    for (let i = 0; i < 20; i++) {
      const res = await send("GET", "/admin/v1/verify", {
        Authorization: "Bearer wrong-0123456789abcdef",
        "X-Forwarded-For": `198.51.100.${i}`,
      });
      expect(res.status).toBe(401);
    }
    const res = await send("GET", "/admin/v1/verify", {
      Authorization: "Bearer wrong-0123456789abcdef",
      "X-Forwarded-For": "198.51.100.99",
    });
    expect(res.status).toBe(429);
  });
});

describe("headers", () => {
  it("X-Content-Type-Options: nosniff on every response, errors and 404s included", async () => {
    nextMinute();
    const responses = [
      await send("GET", "/healthz"),
      await send("GET", "/nowhere"),
      await send("GET", "/ADMIN/v1/verify"),
      await send("GET", "/admin/v1/verify"),
      await send("GET", "/admin/v1/verify", asOperator()),
      await send("GET", "/api/v1/search/quota", { Authorization: `Bearer ${liveKey}` }),
      await send("GET", "/api/v1/search/quota", { Authorization: "Bearer sk_live_nope" }),
      await send("DELETE", "/api/v1/search/query"),
      await send("TRACE", "/healthz"),
      await send("GET", "/api/v1/search/%"),
    ];
    for (const res of responses) expect(res.headers["x-content-type-options"], String(res.status)).toBe("nosniff");
  });

  it("Cache-Control: no-store on authenticated responses (API key and operator), refusals included", async () => {
    nextMinute();
    for (const res of [
      await send("GET", "/api/v1/search/quota", { Authorization: `Bearer ${liveKey}` }),
      await send("GET", "/api/v1/search/quota", { "X-API-Key": liveKey }),
      await send("POST", "/api/v1/search/query", {}, { collection: "scifact", query: "x" }),
      await send("GET", "/admin/v1/verify", asOperator()),
      await send("GET", `/admin/v1/organizations/${orgId}/ledger.csv`, asOperator()),
      await send("GET", "/admin/v1/verify"),
      await send("OPTIONS", "/api/v1/search/query"),
      await send("OPTIONS", "/admin/v1/organizations"),
      // a method the route does not serve: 405, not cached either
      await send("DELETE", "/api/v1/search/query", { Authorization: `Bearer ${liveKey}` }),
      await send("GET", "/mcp", { Authorization: `Bearer ${liveKey}` }),
    ]) {
      expect(res.headers["cache-control"], String(res.status)).toBe("no-store");
    }
  });

  it("CORS is off by default: no Access-Control-* headers, even for a request with an Origin", async () => {
    const res = await send("GET", "/api/v1/search/quota", {
      Authorization: `Bearer ${liveKey}`,
      Origin: "https://app.example.org",
    });
    expect(res.status).toBe(200);
    expect(Object.keys(res.headers).filter((h) => h.startsWith("access-control-"))).toEqual([]);
  });
});

describe("one key per request", () => {
  /** a request with header lines exactly as listed, repeats included */
  const sendLines = (method: string, path: string, lines: [string, string][], body?: unknown) => {
    const headers: Record<string, string | string[]> = {};
    for (const [name, value] of lines)
      headers[name] = headers[name] === undefined ? value : [...[headers[name]].flat(), value];
    return send(method, path, headers as Record<string, string>, body);
  };
  const SEARCH = { collection: "scifact", query: "vitamin D and bone fractures", limit: 1 };

  it("two different keys in Authorization / X-API-Key: 401 INVALID_API_KEY naming the conflict, unbilled", async () => {
    nextMinute();
    const other = await send("POST", "/admin/v1/organizations", asOperator(), { name: "Other lab" });
    const otherKey = (
      await send("POST", `/admin/v1/organizations/${other.body.id}/keys`, asOperator(), { mode: "live" })
    ).body.key as string;
    const revoked = await send("POST", `/admin/v1/organizations/${orgId}/keys`, asOperator(), { mode: "live" });
    expect((await send("POST", `/admin/v1/keys/${revoked.body.id}/revoke`, asOperator())).status).toBe(200);
    const before = (await send("GET", `/admin/v1/organizations/${orgId}/balance`, asOperator())).body.balance;
    const conflicts: [string, [string, string][]][] = [
      [
        "Bearer + revoked X-API-Key",
        [
          ["Authorization", `Bearer ${liveKey}`],
          ["X-API-Key", revoked.body.key],
        ],
      ],
      [
        "Bearer + another organization's X-API-Key",
        [
          ["Authorization", `Bearer ${liveKey}`],
          ["X-API-Key", otherKey],
        ],
      ],
      [
        "X-API-Key + Bearer of another organization",
        [
          ["X-API-Key", liveKey],
          ["Authorization", `Bearer ${otherKey}`],
        ],
      ],
      [
        "two Authorization headers",
        [
          ["Authorization", `Bearer ${liveKey}`],
          ["Authorization", `Bearer ${otherKey}`],
        ],
      ],
      [
        "two X-API-Key headers",
        [
          ["X-API-Key", liveKey],
          ["X-API-Key", otherKey],
        ],
      ],
      [
        "a bare Authorization key + X-API-Key",
        [
          ["Authorization", liveKey],
          ["X-API-Key", otherKey],
        ],
      ],
    ];
    for (const [name, lines] of conflicts) {
      for (const [method, path, body] of [
        ["POST", "/api/v1/search/query", SEARCH],
        ["POST", "/mcp", { jsonrpc: "2.0", id: 1, method: "tools/list" }],
      ] as const) {
        const res = await sendLines(method, path, lines, body);
        expect([res.status, res.body?.error?.code], `${name}: ${method} ${path}`).toEqual([401, "INVALID_API_KEY"]);
        expect(res.body.error.message, name).toMatch(/different API keys/);
        expect(res.body.error.message, name).not.toContain(liveKey);
      }
    }
    expect((await send("GET", `/admin/v1/organizations/${orgId}/balance`, asOperator())).body.balance).toBe(before);
  });

  it("the same key twice is that key; Bearer in any case, extra whitespace, and a bare key are accepted", async () => {
    for (const lines of [
      [
        ["Authorization", `Bearer ${liveKey}`],
        ["X-API-Key", liveKey],
      ],
      [
        ["Authorization", `Bearer ${liveKey}`],
        ["Authorization", `bearer ${liveKey}`],
      ],
      [["Authorization", `  BEARER \t ${liveKey}  `]],
      [["Authorization", liveKey]],
      [["X-API-Key", `  ${liveKey} `]],
      // a proxy's credentials in another scheme beside the key
      [
        ["Authorization", "Basic dXNlcjpwYXNz"],
        ["X-API-Key", liveKey],
      ],
    ] as [string, string][][]) {
      const res = await sendLines("GET", "/api/v1/search/quota", lines);
      expect(res.status, JSON.stringify(lines.map(([n]) => n))).toBe(200);
    }
  });
});
