// The shell's configurable side on the real service: TRUST_PROXY for the limiter's client address, the operator
// request cap, and CORS granted to configured origins on the API-key routes only.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestService, sliceDataRoot, type TestService } from "../support/testService.js";
import { rawRequest } from "./rawRequest.js";

const ORIGIN = "https://app.example.org";
let svc: TestService;
let now = Date.parse("2031-05-06T08:00:00Z");
let liveKey: string;
const send = (method: string, path: string, headers: Record<string, string> = {}, body?: unknown) =>
  rawRequest(svc.baseUrl, method, path, headers, body);
const asOperator = (from: string) => ({ Authorization: `Bearer ${svc.adminToken}`, "X-Forwarded-For": from });
const guessing = (from: string) => ({ Authorization: "Bearer guess-0123456789abcdef", "X-Forwarded-For": from });
const nextMinute = () => (now += 61_000);
const corsHeaders = (headers: Record<string, unknown>) =>
  Object.keys(headers).filter((h) => h.startsWith("access-control-"));

beforeAll(async () => {
  svc = await startTestService({
    dataRoot: await sliceDataRoot(10),
    clock: () => new Date(now),
    env: { TRUST_PROXY: "1", CORS_ORIGINS: `${ORIGIN}, http://localhost:5173`, ADMIN_REQUESTS_PER_MINUTE: "40" },
  });
  const org = await send("POST", "/admin/v1/organizations", asOperator("192.0.2.1"), { name: "Proxy lab" });
  expect(org.status).toBe(201);
  const key = await send("POST", `/admin/v1/organizations/${org.body.id}/keys`, asOperator("192.0.2.1"), {
    mode: "live",
  });
  expect(key.status).toBe(201);
  liveKey = key.body.key;
}, 600_000);

afterAll(async () => {
  await svc?.close();
});

describe("TRUST_PROXY=1: the limiter counts the address the proxy saw", () => {
  it("limits each forwarded client on its own; the right token still works from a limited one", async () => {
    nextMinute();
    for (let i = 0; i < 20; i++)
      expect((await send("GET", "/admin/v1/verify", guessing("203.0.113.7"))).status).toBe(401);
    const refused = await send("GET", "/admin/v1/verify", guessing("203.0.113.7"));
    expect(refused.status).toBe(429);
    expect(refused.body).toEqual({ error: expect.any(String) });
    expect(refused.headers["retry-after"]).toBeDefined();
    // another client behind the same proxy is not affected
    expect((await send("GET", "/admin/v1/verify", guessing("203.0.113.8"))).status).toBe(401);
    expect((await send("GET", "/admin/v1/verify", asOperator("203.0.113.7"))).status).toBe(200);
  });

  it("takes the hop the trusted proxy appended, not what the client wrote before it", async () => {
    nextMinute();
    for (let i = 0; i < 20; i++) {
      expect((await send("GET", "/admin/v1/verify", guessing(`10.9.8.${i}, 203.0.113.50`))).status).toBe(401);
    }
    expect((await send("GET", "/admin/v1/verify", guessing("10.9.8.99, 203.0.113.50"))).status).toBe(429);
  });

  it("caps all operator requests per address (ADMIN_REQUESTS_PER_MINUTE), the right token included", async () => {
    nextMinute();
    for (let i = 0; i < 40; i++)
      expect((await send("GET", "/admin/v1/verify", asOperator("203.0.113.90"))).status).toBe(200);
    const capped = await send("GET", "/admin/v1/verify", asOperator("203.0.113.90"));
    expect(capped.status).toBe(429);
    expect(capped.body).toEqual({ error: expect.any(String) });
    expect((await send("GET", "/admin/v1/verify", asOperator("203.0.113.91"))).status).toBe(200);
  });
});

describe("CORS_ORIGINS: granted to those origins on the API-key routes only", () => {
  it("answers a preflight from a configured origin for a method the route serves", async () => {
    const res = await send("OPTIONS", "/api/v1/search/query", {
      Origin: ORIGIN,
      "Access-Control-Request-Method": "POST",
      "Access-Control-Request-Headers": "authorization, content-type",
    });
    expect(res.status).toBe(204);
    expect(res.headers["access-control-allow-origin"]).toBe(ORIGIN);
    expect(res.headers["access-control-allow-methods"]).toContain("POST");
    expect(String(res.headers["access-control-allow-headers"]).toLowerCase()).toContain("authorization");
    expect(res.headers["access-control-allow-credentials"]).toBeUndefined();
    expect(res.headers.vary).toContain("Origin");
  });

  it("lets the page read responses, errors included, and the headers it needs", async () => {
    const ok = await send("GET", "/api/v1/search/quota", { Authorization: `Bearer ${liveKey}`, Origin: ORIGIN });
    expect(ok.status).toBe(200);
    expect(ok.headers["access-control-allow-origin"]).toBe(ORIGIN);
    expect(ok.headers["access-control-expose-headers"]).toContain("X-Request-Id");
    const refused = await send(
      "POST",
      "/api/v1/search/query",
      { Origin: "http://localhost:5173" },
      { collection: "scifact", query: "x" },
    );
    expect(refused.status).toBe(401);
    expect(refused.headers["access-control-allow-origin"]).toBe("http://localhost:5173");
  });

  it("grants nothing to other origins, to methods a route does not serve, on operator or health routes", async () => {
    const other = await send("OPTIONS", "/api/v1/search/query", {
      Origin: "https://evil.example",
      "Access-Control-Request-Method": "POST",
    });
    expect(corsHeaders(other.headers)).toEqual([]);
    const otherGet = await send("GET", "/api/v1/search/quota", {
      Authorization: `Bearer ${liveKey}`,
      Origin: "https://evil.example",
    });
    expect(corsHeaders(otherGet.headers)).toEqual([]);
    const wrongMethod = await send("OPTIONS", "/api/v1/search/query", {
      Origin: ORIGIN,
      "Access-Control-Request-Method": "DELETE",
    });
    expect(corsHeaders(wrongMethod.headers)).toEqual([]);
    nextMinute();
    const admin = await send("OPTIONS", "/admin/v1/organizations", {
      Origin: ORIGIN,
      "Access-Control-Request-Method": "POST",
    });
    expect(corsHeaders(admin.headers)).toEqual([]);
    const adminGet = await send("GET", "/admin/v1/verify", { ...asOperator("192.0.2.9"), Origin: ORIGIN });
    expect(adminGet.status).toBe(200);
    expect(corsHeaders(adminGet.headers)).toEqual([]);
    expect(corsHeaders((await send("GET", "/healthz", { Origin: ORIGIN })).headers)).toEqual([]);
  });
});
