// The tool gateway over HTTP on the real stack: the shipped tools on the demo data slice, the shared per-minute
// budget, a priced tool charged through the event store (ledger, replay, reconciliation), and an upstream MCP server
// (a real one, started here) mounted under a prefix.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { httpClient, operatorSteps, startTestService, type TestService } from "../support/testService.js";
import { startUpstreamMcpServer, type UpstreamMcpServer } from "./upstreamMcpServer.js";

const UPSTREAM_AUTH = "Bearer upstream-secret-42";
/** Retraction Watch: retracted 2/2/2015 by notice 10.1155/2015/982750 (first row of the sample) */
const RW_RETRACTED = "10.1155/2008/961753";
/** open-retractions only: the first record of open_retractions.retracted.jsonl */
const OPEN_RETRACTED = "10.1002/admt.201600145";
/** the first OpenAlex work of the test slice (closed access: in openalex-synergy, not in openalex-open-access) */
const CLOSED_WORK = {
  doi: "10.1530/eje.0.1410619",
  pmid: "10601965",
  title: "Pheochromocytoma in Italy: a multicentric retrospective study",
  date: "1999-12-01",
};
/** the second one (bronze: in both OpenAlex collections) */
const OPEN_WORK_DOI = "10.1212/01.wnl.0000033622.27961.b6";
/** a DOAJ journal (first row of doaj_journals.csv): only an electronic ISSN */
const DOAJ_JOURNAL = { eissn: "1983-9979", title: "Prolíngua" };

let svc: TestService;
let upstream: UpstreamMcpServer;
let call: ReturnType<typeof httpClient>;
let ops: ReturnType<typeof operatorSteps>;
let key: string;
let orgId: string;

/** the service clock, fixed: the per-minute budget test's window cannot roll over under it */
const now = new Date("2026-05-10T20:00:10Z");

beforeAll(async () => {
  upstream = await startUpstreamMcpServer(UPSTREAM_AUTH);
  svc = await startTestService({
    clock: () => now,
    env: {
      TOOL_PRICES: "journals/lookup=0.002500,up/shout=0.001000",
      TOOL_UPSTREAMS: JSON.stringify([{ prefix: "up", url: upstream.url, authHeader: UPSTREAM_AUTH }]),
    },
  });
  call = httpClient(svc.baseUrl);
  ops = operatorSteps(call, svc.adminToken);
  orgId = (await ops.newOrg({}, "1.00")).id;
  key = (await ops.newKey(orgId)).key;
}, 300_000);

afterAll(async () => {
  await svc?.close();
  await upstream?.close();
});

const tool = (path: string, body: unknown, k = key) => call("POST", `/api/v1/tools/${path}`, { key: k, body });

describe("retractions/check", () => {
  it("finds retracted DOIs with their notice and passes the others", async () => {
    const res = await tool("retractions/check", {
      dois: [
        `https://doi.org/${RW_RETRACTED.toUpperCase()}`,
        `doi:${OPEN_RETRACTED}`,
        CLOSED_WORK.doi,
        // retracted in 2020 (Surgisphere), on neither shipped list and held by no collection: unknown, not "clean"
        "10.1056/NEJMoa2007621",
      ],
    });
    expect(res.status).toBe(200);
    const [rw, open, clean, unheld] = res.body.results;
    expect(rw).toMatchObject({
      doi: RW_RETRACTED,
      status: "retracted",
      retracted: true,
      notice: {
        date: "2015-02-02",
        source: "retraction_watch",
        notice_doi: "10.1155/2015/982750",
        notice_type: "Retraction",
      },
    });
    expect(rw.notice.reasons).toEqual(expect.arrayContaining(["Duplication of Text", "Plagiarism of Text"]));
    expect(open).toMatchObject({
      doi: OPEN_RETRACTED,
      retracted: true,
      notice: {
        date: "2019-04-16",
        source: "open_retractions",
        notice_doi: "10.1002/admt.201900226",
        notice_type: "retraction",
        reasons: [],
      },
    });
    // held by a collection the key reaches, and neither its source nor a list says it is retracted
    expect(clean).toEqual({ input: CLOSED_WORK.doi, doi: CLOSED_WORK.doi, status: "not_retracted", retracted: false });
    expect(unheld).toEqual({
      input: "10.1056/NEJMoa2007621",
      doi: "10.1056/nejmoa2007621",
      status: "unknown",
      retracted: null,
    });
  });

  it("refuses a malformed DOI, 101 DOIs and a body that is no object with 422 TOOL_ERROR", async () => {
    const malformed = await tool("retractions/check", { dois: [RW_RETRACTED, "not-a-doi"] });
    expect([malformed.status, malformed.body.error.code]).toEqual([422, "TOOL_ERROR"]);
    expect(malformed.body.error.message).toContain('"not-a-doi" is not a DOI');
    const tooMany = await tool("retractions/check", { dois: Array.from({ length: 101 }, (_, i) => `10.1000/${i}`) });
    expect([tooMany.status, tooMany.body.error.code]).toEqual([422, "TOOL_ERROR"]);
    expect(tooMany.body.error.message).toMatch(/^retractions\/check: dois: /);
    expect(
      (await tool("retractions/check", { dois: Array.from({ length: 100 }, (_, i) => `10.1000/${i}`) })).status,
    ).toBe(200);
    const notObject = await tool("retractions/check", [RW_RETRACTED]);
    expect([notObject.status, notObject.body.error.code]).toEqual([422, "TOOL_ERROR"]);
  });
});

describe("works/lookup", () => {
  it("returns the metadata of a work by DOI and by PMID, with the collections holding it", async () => {
    for (const body of [
      { doi: `https://doi.org/${CLOSED_WORK.doi}` },
      { pmid: CLOSED_WORK.pmid },
      { pmid: Number(CLOSED_WORK.pmid) },
    ]) {
      const res = await tool("works/lookup", body);
      expect(res.status).toBe(200);
      expect(res.body).toMatchObject({
        doi: CLOSED_WORK.doi,
        pmid: CLOSED_WORK.pmid,
        title: CLOSED_WORK.title,
        publication_date: CLOSED_WORK.date,
        journal: expect.stringMatching(/endocrinology/i),
        collections: ["openalex-synergy"],
      });
      expect(res.body.authors[0]).toBe("M Mannelli");
      // the same authors as the work's own answer: the authorships, ids and ORCIDs where OpenAlex resolved them
      const work = await call("GET", `/api/v1/works/${CLOSED_WORK.doi}`, { key });
      expect(res.body.authorships).toEqual(work.body.authorships);
      expect(res.body.authorships.map((a: { name: string }) => a.name)).toEqual(res.body.authors);
    }
    expect((await tool("works/lookup", { doi: OPEN_WORK_DOI })).body.collections).toEqual([
      "openalex-open-access",
      "openalex-synergy",
    ]);
  });

  it("answers TOOL_ERROR for a work no collection holds and for one held only outside the key scope", async () => {
    const absent = await tool("works/lookup", { doi: "10.9999/not.held.anywhere" });
    expect([absent.status, absent.body.error.code]).toEqual([422, "TOOL_ERROR"]);
    const scoped = (await ops.newKey(orgId, { mode: "live", collections: ["openalex-open-access"] })).key;
    const hidden = await tool("works/lookup", { doi: CLOSED_WORK.doi }, scoped);
    expect([hidden.status, hidden.body.error.code]).toEqual([422, "TOOL_ERROR"]);
    expect(hidden.body.error.message).toBe(
      absent.body.error.message.replace("10.9999/not.held.anywhere", CLOSED_WORK.doi),
    );
    const visible = await tool("works/lookup", { doi: OPEN_WORK_DOI }, scoped);
    expect([visible.status, visible.body.collections]).toEqual([200, ["openalex-open-access"]]);
    const both = await tool("works/lookup", { doi: OPEN_WORK_DOI, pmid: "1" });
    expect([both.status, both.body.error.code]).toEqual([422, "TOOL_ERROR"]);
  });
});

describe("journals/lookup (priced at 0.0025)", () => {
  it("finds the journals-table row by ISSN in any form and by title, ignoring case", async () => {
    const forms = [DOAJ_JOURNAL.eissn, DOAJ_JOURNAL.eissn.replace("-", ""), ` ${DOAJ_JOURNAL.eissn} `];
    for (const issn of forms) {
      const res = await tool("journals/lookup", { issn });
      expect(res.status).toBe(200);
      expect(res.body).toMatchObject({
        title: DOAJ_JOURNAL.title,
        issns: expect.arrayContaining([DOAJ_JOURNAL.eissn]),
      });
      expect(Object.keys(res.body)).toEqual(
        expect.arrayContaining([
          "h_index",
          "i10_index",
          "two_yr_mean_citedness",
          "impact_factor",
          "works_count",
          "publisher",
          "issn_l",
        ]),
      );
      // the row says what its metrics are computed from (the table's basis)
      expect(res.body.metrics_basis).toMatch(
        /^Journal metrics are computed from the \d+ OpenAlex works this service indexes/,
      );
    }
    const byTitle = await tool("journals/lookup", { title: DOAJ_JOURNAL.title.toUpperCase() });
    expect(byTitle.body.issns).toContain(DOAJ_JOURNAL.eissn);
    const missing = await tool("journals/lookup", { issn: "0000-0000" });
    expect([missing.status, missing.body.error.code]).toEqual([422, "TOOL_ERROR"]);
    const malformed = await tool("journals/lookup", { issn: "12-34" });
    expect([malformed.status, malformed.body.error.code]).toEqual([422, "TOOL_ERROR"]);
  });

  it("charges its price per answered call (balance, ledger, X-Query-Cost); errors free; replay agrees", async () => {
    const org = await ops.newOrg({}, "0.010000");
    const k = (await ops.newKey(org.id)).key;
    const res = await tool("journals/lookup", { issn: DOAJ_JOURNAL.eissn }, k);
    expect(res.status).toBe(200);
    expect(res.headers.get("x-query-cost")).toBe("0.002500");
    expect(res.headers.get("x-credits-remaining")).toBe("0.007500");
    expect(await ops.balanceOf(org.id)).toBe("0.007500");
    expect((await tool("journals/lookup", { issn: "0000-0000" }, k)).status).toBe(422);
    const free = await tool("retractions/check", { dois: [RW_RETRACTED] }, k);
    expect(free.headers.get("x-query-cost")).toBe("0.000000");
    expect(await ops.balanceOf(org.id)).toBe("0.007500");
    const ledger = await call("GET", `/admin/v1/organizations/${org.id}/ledger`, { admin: svc.adminToken });
    expect(
      ledger.body.entries.map((e: { type: string; amount: string; balanceAfter: string; reference: string | null }) => [
        e.type,
        e.amount,
        e.balanceAfter,
        e.reference,
      ]),
    ).toEqual([
      ["credit", "0.010000", "0.010000", expect.any(String)],
      ["charge", "-0.002500", "0.007500", "tool:journals/lookup"],
    ]);
    const rec = await call("GET", `/admin/v1/organizations/${org.id}/reconciliation`, { admin: svc.adminToken });
    expect(rec.body.ok).toBe(true);
    expect((await call("GET", "/admin/v1/reconciliation", { admin: svc.adminToken })).body.ok).toBe(true);
    const replay = await call("POST", "/admin/v1/replay", { admin: svc.adminToken });
    expect(replay.status).toBe(200);
    expect(replay.body.tables.every((t: { equal: boolean }) => t.equal)).toBe(true);
  });

  it("refuses with 402 INSUFFICIENT_CREDITS when the balance cannot cover the price, and charges nothing", async () => {
    const org = await ops.newOrg({}, "0.002000");
    const k = (await ops.newKey(org.id)).key;
    const res = await tool("journals/lookup", { issn: DOAJ_JOURNAL.eissn }, k);
    expect([res.status, res.body.error.code]).toEqual([402, "INSUFFICIENT_CREDITS"]);
    expect(await ops.balanceOf(org.id)).toBe("0.002000");
    const ledger = await call("GET", `/admin/v1/organizations/${org.id}/ledger`, { admin: svc.adminToken });
    expect(ledger.body.entries).toHaveLength(1);
    // a free tool still answers
    expect((await tool("retractions/check", { dois: [RW_RETRACTED] }, k)).status).toBe(200);
  });

  it("charges concurrent calls only while the balance lasts: decided again under the append lock", async () => {
    const org = await ops.newOrg({}, "0.005000");
    const k = (await ops.newKey(org.id)).key;
    const answers = await Promise.all(
      Array.from({ length: 4 }, () => tool("journals/lookup", { issn: DOAJ_JOURNAL.eissn }, k)),
    );
    expect(answers.map((a) => a.status).sort()).toEqual([200, 200, 402, 402]);
    expect(await ops.balanceOf(org.id)).toBe("0.000000");
    expect(
      (await call("GET", `/admin/v1/organizations/${org.id}/reconciliation`, { admin: svc.adminToken })).body.ok,
    ).toBe(true);
  });
});

describe("budget and keys", () => {
  it("takes one slot of the per-minute budget per call, shared with search", async () => {
    const org = await ops.newOrg({}, "1.00");
    const k = (await ops.newKey(org.id)).key;
    expect(
      (
        await call("POST", `/admin/v1/organizations/${org.id}/limits`, {
          admin: svc.adminToken,
          body: { perMinute: 3 },
        })
      ).status,
    ).toBe(200);
    expect((await tool("retractions/check", { dois: [RW_RETRACTED] }, k)).status).toBe(200);
    expect(
      (
        await call("POST", "/api/v1/search/query", {
          key: k,
          body: { collection: "scifact", query: "vitamin D and bone fractures", limit: 3 },
        })
      ).status,
    ).toBe(200);
    // a tool error still took its slot
    expect((await tool("works/lookup", { doi: "10.9999/none" }, k)).status).toBe(422);
    const over = await tool("retractions/check", { dois: [RW_RETRACTED] }, k);
    expect([over.status, over.body.error.code]).toEqual([429, "QUOTA_EXCEEDED"]);
    const search = await call("POST", "/api/v1/search/query", {
      key: k,
      body: { collection: "scifact", query: "vitamin D", limit: 3 },
    });
    expect([search.status, search.body.error.code]).toEqual([429, "QUOTA_EXCEEDED"]);
  });

  it("refuses a sandbox key with 403", async () => {
    const sandbox = (await ops.newKey(orgId, { mode: "test" })).key;
    const res = await tool("retractions/check", { dois: [RW_RETRACTED] }, sandbox);
    expect([res.status, res.body.error.code]).toEqual([403, "SANDBOX_UNSUPPORTED_ENDPOINT"]);
  });
});

describe("upstream MCP mount", () => {
  it("lists the upstream tools as prefix--tool beside the shipped ones, with their schemas and prices", () => {
    const described = svc.runtime.tools.describe();
    expect(described.map((d) => d.name).sort()).toEqual([
      "journals--lookup",
      "retractions--check",
      "up--refuse",
      "up--shout",
      "works--lookup",
    ]);
    const shout = described.find((d) => d.name === "up--shout")!;
    expect(shout).toMatchObject({ prefix: "up", tool: "shout", description: "Upper-cases a text", priceMicros: 1000n });
    expect(shout.inputSchema).toMatchObject({ type: "object", properties: { text: { type: "string" } } });
    expect(described.find((d) => d.name === "retractions--check")!.priceMicros).toBe(0n);
  });

  it("forwards a call with the auth header and returns its answer, charged like any priced tool", async () => {
    const org = await ops.newOrg({}, "0.010000");
    const k = (await ops.newKey(org.id)).key;
    const res = await tool("up/shout", { text: "retracted?" }, k);
    expect(res.status).toBe(200);
    expect(res.body.structuredContent).toEqual({ shouted: "RETRACTED?" });
    expect(res.body.content).toEqual([{ type: "text", text: "RETRACTED?" }]);
    expect(upstream.calls).toContainEqual({ tool: "shout", args: { text: "retracted?" } });
    expect(res.headers.get("x-query-cost")).toBe("0.001000");
    expect(await ops.balanceOf(org.id)).toBe("0.009000");
  });

  it("returns an upstream domain error as TOOL_ERROR with the upstream's text, and bad arguments too", async () => {
    const refused = await tool("up/refuse", { why: "no reason" });
    expect([refused.status, refused.body.error.code, refused.body.error.message]).toEqual([
      422,
      "TOOL_ERROR",
      "refused: no reason",
    ]);
    const badArgs = await tool("up/shout", { text: 42 });
    expect([badArgs.status, badArgs.body.error.code]).toEqual([422, "TOOL_ERROR"]);
  });

  it("refuses a priced upstream call the balance cannot cover before forwarding it", async () => {
    const org = await ops.newOrg({}, "0.000500");
    const k = (await ops.newKey(org.id)).key;
    const before = upstream.calls.length;
    const res = await tool("up/shout", { text: "unpaid" }, k);
    expect([res.status, res.body.error.code]).toEqual([402, "INSUFFICIENT_CREDITS"]);
    expect(upstream.calls.length).toBe(before);
    expect(await ops.balanceOf(org.id)).toBe("0.000500");
  });

  it("answers 503 SERVICE_UNAVAILABLE with nothing charged when the upstream is down", async () => {
    const org = await ops.newOrg({}, "0.010000");
    const k = (await ops.newKey(org.id)).key;
    await upstream.close();
    const res = await tool("up/shout", { text: "anyone?" }, k);
    expect([res.status, res.body.error.code]).toEqual([503, "SERVICE_UNAVAILABLE"]);
    expect(await ops.balanceOf(org.id)).toBe("0.010000");
  });
});
