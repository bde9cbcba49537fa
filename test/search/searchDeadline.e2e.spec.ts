// A stalled search engine on the real service: with the OpenSearch node behind a proxy that takes requests and never
// answers (as a paused node does), a search answers 503 SERVICE_UNAVAILABLE with Retry-After at SEARCH_DEADLINE_MS,
// in the error envelope, with nothing charged and no event appended; once the node answers again, so does search.
import { afterAll, beforeAll, expect, it } from "vitest";
import { requireComponent } from "../setup/components.js";
import { startTcpProxy, type TcpProxy } from "../retrieval/tcpProxy.js";
import { httpClient, operatorSteps, startTestService, type TestService } from "../support/testService.js";

const DEADLINE_MS = 1500;

let proxy: TcpProxy;
let svc: TestService;
let call: ReturnType<typeof httpClient>;

beforeAll(async () => {
  proxy = await startTcpProxy(requireComponent("opensearchUrl"));
  svc = await startTestService({ opensearchUrl: proxy.url, env: { SEARCH_DEADLINE_MS: String(DEADLINE_MS) } });
  call = httpClient(svc.baseUrl);
}, 600_000);

afterAll(async () => {
  proxy?.resume();
  await svc?.close();
  await proxy?.stop();
});

const eventCount = async () =>
  (await svc.runtime.db.query<{ n: number }>("SELECT count(*)::int AS n FROM events"))[0]!.n;

it("answers 503 with Retry-After at the deadline while the engine stalls, charging nothing", async () => {
  const ops = operatorSteps(call, svc.adminToken);
  const { orgId, key } = await ops.customer({ credits: "5.00" });
  const answered = await call("POST", "/api/v1/search/query", {
    key,
    body: { collections: ["scifact"], query: "vitamin D and bone density", limit: 3 },
  });
  expect(answered.status, JSON.stringify(answered.body)).toBe(200);
  const balance = await ops.balanceOf(orgId);
  const events = await eventCount();

  proxy.stall();
  const started = Date.now();
  const stalled = await call("POST", "/api/v1/search/query", {
    key,
    body: { collections: ["scifact"], query: "statins and muscle pain", limit: 3 },
  });
  const waited = Date.now() - started;
  expect(stalled.status, JSON.stringify(stalled.body)).toBe(503);
  expect(stalled.body.error.code).toBe("SERVICE_UNAVAILABLE");
  expect(stalled.body.error.message).toContain(`within ${DEADLINE_MS} ms`);
  expect(Number(stalled.headers.get("retry-after"))).toBeGreaterThanOrEqual(1);
  expect(waited).toBeGreaterThanOrEqual(DEADLINE_MS - 50);
  expect(waited).toBeLessThan(DEADLINE_MS + 3000);
  expect(await ops.balanceOf(orgId)).toBe(balance);
  expect(await eventCount()).toBe(events);

  proxy.resume();
  const again = await call("POST", "/api/v1/search/query", {
    key,
    body: { collections: ["scifact"], query: "statins and muscle pain", limit: 3 },
  });
  expect(again.status, JSON.stringify(again.body)).toBe(200);
});
