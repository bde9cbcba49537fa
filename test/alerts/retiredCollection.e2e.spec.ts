// Alerts follow their collections, on the running service (Temporal, PGlite, the embedded engine, a loopback
// receiver): retiring a collection pauses the alerts that search it, with the reason on the alert, a signed
// `alert.paused` webhook (verified with the standardwebhooks library) and a notice on the dashboard's alerts page; the
// alert cannot be resumed, and every search of the retired collection (query, preview, assisted, a new alert) answers
// 404 saying it was retired and when. The pause is an event: replay equals the live projections.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Webhook } from "standardwebhooks";
import {
  httpClient,
  operatorSteps,
  sliceDataRoot,
  startTestService,
  untilIngested,
  type TestService,
} from "../support/testService.js";
import { OPENALEX_SLICE, plainCollection, writeCollectionsConfig, writeJsonl } from "../support/operatorContent.js";
import { startWebhookReceiver, type WebhookReceiver } from "../support/webhookReceiver.js";
import { dashboardClient } from "../dashboard/dashboardClient.js";

const NOTES = [
  { id: "reef-1", title: "Coral bleaching after heatwaves", text: "Corals bleached across the reef after heatwaves." },
  {
    id: "reef-2",
    title: "Reef recovery after bleaching",
    text: "Reefs recovered within a decade where fishing ended.",
  },
];

describe("alerts on a collection that is retired", () => {
  let svc: TestService;
  let call: ReturnType<typeof httpClient>;
  let receiver: WebhookReceiver;
  let admin: string;
  let key: string;
  let orgId: string;
  let endpoint: { id: string; secret: string };
  let alertId: string;
  let otherAlertId: string;
  let retiredAt: string;
  let dataRoot: string;

  beforeAll(async () => {
    receiver = await startWebhookReceiver();
    dataRoot = await sliceDataRoot(10);
    writeJsonl(dataRoot, "reef.jsonl", NOTES);
    svc = await startTestService({
      dataRoot,
      collectionsConfig: writeCollectionsConfig([OPENALEX_SLICE]),
      env: { WEBHOOK_ALLOW_PRIVATE_URLS: "1", WEBHOOK_RETRY_SECONDS: "1,1" },
    });
    call = httpClient(svc.baseUrl);
    admin = svc.adminToken;
    const defined = await call("POST", "/admin/v1/collections", {
      admin,
      body: plainCollection("reef-notes", "jsonl", ["reef.jsonl"], { retrieval: "sparse" }),
    });
    expect(defined.status, JSON.stringify(defined.body)).toBe(201);
    expect(await untilIngested(call, admin, defined.body.ingestionId)).toMatchObject({ state: "completed" });
    ({ orgId, key } = await operatorSteps(call, admin).customer({ credits: "10.00" }));
    // subscribed to alert.matched only: it is told of the pause all the same
    const registered = await call("POST", "/api/v1/webhooks", {
      key,
      body: { url: receiver.url("/alerts"), events: ["alert.matched"] },
    });
    expect(registered.status, JSON.stringify(registered.body)).toBe(201);
    endpoint = registered.body;
    const created = await call("POST", "/api/v1/alerts", {
      key,
      body: { query: "coral reefs", collection: "reef-notes" },
    });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    expect(created.body).toMatchObject({ status: "active", pausedReason: null });
    alertId = created.body.id;
    const other = await call("POST", "/api/v1/alerts", {
      key,
      body: { query: "hair cortisol", collection: "openalex-synergy", schedule: "weekly" },
    });
    expect(other.status, JSON.stringify(other.body)).toBe(201);
    otherAlertId = other.body.id;
  }, 600_000);

  afterAll(async () => {
    await svc?.close();
    await receiver?.close();
  });

  it("pauses the alerts that search a retired collection, with the reason, and only those", async () => {
    const retired = await call("DELETE", "/admin/v1/collections/reef-notes", { admin });
    expect(retired.status, JSON.stringify(retired.body)).toBe(200);
    const alert = (await call("GET", `/api/v1/alerts/${alertId}`, { key })).body;
    expect(alert).toMatchObject({
      status: "paused",
      pausedReason: { code: "COLLECTION_RETIRED", collection: "reef-notes", retiredAt: expect.any(String) },
    });
    retiredAt = alert.pausedReason.retiredAt;
    expect(Date.now() - Date.parse(retiredAt)).toBeLessThan(60_000);
    expect((await call("GET", `/api/v1/alerts/${otherAlertId}`, { key })).body).toMatchObject({
      status: "active",
      pausedReason: null,
    });
    // retiring again changes nothing and tells nobody twice
    expect((await call("DELETE", "/admin/v1/collections/reef-notes", { admin })).status).not.toBe(500);
  });

  it("tells the owner with a signed alert.paused webhook naming the collection and when it was retired", async () => {
    const [got] = await receiver.until("/alerts", 1);
    const payload = new Webhook(endpoint.secret).verify(got!.body, {
      "webhook-id": String(got!.headers["webhook-id"]),
      "webhook-timestamp": String(got!.headers["webhook-timestamp"]),
      "webhook-signature": String(got!.headers["webhook-signature"]),
    }) as { type: string; data: Record<string, unknown> };
    expect(payload.type).toBe("alert.paused");
    expect(payload.data).toMatchObject({
      alertId,
      query: "coral reefs",
      collections: ["reef-notes"],
      reason: { code: "COLLECTION_RETIRED", collection: "reef-notes", retiredAt },
      message: expect.stringContaining("reef-notes"),
    });
    await new Promise((r) => setTimeout(r, 1500));
    expect(receiver.on("/alerts")).toHaveLength(1);
  });

  it("refuses to resume it, saying why and what to do", async () => {
    const res = await call("POST", `/api/v1/alerts/${alertId}/resume`, { key });
    expect(res.status).toBe(404);
    expect(res.body.error).toMatchObject({
      code: "COLLECTION_NOT_FOUND",
      message: expect.stringMatching(/reef-notes.*retired.*Delete it/),
    });
    expect((await call("GET", `/api/v1/alerts/${alertId}`, { key })).body.status).toBe("paused");
  });

  it("answers every search of the retired collection 404, saying it was retired and when", async () => {
    for (const [path, body] of [
      ["/api/v1/search/query", { collection: "reef-notes", query: "coral reefs" }],
      ["/api/v1/search/preview", { collection: "reef-notes", query: "coral reefs" }],
      ["/api/v1/search/assisted", { collection: "reef-notes", query: "coral reefs" }],
      ["/api/v1/alerts", { collection: "reef-notes", query: "coral reefs" }],
    ] as const) {
      const res = await call("POST", path, { key, body });
      expect(res.status, `${path} ${JSON.stringify(res.body)}`).toBe(404);
      expect(res.body.error.code, path).toBe("COLLECTION_NOT_FOUND");
      expect(res.body.error.message, path).toContain(`"reef-notes" was retired on ${retiredAt}`);
      expect(res.body.error.details, path).toMatchObject({ collection: "reef-notes", retired: true, retiredAt });
    }
    // a name never defined still says it does not exist
    const unknown = await call("POST", "/api/v1/search/query", {
      key,
      body: { collection: "nowhere", query: "coral reefs" },
    });
    expect(unknown.body.error.message).toContain("does not exist");
  });

  it("tells another organization, a scoped key, a sandbox key and no key nothing more; changes nothing", async () => {
    const ops = operatorSteps(call, admin);
    const other = await ops.customer({ credits: "1.00" });
    // another organization's key: the alert is not found, whatever its collection; it stays paused
    for (const action of ["resume", "pause"]) {
      const res = await call("POST", `/api/v1/alerts/${alertId}/${action}`, { key: other.key });
      expect([res.status, res.body.error?.code], action).toEqual([404, "NOT_FOUND"]);
      expect(JSON.stringify(res.body), action).not.toMatch(/reef-notes|retired/);
    }
    expect((await call("GET", `/api/v1/alerts/${alertId}`, { key })).body).toMatchObject({
      status: "paused",
      pausedReason: { collection: "reef-notes", retiredAt },
    });
    // a key scoped to one collection is offered that one only, not another it cannot reach; a sandbox key is
    // answered as a live one
    writeJsonl(dataRoot, "kelp.jsonl", [{ id: "kelp-1", title: "Kelp", text: "Kelp forests recover slowly." }]);
    const kelp = await call("POST", "/admin/v1/collections", {
      admin,
      body: plainCollection("kelp-notes", "jsonl", ["kelp.jsonl"], { retrieval: "sparse" }),
    });
    expect(await untilIngested(call, admin, kelp.body.ingestionId)).toMatchObject({ state: "completed" });
    const scoped = await ops.customer({ credits: "1.00", collections: ["openalex-synergy"] });
    const sandbox = await ops.newKey(other.orgId, { mode: "test" });
    for (const k of [scoped.key, sandbox.key]) {
      const res = await call("POST", "/api/v1/search/query", {
        key: k,
        body: { collection: "reef-notes", query: "reef" },
      });
      expect([res.status, res.body.error?.code]).toEqual([404, "COLLECTION_NOT_FOUND"]);
      expect(res.body.error.details).toEqual({ collection: "reef-notes", retired: true, retiredAt });
    }
    const offered = await call("POST", "/api/v1/search/query", {
      key: scoped.key,
      body: { collection: "reef-notes", query: "reef" },
    });
    expect(offered.body.error.message).toContain('search one of "openalex-synergy" instead');
    expect(offered.body.error.message).not.toContain("kelp-notes");
    const anonymous = await call("POST", "/api/v1/search/query", { body: { collection: "reef-notes", query: "reef" } });
    expect([anonymous.status, anonymous.body.error?.code]).toEqual([401, "UNAUTHORIZED"]);
    expect(JSON.stringify(anonymous.body)).not.toContain("retired");
  });

  it("shows the pause on the dashboard's alerts page, without a resume button", async () => {
    const invite = await call("POST", `/admin/v1/organizations/${orgId}/invites`, {
      admin,
      body: { email: "owner@reef.example.org", role: "owner" },
    });
    const browser = dashboardClient(svc.baseUrl, { browser: true });
    await browser.send("POST", new URL(invite.body.inviteUrl).pathname, {
      json: { password: "a long enough password" },
    });
    for (const page of ["/dashboard/alerts", `/dashboard/alerts/${alertId}`]) {
      const res = await browser.send("GET", page);
      expect(res.status).toBe(200);
      expect(res.text).toContain(`data-paused-alert="${alertId}"`);
      expect(res.text).toContain(`collection &quot;reef-notes&quot; was retired on ${retiredAt}`);
      expect(res.text).not.toContain(`/dashboard/alerts/${alertId}/resume`);
    }
  });

  it("replay rebuilds the paused alert, with its reason, as the live projection holds it", async () => {
    const report = await call("POST", "/admin/v1/replay", { admin });
    expect(report.status, JSON.stringify(report.body)).toBe(200);
    expect(report.body.equal).toBe(true);
  });
});
