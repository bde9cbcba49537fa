// min_relevance and one_per_document over HTTP and MCP on the real service (Temporal, event store, embedding model),
// on both engines (the selection is the shared pipeline's, above the engine port): rows below the threshold are neither
// returned nor charged and are counted in belowMinRelevance; one row per document keeps each document's best chunk,
// fills the list from the next documents, counts a work held by two collections once, and bills only the rows
// delivered. A free preview of 30 rows is the reference each time.
import { readFileSync, rmSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { mcpClient as connectMcp, tool } from "../support/mcpTools.js";
import {
  ENGINES,
  httpClient,
  operatorSteps,
  sliceDataRoot,
  startTestService,
  type TestService,
} from "../support/testService.js";

let svc: TestService;
let call: ReturnType<typeof httpClient>;
let ops: ReturnType<typeof operatorSteps>;
let dataRoot: string;
const clients: Client[] = [];

interface Row {
  id: string;
  relevance: number;
  tokens: number;
  collection: string;
  metadata: { doc_id: string; doi?: string | null; pmid?: string | null };
}

/**
 * A title query on the slice's longest SciFact abstract: its chunks all rank high, so one document fills several slots.
 */
let titleQuery: string;

beforeAll(async () => {
  dataRoot = await sliceDataRoot();
  const docs = readFileSync(join(dataRoot, "scifact", "corpus.jsonl"), "utf8")
    .split("\n")
    .filter((line) => line.trim() !== "")
    .map((line) => JSON.parse(line) as { title: string; text: string });
  titleQuery = docs.sort((a, b) => b.text.length - a.text.length)[0]!.title;
}, 120_000);

afterAll(() => {
  if (dataRoot) rmSync(dataRoot, { recursive: true, force: true });
});

const liveKey = () =>
  ops.customer({ org: { name: "Selection lab", limits: { perMinute: 1000, previewPerHour: 1000 } }, credits: "5.00" });

/** The free reference: the first 30 rows as ranked, with their tokens and relevance. */
async function reference(key: string, body: Record<string, unknown>): Promise<Row[]> {
  const res = await call("POST", "/api/v1/search/preview", { key, body: { ...body, limit: 30 } });
  expect(res.status).toBe(200);
  for (const r of res.body.results) expect(typeof r.relevance).toBe("number");
  return res.body.results as Row[];
}

const ids = (rows: { id: string }[]) => rows.map((r) => r.id);
const tokensOf = (rows: Row[], delivered: { id: string }[]) =>
  delivered.reduce((sum, d) => sum + rows.find((r) => r.id === d.id)!.tokens, 0);
/** Every key a row's work is known by: two rows sharing one (a DOI, a PMID, the collection's id) are one work. */
const keysOf = (r: Row) => [
  `${r.collection}:${r.metadata.doc_id}`,
  ...(r.metadata.doi ? [`doi:${r.metadata.doi.toLowerCase()}`] : []),
  ...(r.metadata.pmid ? [`pmid:${r.metadata.pmid}`] : []),
];

/** The first `limit` works of a ranked list, each by its first (best) row. */
function firstPerDocument(rows: Row[], limit: number): Row[] {
  const seen = new Set<string>();
  return rows.filter((r) => !keysOf(r).some((k) => seen.has(k)) && keysOf(r).every((k) => seen.add(k))).slice(0, limit);
}

const mcpClient = (key: string) => connectMcp(svc.baseUrl, key, clients);

describe.each(ENGINES)("on the %s engine", (engine) => {
  beforeAll(async () => {
    svc = await startTestService({ dataRoot, engine });
    call = httpClient(svc.baseUrl);
    ops = operatorSteps(call, svc.adminToken);
  }, 600_000);

  afterAll(async () => {
    for (const c of clients.splice(0)) await c.close().catch(() => undefined);
    await svc?.close();
  });

  describe("min_relevance", () => {
    it("returns and charges only rows at or above the threshold on /query, /{collection} and MCP", async () => {
      const { orgId, key } = await liveKey();
      const query = "vitamin D deficiency and bone fractures";
      const all = (await reference(key, { collection: "scifact", query })).slice(0, 10);
      const distinct = [...new Set(all.map((r) => r.relevance))];
      expect(distinct.length, "the ten rows must spread over several relevances").toBeGreaterThanOrEqual(3);
      // a threshold between two relevances of the list: some rows kept, some held back
      const threshold = distinct[Math.floor(distinct.length / 2)]!;
      const kept = all.filter((r) => r.relevance >= threshold);
      expect(kept.length).toBeGreaterThan(0);
      expect(kept.length).toBeLessThan(all.length);

      for (const [path, body] of [
        ["/api/v1/search/query", { collection: "scifact", query, min_relevance: threshold }],
        ["/api/v1/search/scifact", { query, minRelevance: threshold }],
      ] as const) {
        const before = await ops.balanceOf(orgId);
        const res = await call("POST", path, { key, body });
        expect(res.status, JSON.stringify(res.body)).toBe(200);
        expect(ids(res.body.results)).toEqual(ids(kept));
        expect(res.body.belowMinRelevance).toBe(all.length - kept.length);
        expect(Number(res.headers.get("x-tokens-used"))).toBe(tokensOf(all, kept));
        const charged = Number(before) - Number(await ops.balanceOf(orgId));
        expect(charged.toFixed(6)).toBe(res.headers.get("x-query-cost"));
        // re-fetched as it was delivered
        const again = await call("GET", `/api/v1/search/results/${res.body.queryId}`, { key });
        expect(ids(again.body.results)).toEqual(ids(kept));
      }

      // without a threshold nothing is held back, and the ten rows cost more
      const everything = await call("POST", "/api/v1/search/query", { key, body: { collection: "scifact", query } });
      expect(ids(everything.body.results)).toEqual(ids(all));
      expect(everything.body.belowMinRelevance).toBe(0);
      expect(Number(everything.headers.get("x-tokens-used"))).toBe(tokensOf(all, all));

      const mcp = await tool(await mcpClient(key), "search-scifact", { query, min_relevance: threshold });
      expect(ids(mcp.results)).toEqual(ids(kept));
      expect(mcp.belowMinRelevance).toBe(all.length - kept.length);
      expect(mcp.tokens_used).toBe(tokensOf(all, kept));
    });

    it("holds back every row at 1 and charges nothing; a value outside 0..1 is a 422 changing nothing", async () => {
      const { orgId, key } = await liveKey();
      const before = await ops.balanceOf(orgId);
      const none = await call("POST", "/api/v1/search/query", {
        key,
        body: { collection: "scifact", query: "vitamin D deficiency and bone fractures", min_relevance: 1 },
      });
      expect(none.status).toBe(200);
      expect(none.body.results).toEqual([]);
      expect(none.body.belowMinRelevance).toBe(10);
      expect(none.headers.get("x-query-cost")).toBe("0.000000");
      for (const [path, body] of [
        ["/api/v1/search/query", { collection: "scifact", query: "vitamin D", min_relevance: 1.5 }],
        ["/api/v1/search/query", { collection: "scifact", query: "vitamin D", min_relevance: "0.1" }],
        ["/api/v1/search/scifact", { query: "vitamin D", minRelevance: -0.1 }],
        ["/api/v1/search/preview", { collection: "scifact", query: "vitamin D", min_relevance: 2 }],
      ] as const) {
        const res = await call("POST", path, { key, body });
        expect(res.status, path).toBe(422);
        expect(res.body.error.code).toBe("VALIDATION_ERROR");
        expect(res.body.error.message).toMatch(/min_?relevance|minRelevance/i);
      }
      expect(await ops.balanceOf(orgId)).toBe(before);
    });

    it("previews only rows at or above the threshold, with relevance: unlocking all buys only those", async () => {
      const { orgId, key } = await liveKey();
      const query = "vitamin D deficiency and bone fractures";
      const all = (await reference(key, { collection: "scifact", query })).slice(0, 10);
      const threshold = [...new Set(all.map((r) => r.relevance))][1]!;
      const kept = all.filter((r) => r.relevance >= threshold);
      const preview = await call("POST", "/api/v1/search/preview", {
        key,
        body: { collection: "scifact", query, min_relevance: threshold },
      });
      expect(preview.status).toBe(200);
      expect(ids(preview.body.results)).toEqual(ids(kept));
      expect(preview.body.results.map((r: Row) => r.relevance)).toEqual(kept.map((r) => r.relevance));
      expect(preview.body.belowMinRelevance).toBe(all.length - kept.length);
      const before = await ops.balanceOf(orgId);
      const unlocked = await call("POST", "/api/v1/search/unlock", { key, body: { queryId: preview.body.queryId } });
      expect(unlocked.status).toBe(200);
      expect(ids(unlocked.body.results)).toEqual(ids(kept));
      expect(Number(unlocked.headers.get("x-tokens-used"))).toBe(tokensOf(all, kept));
      expect((Number(before) - Number(await ops.balanceOf(orgId))).toFixed(6)).toBe(unlocked.body.costCharged);

      const mcp = await tool(await mcpClient(key), "preview", {
        tool_name: "search",
        arguments: { collection: "scifact", query, min_relevance: threshold },
      });
      expect(ids(mcp.results)).toEqual(ids(kept));
      expect(mcp.results.map((r: Row) => r.relevance)).toEqual(kept.map((r) => r.relevance));
      expect(mcp.belowMinRelevance).toBe(all.length - kept.length);
    });
  });

  describe("one_per_document", () => {
    it("delivers each document once, by its best chunk, fills from the next ones, bills only those rows", async () => {
      const { orgId, key } = await liveKey();
      const ranked = await reference(key, { collection: "scifact", query: titleQuery });
      const firstTen = ranked.slice(0, 10);
      expect(
        new Set(firstTen.map((r) => keysOf(r)[0])).size,
        "the title query must rank several chunks of one document in its first ten",
      ).toBeLessThan(10);
      const expected = firstPerDocument(ranked, 10);
      expect(expected).toHaveLength(10);

      for (const [path, body] of [
        ["/api/v1/search/query", { collection: "scifact", query: titleQuery, one_per_document: true }],
        ["/api/v1/search/scifact", { query: titleQuery, onePerDocument: true }],
      ] as const) {
        const before = await ops.balanceOf(orgId);
        const res = await call("POST", path, { key, body });
        expect(res.status, JSON.stringify(res.body)).toBe(200);
        expect(ids(res.body.results)).toEqual(ids(expected));
        expect(Number(res.headers.get("x-tokens-used"))).toBe(tokensOf(ranked, expected));
        expect((Number(before) - Number(await ops.balanceOf(orgId))).toFixed(6)).toBe(res.headers.get("x-query-cost"));
      }

      // with a threshold too: the documents above it, one row each
      const threshold = expected[4]!.relevance;
      const both = await call("POST", "/api/v1/search/query", {
        key,
        body: { collection: "scifact", query: titleQuery, one_per_document: true, min_relevance: threshold },
      });
      const keptDocs = expected.filter((r) => r.relevance >= threshold);
      expect(ids(both.body.results)).toEqual(ids(keptDocs));
      expect(both.body.belowMinRelevance).toBe(expected.length - keptDocs.length);

      const client = await mcpClient(key);
      const mcp = await tool(client, "search", {
        collection: "scifact",
        query: titleQuery,
        one_per_document: true,
        limit: 5,
      });
      expect(ids(mcp.results)).toEqual(ids(expected.slice(0, 5)));
      const previewed = await tool(client, "preview", {
        tool_name: "search-scifact",
        arguments: { query: titleQuery, one_per_document: true, limit: 5 },
      });
      expect(ids(previewed.results)).toEqual(ids(expected.slice(0, 5)));
    });

    it("counts a work held by two collections once (the same DOI), as assisted search does", async () => {
      const { key } = await liveKey();
      const body = { collections: ["openalex-synergy", "openalex-open-access"], query: "gabapentin for pain" };
      const ranked = await reference(key, body);
      const dois = ranked
        .slice(0, 10)
        .map((r) => r.metadata.doi?.toLowerCase())
        .filter(Boolean);
      expect(new Set(dois).size, "an open-access work must appear from both collections in the first ten").toBeLessThan(
        dois.length,
      );
      const res = await call("POST", "/api/v1/search/query", { key, body: { ...body, one_per_document: true } });
      expect(res.status).toBe(200);
      expect(ids(res.body.results)).toEqual(ids(firstPerDocument(ranked, 10)));
      const delivered = (res.body.results as Row[]).flatMap(keysOf);
      expect(new Set(delivered).size).toBe(delivered.length);
    });

    it("sells a passage two collections hold once, as its best row, without one_per_document too", async () => {
      const { key } = await liveKey();
      const query = "gabapentin for pain";
      const paid = async (body: Record<string, unknown>) => {
        const res = await call("POST", "/api/v1/search/query", { key, body: { query, limit: 30, ...body } });
        expect(res.status).toBe(200);
        return res.body.results as (Row & { text: string })[];
      };
      const passage = (r: Row & { text: string }) => `${r.metadata.doi?.toLowerCase() ?? r.id}|${r.text}`;
      const [synergy, open] = [
        await paid({ collection: "openalex-synergy" }),
        await paid({ collection: "openalex-open-access" }),
      ];
      const both = new Set(synergy.map(passage).filter((p) => open.map(passage).includes(p)));
      expect(both.size, "an open-access abstract must be held by both collections").toBeGreaterThan(0);
      const merged = await paid({ collections: ["openalex-synergy", "openalex-open-access"] });
      const passages = merged.map(passage);
      expect(new Set(passages).size).toBe(passages.length);
      expect(passages.filter((p) => both.has(p)).length).toBeGreaterThan(0);
      expect(merged).toHaveLength(30);
    });

    it("refuses a one_per_document that is not a boolean", async () => {
      const { key } = await liveKey();
      const res = await call("POST", "/api/v1/search/query", {
        key,
        body: { collection: "scifact", query: "vitamin D", one_per_document: "yes" },
      });
      expect(res.status).toBe(422);
      expect(res.body.error.message).toMatch(/one_per_document/);
    });
  });
});
