// A first start that listens while it ingests, as `npm start` does: with scifact held back (and clinical-digest queued
// behind it), the ready collections answer, every search route naming scifact (assisted search included) answers 503 in
// the error envelope without taking budget or money, /readyz and the collections list say which collections are still
// ingesting, and both answer once they are built.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { httpClient, operatorSteps, startTestService, type TestService } from "../support/testService.js";

let svc: TestService;
let call: ReturnType<typeof httpClient>;
let steps: ReturnType<typeof operatorSteps>;
let releaseScifact: () => void = () => undefined;
const held = new Promise<void>((resolve) => (releaseScifact = resolve));
const buildOrder: string[] = [];
// one fixed minute: the per-minute budget below must not refill while the test runs
const now = new Date("2026-05-10T20:00:15Z");

async function readyz() {
  return call("GET", "/readyz");
}

async function waitFor(what: string, ok: () => Promise<boolean>, timeoutMs = 240_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await ok())) {
    if (Date.now() > deadline)
      throw new Error(`timed out waiting for ${what}: ${JSON.stringify((await readyz()).body)}`);
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

beforeAll(async () => {
  svc = await startTestService({
    clock: () => now,
    ingestInBackground: {
      beforeCollection: async (collection) => {
        buildOrder.push(collection);
        if (collection === "scifact") await held;
      },
    },
  });
  call = httpClient(svc.baseUrl);
  steps = operatorSteps(call, svc.adminToken);
  await waitFor(
    "the collections without vectors",
    async () => (await readyz()).body.details.collections.ready.length === 2,
  );
}, 600_000);

afterAll(async () => {
  releaseScifact();
  await svc?.close();
});

const SCIFACT_QUERY = { collection: "scifact", query: "vitamin D supplementation and fracture risk", limit: 3 };
/** A filter the spec rejects, on collections still ingesting: refused identically before and after they are ready. */
const REJECTED_FILTER = { field: "doc_id", eq: "x" };
const REJECTED_FILTER_REQUESTS = [
  {
    path: "/api/v1/search/query",
    body: { collection: "biomedical", query: SCIFACT_QUERY.query, filters: REJECTED_FILTER },
  },
  { path: "/api/v1/search/scifact", body: { query: SCIFACT_QUERY.query, filters: REJECTED_FILTER } },
  { path: "/api/v1/search/preview", body: { ...SCIFACT_QUERY, filters: REJECTED_FILTER } },
  { path: "/api/v1/search/assisted", body: { ...SCIFACT_QUERY, filters: REJECTED_FILTER } },
];
const rejectedWhileIngesting: { status: number; code: string; message: string }[] = [];

describe("while scifact is still ingesting", () => {
  it("builds the collections without vectors first, then the others in catalogue order", () => {
    expect(buildOrder).toEqual(["openalex-synergy", "openalex-open-access", "scifact"]);
  });

  it("is ready (200) and /readyz lists the ready and the ingesting collections beside searchKnn", async () => {
    const ready = await readyz();
    expect(ready.status).toBe(200);
    expect(ready.body).toEqual({
      status: "ready",
      checks: { eventStore: "up", temporal: "up", search: "up" },
      details: {
        searchKnn: "exact",
        collections: {
          ready: ["openalex-synergy", "openalex-open-access"],
          ingesting: ["scifact", "clinical-digest"],
          failed: [],
        },
      },
    });
  });

  it("answers 503 on each search route naming scifact, alone or in a meta-collection, taking nothing", async () => {
    const org = await steps.newOrg({ limits: { perMinute: 1 } }, "5.00");
    const { key } = await steps.newKey(org.id);
    const refused = [
      await call("POST", "/api/v1/search/query", { key, body: SCIFACT_QUERY }),
      await call("POST", "/api/v1/search/scifact", { key, body: { query: SCIFACT_QUERY.query, limit: 3 } }),
      await call("POST", "/api/v1/search/preview", { key, body: SCIFACT_QUERY }),
      await call("POST", "/api/v1/search/query", {
        key,
        body: { collections: ["openalex-synergy", "biomedical"], query: SCIFACT_QUERY.query, limit: 3 },
      }),
      // a catalogue question is refused the same way: it would describe an index not built yet
      await call("POST", "/api/v1/search/query", {
        key,
        body: { collection: "scifact", query: "which journals do you have" },
      }),
      await call("GET", "/api/v1/search/collections/scifact/journals", { key }),
      // assisted search passes the same gate before it starts a workflow
      await call("POST", "/api/v1/search/assisted", { key, body: SCIFACT_QUERY }),
    ];
    for (const res of refused) {
      expect(res.status).toBe(503);
      expect(res.body.error).toMatchObject({ code: "SERVICE_UNAVAILABLE", requestId: res.headers.get("x-request-id") });
      expect(res.body.error.details.collections[0]).toBe("scifact");
      expect(res.body.error.message).toMatch(/^collection "scifact" is still being ingested.*GET \/readyz/);
      expect(res.headers.get("retry-after")).toBe("30");
      expect(res.headers.get("x-query-cost")).toBeNull();
    }
    // the meta-collection names every member still ingesting
    expect(refused[3]!.body.error.details.collections).toEqual(["scifact", "clinical-digest"]);
    const queued = await call("POST", "/api/v1/search/query", {
      key,
      body: { ...SCIFACT_QUERY, collection: "clinical-digest" },
    });
    expect([queued.status, queued.body.error.message]).toEqual([
      503,
      expect.stringMatching(/^collection "clinical-digest" is still being ingested/),
    ]);
    expect(await steps.balanceOf(org.id)).toBe("5.000000");
    expect((await call("GET", "/api/v1/search/quota", { key })).body.dailyUsed).toBe(0);

    // the one slot of this minute is still there for a ready collection
    const ok = await call("POST", "/api/v1/search/query", {
      key,
      body: { collection: "openalex-synergy", query: "muscle relaxants for low back pain", limit: 3 },
    });
    expect(ok.status).toBe(200);
    expect(ok.body.results.length).toBeGreaterThan(0);
    expect((await call("GET", "/api/v1/search/quota", { key })).body.dailyUsed).toBe(1);
    expect(Number(await steps.balanceOf(org.id))).toBeLessThan(5);
  });

  it("refuses an invalid filter with 422 INVALID_FILTER as once ready (the filter is checked first)", async () => {
    const org = await steps.newOrg({}, "5.00");
    const { key } = await steps.newKey(org.id);
    for (const request of REJECTED_FILTER_REQUESTS) {
      const res = await call("POST", request.path, { key, body: request.body });
      expect([res.status, res.body.error?.code], `${request.path} ${JSON.stringify(res.body)}`).toEqual([
        422,
        "INVALID_FILTER",
      ]);
      rejectedWhileIngesting.push({ status: res.status, code: res.body.error.code, message: res.body.error.message });
    }
    expect(await steps.balanceOf(org.id)).toBe("5.000000");
  });

  it("answers 503 to sandbox keys too, so code written against the sandbox meets the same answer", async () => {
    const org = await steps.newOrg();
    const { key } = await steps.newKey(org.id, { mode: "test" });
    const res = await call("POST", "/api/v1/search/query", { key, body: SCIFACT_QUERY });
    expect([res.status, res.body.error.code]).toEqual([503, "SERVICE_UNAVAILABLE"]);
  });

  it("still lists scifact, marked ingesting with the meta-collection that spans it", async () => {
    const org = await steps.newOrg();
    const { key } = await steps.newKey(org.id);
    const listed = await call("GET", "/api/v1/search/collections", { key });
    expect(listed.status).toBe(200);
    const byName = new Map((listed.body.collections as { name: string; status?: string }[]).map((c) => [c.name, c]));
    expect([...byName.keys()]).toEqual([
      "openalex-synergy",
      "openalex-open-access",
      "scifact",
      "clinical-digest",
      "biomedical",
    ]);
    expect(byName.get("scifact")).toMatchObject({ status: "ingesting", documentCount: 0 });
    expect(byName.get("biomedical")?.status).toBe("ingesting");
    expect(byName.get("clinical-digest")?.status).toBe("ingesting");
    for (const name of ["openalex-synergy", "openalex-open-access"])
      expect(byName.get(name)).not.toHaveProperty("status");
  });
});

describe("once scifact and clinical-digest are built", () => {
  it("answers for them, and /readyz and the list show every collection ready", async () => {
    releaseScifact();
    const { reports, failures } = await svc.ingestion!;
    expect(failures).toEqual([]);
    expect(reports.map((r) => r.collection)).toEqual([
      "openalex-synergy",
      "openalex-open-access",
      "scifact",
      "clinical-digest",
    ]);
    expect((await readyz()).body.details.collections).toEqual({
      ready: ["openalex-synergy", "openalex-open-access", "scifact", "clinical-digest"],
      ingesting: [],
      failed: [],
    });

    const org = await steps.newOrg({}, "5.00");
    const { key } = await steps.newKey(org.id);
    for (const collection of ["scifact", "clinical-digest"]) {
      const res = await call("POST", "/api/v1/search/query", { key, body: { ...SCIFACT_QUERY, collection } });
      expect(res.status).toBe(200);
      expect(res.body.results.length).toBeGreaterThan(0);
    }
    const listed = await call("GET", "/api/v1/search/collections", { key });
    for (const entry of listed.body.collections) expect(entry).not.toHaveProperty("status");
    // the filter refused while they ingested is refused identically now
    const rejectedWhenReady = [];
    for (const request of REJECTED_FILTER_REQUESTS) {
      const res = await call("POST", request.path, { key, body: request.body });
      rejectedWhenReady.push({ status: res.status, code: res.body.error?.code, message: res.body.error?.message });
    }
    expect(rejectedWhenReady).toEqual(rejectedWhileIngesting);
    // building two collections with vectors takes minutes on a loaded machine
  }, 600_000);
});
