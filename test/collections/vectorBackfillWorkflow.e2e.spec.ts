// An ingestion with `vectors: "backfill"` through the real ingestion workflow (the scaled shape: PostgreSQL,
// OpenSearch, Temporal, `src/app/worker.ts` processes with the real embedding model): its documents are searchable by
// BM25 at their commit, and the search answer (REST and MCP), the operator's collections list and the console say how
// much has vectors; the worker is killed with SIGKILL while its backfill activity runs (it pauses before it writes),
// another worker completes the backfill, and the collection then answers as the same documents embedded at commit,
// with no note of a backfill. A wrong `vectors` value is refused with both values named, and starts nothing.
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DEFAULT_DATA_ROOT } from "../../src/app/config.js";
import { vectorBackfillWorkflowId } from "../../workflows/ingestionTypes.js";
import { mcpClient, tool } from "../support/mcpTools.js";
import { plainCollection, writeCollectionsConfig } from "../support/operatorContent.js";
import { startScaledService, type ScaledService } from "../support/scaledService.js";
import { httpClient, operatorSteps, sliceDataRoot, untilIngested, type TestService } from "../support/testService.js";

const DOCUMENTS = 16;
const QUERY = "vitamin D deficiency and bone density";
const lines = readFileSync(join(DEFAULT_DATA_ROOT, "scifact/corpus.jsonl"), "utf8").split("\n").filter(Boolean);

describe("a backfilled ingestion through the workflow, its worker killed mid-backfill", () => {
  let svc: TestService;
  let dataRoot: string;
  let call: ReturnType<typeof httpClient>;
  let key: string;
  let scaled: ScaledService | undefined;
  const spawnWorker = (faults: Record<string, string> = {}) => scaled!.spawnWorker(faults);
  const clients: Client[] = [];

  beforeAll(async () => {
    dataRoot = await sliceDataRoot(10);
    mkdirSync(join(dataRoot, "bf"), { recursive: true });
    // the deferred collection starts from another document (the replace drops it); the reference holds them all,
    // embedded at commit
    writeFileSync(join(dataRoot, "bf/seed.jsonl"), `${lines[DOCUMENTS]}\n`);
    writeFileSync(join(dataRoot, "bf/docs.jsonl"), `${lines.slice(0, DOCUMENTS).join("\n")}\n`);
    const collections = writeCollectionsConfig([
      plainCollection("bf-deferred", "beir", ["bf/seed.jsonl"]),
      plainCollection("bf-at-commit", "beir", ["bf/docs.jsonl"]),
    ]);
    // the API process runs no worker: the batches and the backfill are the worker processes'
    scaled = await startScaledService({
      dataRoot,
      opensearch: true,
      collectionsConfig: collections,
      env: { INGEST_PARALLELISM: "1" },
      workerEnv: { EMBEDDING_WORKERS: "1" },
    });
    svc = scaled.svc;
    call = httpClient(svc.baseUrl);
    ({ key } = await operatorSteps(call, svc.adminToken).customer({ credits: "100" }));
  }, 600_000);

  afterAll(async () => {
    for (const client of clients) await client.close().catch(() => undefined);
    await scaled?.close();
  });

  const search = async (collection: string) => {
    const res = await call("POST", "/api/v1/search/query", { key, body: { collection, query: QUERY, limit: 8 } });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    return res.body;
  };
  const rows = (body: { results: { text: string; relevance: number }[] }) =>
    body.results.map((r) => `${r.text.slice(0, 60)} ${Number(r.relevance).toFixed(2)}`);
  const listed = async (name: string) => {
    const res = await call("GET", "/admin/v1/collections", { admin: svc.adminToken });
    expect(res.status).toBe(200);
    return (res.body.collections as { name: string; vectors: unknown }[]).find((c) => c.name === name)!;
  };

  it("refuses a wrong vectors value, naming both, and starts nothing", async () => {
    const before = await listed("bf-deferred");
    const res = await call("POST", "/admin/v1/collections/bf-deferred/ingest", {
      admin: svc.adminToken,
      body: { files: ["bf/docs.jsonl"], mode: "replace", vectors: "later" },
    });
    expect(res.status).toBe(422);
    expect(res.body.error.code).toBe("VALIDATION_ERROR");
    expect(JSON.stringify(res.body.error)).toContain("at_commit");
    expect(JSON.stringify(res.body.error)).toContain("backfill");
    expect(await listed("bf-deferred")).toEqual(before);
  });

  it("BM25 at commit, the share said meanwhile, killed mid-backfill, then equal to embedding at commit", async () => {
    // each backfill batch pauses 20 s after embedding, before it writes: the kill lands in it
    const faulty = spawnWorker({ FAULT_INGEST_BATCH_DELAY_MS: "20000" });
    const started = await call("POST", "/admin/v1/collections/bf-deferred/ingest", {
      admin: svc.adminToken,
      body: { files: ["bf/docs.jsonl"], mode: "replace", vectors: "backfill" },
    });
    expect(started.status).toBe(202);
    const { ingestionId } = started.body as { ingestionId: string };
    // searchable by BM25 at the commit, with no vector yet: the answer says so, and the list and console show it
    // polled on the API process's engine (searches would spend the customer's per-minute budget)
    const coverage = () => svc.runtime.engine.vectorCoverage("bf-deferred");
    for (let i = 0; i < 1200; i++) {
      const { chunks, withVectors } = await coverage();
      if (withVectors < chunks) break;
      await new Promise((r) => setTimeout(r, 250));
    }
    const during = await search("bf-deferred");
    // (the seed document, with its vector, may still be there until the ingestion's finish removes it)
    expect(during.vectorsBackfilling).toEqual([{ collection: "bf-deferred", vectorShare: expect.any(Number) }]);
    expect(during.vectorsBackfilling[0].vectorShare).toBeLessThan(0.2);
    expect(during.results.length).toBeGreaterThan(1);
    const client = await mcpClient(svc.baseUrl, key, clients);
    const viaMcp = await tool(client, "search", { collection: "bf-deferred", query: QUERY, limit: 4 });
    expect(viaMcp.vectorsBackfilling[0].vectorShare).toBeLessThan(0.2);
    expect((await listed("bf-deferred")).vectors).toMatchObject({ backfilling: true });
    expect((await listed("bf-at-commit")).vectors).toEqual({ share: 1, backfilling: false });
    // the console's collections table (the operator's page, the operator token in the header)
    const page = await call("GET", "/dashboard/operator", { admin: svc.adminToken });
    expect(page.status).toBe(200);
    expect(page.body).toMatch(/<tr data-collection="bf-deferred">.*?<td data-vectors>[\d.]+%, backfill running<\/td>/s);
    expect(page.body).toMatch(/<tr data-collection="bf-at-commit">.*?<td data-vectors>100%<\/td>/s);

    // the backfill's activity is running on the faulty worker: kill it there
    const backfill = svc.runtime.temporal.client.workflow.getHandle(vectorBackfillWorkflowId(ingestionId));
    for (let i = 0; i < 600; i++) {
      const pending = await backfill
        .describe()
        .then((d) => d.raw.pendingActivities ?? [])
        .catch(() => []);
      if (pending.some((a) => String(a.state) === "PENDING_ACTIVITY_STATE_STARTED" || a.state === 2)) break;
      await new Promise((r) => setTimeout(r, 250));
    }
    faulty.kill("SIGKILL");
    await new Promise((r) => faulty.once("exit", r));
    spawnWorker();

    expect(await backfill.result()).toEqual({ chunks: expect.any(Number), withVectors: expect.any(Number) });
    const done = await untilIngested(call, svc.adminToken, ingestionId);
    expect(done).toMatchObject({ state: "completed", error: null });
    const history = await backfill.fetchHistory();
    // the batch the kill interrupted ran again on the other worker
    expect(history.events!.some((e) => (e.activityTaskStartedEventAttributes?.attempt ?? 1) >= 2)).toBe(true);

    // fully vectored: no note of a backfill, and the answer of the same documents embedded at commit
    // (scores within 0.01: Lucene counts a re-indexed chunk's old copy in its statistics until its segment merges)
    for (let i = 0; i < 100; i++) {
      const { chunks, withVectors } = await coverage();
      if (withVectors === chunks) break;
      await new Promise((r) => setTimeout(r, 250));
    }
    const after = await search("bf-deferred");
    expect(after.vectorsBackfilling).toBeUndefined();
    const reference = await search("bf-at-commit");
    expect(reference.vectorsBackfilling).toBeUndefined();
    expect(rows(after).map((r) => r.slice(0, 60))).toEqual(rows(reference).map((r) => r.slice(0, 60)));
    after.results.forEach((r: { relevance: number }, k: number) =>
      expect(r.relevance).toBeCloseTo(reference.results[k].relevance, 1),
    );
    expect((await listed("bf-deferred")).vectors).toEqual({ share: 1, backfilling: false });
  }, 600_000);
});
