// GET /api/v1/search/collections over HTTP on the real service: every entry carries documentCount (the public SDK
// requires it), the documents each collection holds, and a meta-collection the sum of its members'; every plain
// collection the organization's pricePer1000 and a meta-collection its priceRange. A price question sent to a search
// endpoint is a catalogue question: answered free with every reachable collection and its price.
import { readFileSync, rmSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DEFAULT_COLLECTIONS_CONFIG } from "../../src/app/config.js";
import { type CollectionCatalog } from "../../src/domain/collectionDefinitions.js";
import { loadCollectionCatalog } from "../../src/app/collectionsFile.js";
import { prepareCollection } from "../../src/ingest/pipelineRules.js";
import { loadRetractedDois } from "../../src/ingest/retractions.js";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import {
  httpClient,
  operatorSteps,
  sliceDataRoot,
  startTestService,
  type TestService,
} from "../support/testService.js";

let svc: TestService;
let call: ReturnType<typeof httpClient>;
let dataRoot: string;
let catalog: CollectionCatalog;

interface Listed {
  name: string;
  documentCount: number;
  members?: string[];
  pricePer1000?: string;
  priceRange?: { min: string; max: string; per: string } | null;
}

const orgAndKeyFor = (collections?: string[]) =>
  operatorSteps(call, svc.adminToken).customer({ org: { name: "Catalogue lab" }, collections });

const keyFor = async (collections?: string[]): Promise<string> => (await orgAndKeyFor(collections)).key;

/** An organization with a negotiated price on scifact (0.010 instead of the catalogue's 0.030), credits and a key. */
async function negotiatedOrg(): Promise<{ orgId: string; key: string }> {
  const made = await orgAndKeyFor();
  expect(
    (
      await call("POST", `/admin/v1/organizations/${made.orgId}/credits`, {
        admin: svc.adminToken,
        body: { amount: "5.00" },
      })
    ).status,
  ).toBe(200);
  expect(
    (
      await call("PUT", `/admin/v1/organizations/${made.orgId}/prices/scifact`, {
        admin: svc.adminToken,
        body: { pricePer1000: "0.010" },
      })
    ).status,
  ).toBe(200);
  return made;
}

/** The organization's price of each physical collection: its override on scifact, the catalogue's elsewhere. */
const priceOf = (name: string) =>
  name === "scifact" ? "0.010" : catalog.collections.find((c) => c.name === name)!.pricePer1000;

/** Documents with at least one chunk, as ingestion chunks the slice (exclusions included), counted by doc_id. */
async function indexedDocuments(name: string): Promise<number> {
  const collection = catalog.collections.find((candidate) => candidate.name === name)!;
  const prepared = await prepareCollection({
    collection,
    dataRoot,
    tokenizer: svc.runtime.embedder.tokenizer,
    retracted: await loadRetractedDois(dataRoot),
  });
  return new Set(prepared.records.map((record) => record.metadata.doc_id)).size;
}

beforeAll(async () => {
  dataRoot = await sliceDataRoot();
  svc = await startTestService({ dataRoot });
  call = httpClient(svc.baseUrl);
  catalog = await loadCollectionCatalog(DEFAULT_COLLECTIONS_CONFIG);
}, 600_000);

afterAll(async () => {
  await svc?.close();
  if (dataRoot) rmSync(dataRoot, { recursive: true, force: true });
});

describe("GET /api/v1/search/collections", () => {
  it("gives each plain collection its document count, and a meta-collection the sum of its members", async () => {
    const res = await call("GET", "/api/v1/search/collections", { key: await keyFor() });
    expect(res.status).toBe(200);
    const listed = res.body.collections as Listed[];
    expect(listed.map((entry) => entry.name)).toEqual(
      [...catalog.collections, ...catalog.metaCollections].map((entry) => entry.name),
    );
    for (const entry of listed) expect(Number.isInteger(entry.documentCount), entry.name).toBe(true);

    // every SciFact line of the slice is a document with an abstract
    const scifactLines = readFileSync(join(dataRoot, "scifact", "corpus.jsonl"), "utf8")
      .split("\n")
      .filter((line) => line.trim() !== "").length;
    const count = (name: string) => listed.find((entry) => entry.name === name)!.documentCount;
    expect(count("scifact")).toBe(scifactLines);

    const expected = new Map<string, number>();
    for (const collection of catalog.collections)
      expected.set(collection.name, await indexedDocuments(collection.name));
    for (const collection of catalog.collections)
      expect(count(collection.name), collection.name).toBe(expected.get(collection.name));
    // works without an abstract are not documents of the OpenAlex collections
    expect(count("openalex-synergy")).toBeLessThan(scifactLines);
    expect(count("openalex-synergy")).toBeGreaterThan(0);

    for (const meta of catalog.metaCollections) {
      const sum = meta.members.reduce((total, member) => total + expected.get(member)!, 0);
      expect(count(meta.name), meta.name).toBe(sum);
      expect(listed.find((entry) => entry.name === meta.name)!.members).toHaveLength(meta.members.length);
    }
  });

  it("counts the same for a key scoped to a meta-collection, which sees only that entry", async () => {
    const meta = catalog.metaCollections[0];
    const [all, scoped] = await Promise.all([keyFor(), keyFor([meta.name])]);
    const full = (await call("GET", "/api/v1/search/collections", { key: all })).body.collections as Listed[];
    const res = await call("GET", "/api/v1/search/collections", { key: scoped });
    expect(res.status).toBe(200);
    expect(res.headers.get("x-query-cost")).toBe("0.000000");
    expect(res.body).toEqual({
      collections: [
        expect.objectContaining({
          name: meta.name,
          documentCount: full.find((entry) => entry.name === meta.name)!.documentCount,
        }),
      ],
      count: 1,
    });
  });

  it("gives a plain collection the org's pricePer1000 (its override), a meta-collection its priceRange", async () => {
    const { key } = await negotiatedOrg();
    const listed = (await call("GET", "/api/v1/search/collections", { key })).body.collections as Listed[];
    for (const plain of catalog.collections) {
      const entry = listed.find((e) => e.name === plain.name)!;
      expect(entry.pricePer1000, plain.name).toBe(priceOf(plain.name));
      expect(entry.priceRange, plain.name).toBeUndefined();
    }
    for (const meta of catalog.metaCollections) {
      const entry = listed.find((e) => e.name === meta.name)!;
      const prices = meta.members.map((m) => Number(priceOf(m)));
      expect(entry.pricePer1000, meta.name).toBeUndefined();
      expect([Number(entry.priceRange!.min), Number(entry.priceRange!.max)]).toEqual([
        Math.min(...prices),
        Math.max(...prices),
      ]);
    }
    // another organization pays the catalogue's prices
    const other = (await call("GET", "/api/v1/search/collections", { key: await keyFor() })).body
      .collections as Listed[];
    expect(other.find((e) => e.name === "scifact")!.pricePer1000).toBe(
      catalog.collections.find((c) => c.name === "scifact")!.pricePer1000,
    );
  });
});

describe("price questions", () => {
  const PRICE_QUESTIONS = [
    "how much does each collection cost?",
    "What are your prices?",
    "which sources can I search and what do they cost?",
    "pricing",
    "cost per 1000 tokens",
    "is scifact expensive?",
  ];

  it("are answered free from the catalogue on /query, /{collection}, /preview and MCP, with prices", async () => {
    const { orgId, key } = await negotiatedOrg();
    const balance = async () =>
      (await call("GET", `/admin/v1/organizations/${orgId}/balance`, { admin: svc.adminToken })).body.balance as string;
    const before = await balance();
    const answers = [
      ...(await Promise.all(
        PRICE_QUESTIONS.map((query) =>
          call("POST", "/api/v1/search/query", { key, body: { collection: "scifact", query } }),
        ),
      )),
      await call("POST", "/api/v1/search/clinical-digest", { key, body: { query: "What are your prices?" } }),
      await call("POST", "/api/v1/search/preview", {
        key,
        body: { collection: "biomedical", query: "how much does each collection cost?" },
      }),
    ];
    const client = new Client({ name: "price-question", version: "0.0.0" });
    await client.connect(
      new StreamableHTTPClientTransport(new URL(`${svc.baseUrl}/mcp`), {
        requestInit: { headers: { Authorization: `Bearer ${key}` } },
      }),
    );
    const called = await client.callTool({
      name: "search-scifact",
      arguments: { query: "how much do you charge per 1000 tokens?" },
    });
    await client.close();
    const mcpAnswer = JSON.parse((called.content as { text: string }[])[0]!.text);
    const all = [
      ...answers.map((a) => ({ status: a.status, cost: a.headers.get("x-query-cost"), body: a.body })),
      { status: 200, cost: mcpAnswer.cost as string, body: mcpAnswer },
    ];
    for (const [n, a] of all.entries()) {
      expect(a.status, String(n)).toBe(200);
      expect(a.body.discovery?.intent, JSON.stringify(a.body).slice(0, 300)).toBe("sources");
      expect(a.body.results).toEqual([]);
      expect(a.cost).toBe("0.000000");
      // every collection the key reaches, each with the organization's price
      const scopes = a.body.discovery.scopes as Array<{
        collection: string;
        items: Array<{ name: string; pricePer1000?: string; priceRange?: { min: string; max: string } | null }>;
      }>;
      expect(scopes.map((s) => s.collection).sort()).toEqual(
        [...catalog.collections, ...catalog.metaCollections].map((c) => c.name).sort(),
      );
      for (const scope of scopes) {
        for (const item of scope.items) {
          const plain = catalog.collections.find((c) => c.name === item.name);
          if (plain) expect(item.pricePer1000, item.name).toBe(priceOf(plain.name));
          else {
            const prices = catalog.metaCollections
              .find((m) => m.name === item.name)!
              .members.map((m) => Number(priceOf(m)));
            expect([Number(item.priceRange!.min), Number(item.priceRange!.max)], item.name).toEqual([
              Math.min(...prices),
              Math.max(...prices),
            ]);
          }
        }
      }
      expect(a.body.discovery.text).toContain("0.010 credits per 1000 tokens");
    }
    expect(await balance()).toBe(before);
  });

  it("leaves a research question about costs searched and billed", async () => {
    const { key } = await negotiatedOrg();
    const res = await call("POST", "/api/v1/search/query", {
      key,
      body: { collection: "scifact", query: "how much does insulin cost in the US?" },
    });
    expect(res.status).toBe(200);
    expect(res.body.discovery).toBeUndefined();
    expect(res.body.results.length).toBeGreaterThan(0);
    expect(Number(res.headers.get("x-query-cost"))).toBeGreaterThan(0);
  });
});
