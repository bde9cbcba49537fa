// Errors a person can act on, over HTTP against the real service: a misspelled collection (404, 403) or filter field
// (422) names the nearest valid one, INVALID_FILTER keeps its message short with the field lists in
// details.indexedFields, and the spending-cap refusal says what is left of the cap and what the request would cost.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { httpClient, operatorSteps, startTestService, type TestService } from "../support/testService.js";

const QUERY = "vitamin D and bone fractures";

let svc: TestService;
let call: ReturnType<typeof httpClient>;
let ops: ReturnType<typeof operatorSteps>;
let admin: string;

beforeAll(async () => {
  svc = await startTestService();
  call = httpClient(svc.baseUrl);
  admin = svc.adminToken;
  ops = operatorSteps(call, admin);
}, 600_000);

afterAll(async () => {
  await svc?.close();
});

const micros = (decimal: string) => BigInt(decimal.replace(".", ""));
const credits = (m: bigint) => `${m / 1_000_000n}.${(m % 1_000_000n).toString().padStart(6, "0")}`;

describe("did you mean", () => {
  it("names the nearest collection the key can reach on 404 and 403, and nothing when none is near", async () => {
    const orgId = (await ops.newOrg({ name: "Typo lab" }, "5.00")).id;
    const key = (await ops.newKey(orgId)).key;
    const notFound = await call("POST", "/api/v1/search/query", {
      key,
      body: { collection: "scifacts", query: QUERY },
    });
    expect([notFound.status, notFound.body.error.code]).toEqual([404, "COLLECTION_NOT_FOUND"]);
    expect(notFound.body.error.message).toBe(
      'collection "scifacts" does not exist. Did you mean "scifact"? GET /api/v1/search/collections (MCP: ' +
        "list_collections) lists the " +
        "ones you can search",
    );
    const path = await call("POST", "/api/v1/search/clinical-digets", { key, body: { query: QUERY } });
    expect([path.status, path.body.error.message]).toEqual([
      404,
      expect.stringContaining('Did you mean "clinical-digest"?'),
    ]);
    const far = await call("POST", "/api/v1/search/query", { key, body: { collection: "pubmed", query: QUERY } });
    expect([far.status, far.body.error.message]).toEqual([
      404,
      'collection "pubmed" does not exist. GET /api/v1/search/collections (MCP: list_collections) lists the ' +
        "ones you can search",
    ]);

    // a scoped key is pointed at what it can reach, never at what it cannot
    const scoped = (await ops.newKey(orgId, { mode: "live", collections: ["scifact"] })).key;
    const outside = await call("POST", "/api/v1/search/query", {
      key: scoped,
      body: { collection: "scifact-x", query: QUERY },
    });
    expect([outside.status, outside.body.error.message]).toEqual([
      404,
      expect.stringContaining('Did you mean "scifact"?'),
    ]);
    const elsewhere = await call("POST", "/api/v1/search/query", {
      key: scoped,
      body: { collection: "openalex-synergi", query: QUERY },
    });
    expect([elsewhere.status, elsewhere.body.error.message]).toEqual([
      404,
      expect.not.stringContaining("Did you mean"),
    ]);
    const journals = await call("GET", "/api/v1/search/collections/scifcat/journals", { key: scoped });
    expect([journals.status, journals.body.error.code, journals.body.error.message]).toEqual([
      403,
      "NO_COLLECTION_ACCESS",
      expect.stringContaining('Did you mean "scifact"?'),
    ]);
  }, 120_000);

  it("names the nearest filter field, keeps the message short, puts field lists in details.indexedFields", async () => {
    const key = (await ops.newKey((await ops.newOrg({ name: "Filter lab" }, "5.00")).id)).key;
    const year = await call("POST", "/api/v1/search/query", {
      key,
      body: { collection: "scifact", query: QUERY, filters: { year: { gte: 2015 } } },
    });
    expect([year.status, year.body.error.code]).toEqual([422, "INVALID_FILTER"]);
    expect(year.body.error.message).toContain(
      'Unknown filter field "year": not a result metadata field. Did you mean "publication_date"?',
    );
    expect(year.body.error.message).toContain("Indexed fields: journal, publisher, keywords, publication_date,");
    expect(year.body.error.message).not.toContain("journal_metric.");
    expect(year.body.error.message.length).toBeLessThan(330);
    expect(year.body.error.details).toMatchObject({
      field: "year",
      filter: { year: { gte: 2015 } },
      indexedFields: {
        everyCollection: expect.arrayContaining(["publication_date", "journal"]),
        editorialCollections: expect.arrayContaining(["topic"]),
        journalMetrics: expect.arrayContaining(["journal_metric.h_index"]),
      },
    });
    const typo = await call("POST", "/api/v1/search/query", {
      key,
      body: { collection: "scifact", query: QUERY, filters: { field: "jounral", eq: "Nature" } },
    });
    expect(typo.body.error.message).toContain('Did you mean "journal"?');
  }, 120_000);
});

describe("the spending-cap refusal", () => {
  it("says what is left of the cap and what the request would cost, and charges nothing", async () => {
    const orgId = (await ops.newOrg({ name: "Capped lab" }, "5.00")).id;
    const created = await ops.newKey(orgId, { mode: "live", spendingCap: "1.00" });
    const search = () =>
      call("POST", "/api/v1/search/query", {
        key: created.key,
        body: { collection: "scifact", query: QUERY, limit: 3 },
      });
    const first = await search();
    expect(first.status).toBe(200);
    const cost = micros(first.headers.get("x-query-cost")!);
    expect(cost).toBeGreaterThan(1n);
    // the cap leaves half of what the same search costs: not used up, but too little for it
    const left = cost / 2n;
    const cap = cost + left;
    expect(
      (await call("POST", `/admin/v1/keys/${created.id}/spending-cap`, { admin, body: { spendingCap: credits(cap) } }))
        .status,
    ).toBe(200);
    const balance = await ops.balanceOf(orgId);
    const refused = await search();
    expect([refused.status, refused.body.error.code]).toEqual([429, "API_KEY_BUDGET_EXCEEDED"]);
    expect(refused.body.error.message).toBe(
      `This API key's spending cap of ${credits(cap)} credits has ${credits(left)} left and this request ` +
        `would cost ${credits(cost)}; nothing was charged. Ask for fewer results, or have an owner raise the cap`,
    );
    expect(refused.body.error.details).toEqual({
      spendingCap: credits(cap),
      spent: credits(cost),
      capLeft: credits(left),
      requestCost: credits(cost),
    });
    expect(await ops.balanceOf(orgId)).toBe(balance);

    // spent to the micro-credit: used up, refused before any search work
    expect(
      (await call("POST", `/admin/v1/keys/${created.id}/spending-cap`, { admin, body: { spendingCap: credits(cost) } }))
        .status,
    ).toBe(200);
    const usedUp = await search();
    expect([usedUp.status, usedUp.body.error.message]).toEqual([
      429,
      `This API key's spending cap of ${credits(cost)} credits is used up (${credits(cost)} spent); nothing ` +
        "was charged. An owner can raise the cap",
    ]);
  }, 120_000);
});
