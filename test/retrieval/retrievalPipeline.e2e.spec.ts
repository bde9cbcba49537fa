// The search pipeline over HTTP, on the embedded engine and on a real OpenSearch node: collections, meta-collections,
// scope, the request options of /query and /{collection}, the one-scale reranker, retractions, fragments, figures
// and 503 when the engine stops answering. Real Temporal, PGlite, embedding model and engines; nothing mocked.
import { rmSync } from "node:fs";
import { join } from "node:path";
import sharp from "sharp";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { chunkId, isFragment } from "../../src/ingest/chunk.js";
import { prepareCollection } from "../../src/ingest/pipelineRules.js";
import { parseMedlineXml } from "../../src/ingest/medlineReader.js";
import { readText } from "../../src/ingest/sourceFiles.js";
import { readOpenAlexWorks } from "../../src/ingest/openAlexReader.js";
import { loadRetractedDois } from "../../src/ingest/retractions.js";
import { quotedPercentages } from "../../src/ingest/figures/demoFigures.js";
import type { PlainCollection } from "../../src/domain/collectionDefinitions.js";
import { INDEX_RELOAD_CHECK_MS } from "../../src/app/composition.js";
import { requireComponent } from "../setup/components.js";
import { httpClient, startTestService, type TestService } from "../support/testService.js";
import {
  FRAGMENT_DOC,
  RETRACTED_CITATION,
  RETRACTED_WORKS,
  retrievalCollectionsConfig,
  retrievalDataRoot,
  SCHOLARLY_MEDLINE,
} from "./retrievalData.js";
import { startTcpProxy, type TcpProxy } from "./tcpProxy.js";

interface Result {
  id: string;
  text: string;
  metadata: {
    chunk_index: number;
    doc_id?: string;
    doi?: string;
    figures?: Array<{ id: string; label: string; caption: string; image_data?: string }>;
  };
  collection: string;
  relevance: number;
}

const MEMBERS = ["openalex-synergy", "scifact", "clinical-digest"];

for (const engineKind of ["embedded", "opensearch"] as const) {
  describe(`search pipeline over HTTP on the ${engineKind} engine`, () => {
    let svc: TestService;
    let call: ReturnType<typeof httpClient>;
    let dataRoot: string;
    let proxy: TcpProxy | undefined;
    let key: string;
    let orgId: string;

    const admin = () => svc.adminToken;
    const query = (body: Record<string, unknown>, withKey = key) =>
      call("POST", "/api/v1/search/query", { key: withKey, body });
    const results = (res: { body: { results: Result[] } }): Result[] => res.body.results;
    const collectionOf = (name: string): PlainCollection => {
      const entry = svc.runtime.catalog.resolveCollection(name);
      if (!entry || entry.type !== "plain") throw new Error(`no plain collection ${name}`);
      return entry;
    };

    async function liveKey(collections?: string[]): Promise<{ key: string; orgId: string }> {
      const org = await call("POST", "/admin/v1/organizations", {
        admin: admin(),
        body: { name: "Retrieval lab", limits: { perMinute: 100_000, daily: 1_000_000, monthly: 10_000_000 } },
      });
      expect(org.status).toBe(201);
      expect(
        (
          await call("POST", `/admin/v1/organizations/${org.body.id}/credits`, {
            admin: admin(),
            body: { amount: "1000.00" },
          })
        ).status,
      ).toBe(200);
      const created = await call("POST", `/admin/v1/organizations/${org.body.id}/keys`, {
        admin: admin(),
        body: { mode: "live", ...(collections ? { collections } : {}) },
      });
      expect(created.status).toBe(201);
      return { key: created.body.key, orgId: org.body.id };
    }

    function expectResultShape(list: Result[], collections: string | string[]): void {
      for (const r of list) {
        expect(r).toMatchObject({ id: expect.any(String), text: expect.any(String) });
        expect([collections].flat()).toContain(r.collection);
        expect(Number.isInteger(r.metadata.chunk_index)).toBe(true);
        expect(r.relevance).toBeGreaterThanOrEqual(0);
        expect(r.relevance).toBeLessThanOrEqual(1);
        expect(Math.round(r.relevance * 1000) / 1000).toBe(r.relevance);
      }
      const relevances = list.map((r) => r.relevance);
      expect([...relevances].sort((a, b) => b - a)).toEqual(relevances);
    }

    beforeAll(async () => {
      dataRoot = await retrievalDataRoot();
      const collectionsConfig = retrievalCollectionsConfig(dataRoot);
      if (engineKind === "opensearch") proxy = await startTcpProxy(requireComponent("opensearchUrl"));
      svc = await startTestService({ dataRoot, collectionsConfig, opensearchUrl: proxy?.url });
      expect(svc.runtime.engine.kind).toBe(engineKind);
      call = httpClient(svc.baseUrl);
      ({ key, orgId } = await liveKey());
    }, 900_000);

    afterAll(async () => {
      await svc?.close();
      await proxy?.stop();
      if (dataRoot) rmSync(dataRoot, { recursive: true, force: true });
    });

    it("resolves collection names in any case; answers the search result shape, limit 1..30 default 10", async () => {
      const res = await query({ collection: "SciFact", query: "vitamin D and bone density" });
      expect(res.status).toBe(200);
      expect(results(res)).toHaveLength(10);
      expectResultShape(results(res), "scifact");
      expect(res.body.queryId).toEqual(expect.any(String));
      expect(Number.isInteger(res.body.latencyMs)).toBe(true);
      const three = await query({ collections: ["SCIFACT"], query: "vitamin D and bone density", limit: 3 });
      expect(results(three).map((r) => r.id)).toEqual(
        results(res)
          .slice(0, 3)
          .map((r) => r.id),
      );
      expect(results(three)[0]!.collection).toBe("scifact");
      const bare = await query({
        collection: "scifact",
        query: "vitamin D and bone density",
        limit: 2,
        include_metadata: false,
      });
      // without metadata the same results come back with metadata null (the spec: present when metadata is included)
      expect(results(bare)).toEqual(
        results(res)
          .slice(0, 2)
          .map((r) => ({ ...r, metadata: null })),
      );
      for (const limit of [0, 31])
        expect((await query({ collection: "scifact", query: "vitamin D", limit })).status).toBe(422);
    });

    it("validates: one of collection/collections, at most 5; the caller cannot pick the retrieval mode", async () => {
      for (const body of [
        { query: "insulin" },
        { collection: "scifact", collections: ["scifact"], query: "insulin" },
        { collections: ["scifact", "a", "b", "c", "d", "e"], query: "insulin" },
      ]) {
        const res = await query(body);
        expect([res.status, res.body.error.code]).toEqual([422, "VALIDATION_ERROR"]);
      }
      const five = await query({
        collections: ["scifact", "SCIFACT", "biomedical", "clinical-digest", "openalex-synergy"],
        query: "insulin resistance",
        limit: 5,
      });
      expect(five.status).toBe(200);
      // the retrieval mode is the collection's: a field that tries to pick one is refused by name, not silently ignored
      for (const [field, value] of [
        ["mode", "sparse"],
        ["retrieval", "dense"],
        ["retrieval_mode", "sparse"],
      ] as const) {
        const res = await query({ collection: "scifact", query: "insulin resistance", limit: 5, [field]: value });
        expect([res.status, res.body.error.code]).toEqual([422, "VALIDATION_ERROR"]);
        expect(res.body.error.message).toContain(field);
      }
    });

    it("rejects queries with nothing to search (422 INVALID_QUERY), lets short ids pass, slows repeats", async () => {
      const { key: guarded } = await liveKey();
      for (const text of ["   ", "?!?!", "a", "aaaaaa", "cancer cancer cancer", "the of and"]) {
        const res = await query({ collection: "scifact", query: text }, guarded);
        expect([text, res.status, res.body.error?.code]).toEqual([text, 422, "INVALID_QUERY"]);
      }
      for (const text of ["BRCA1", "p53", "IL-6"])
        expect((await query({ collection: "scifact", query: text, limit: 1 }, guarded)).status).toBe(200);
      // the guard counts rejections per clock minute: 31 in one minute must be refused. A burst that straddles the
      // minute's end fills neither window, so send up to 62 (a burst of well under a second crosses one boundary at
      // most)
      let last = await query({ collection: "scifact", query: "!!!" }, guarded);
      for (let i = 0; i < 61 && last.status !== 429; i++)
        last = await query({ collection: "scifact", query: "!!!" }, guarded);
      expect([last.status, last.body.error.code]).toEqual([429, "SEARCH_RATE_LIMITED"]);
      expect(Number(last.headers.get("retry-after"))).toBeGreaterThan(0);
    });

    it("serves the shorthand with camelCase fields and rejects a collection key in its body with 422", async () => {
      const res = await call("POST", "/api/v1/search/ScIfAcT", {
        key,
        body: { query: "insulin resistance in obesity", limit: 2 },
      });
      expect(res.status).toBe(200);
      expect(results(res)).toHaveLength(2);
      expectResultShape(results(res), "scifact");
      const bare = await call("POST", "/api/v1/search/ScIfAcT", {
        key,
        body: { query: "insulin resistance in obesity", limit: 2, includeMetadata: false },
      });
      expect(bare.status).toBe(200);
      expect(results(bare)).toEqual(results(res).map((r) => ({ ...r, metadata: null })));
      for (const extra of [{ collection: "scifact" }, { collections: ["scifact"] }]) {
        const rejected = await call("POST", "/api/v1/search/scifact", {
          key,
          body: { query: "insulin resistance", ...extra },
        });
        expect([rejected.status, rejected.body.error.code]).toEqual([422, "VALIDATION_ERROR"]);
      }
    });

    it("searches every member of a meta-collection and bills it as one unit", async () => {
      const res = await query({
        collection: "Biomedical",
        query: "randomized trial of treatment in patients",
        limit: 30,
      });
      expect(res.status).toBe(200);
      const list = results(res);
      expectResultShape(list, "biomedical");
      const memberOf = (r: Result) =>
        MEMBERS.find((m) => chunkId(m, String(r.metadata.doc_id), r.metadata.chunk_index) === r.id);
      const members = list.map(memberOf);
      expect(members.every((m) => m !== undefined)).toBe(true);
      expect(new Set(members).size).toBeGreaterThanOrEqual(2);
      const events = await svc.runtime.db.query<{
        data: {
          collections: Array<{ collection: string; tokens: number; amountMicros: string }>;
          amountMicros: string;
        };
      }>(`SELECT data FROM events WHERE type = 'SearchCharged' AND data->>'queryId' = $1`, [res.body.queryId]);
      expect(events).toHaveLength(1);
      const lines = events[0]!.data.collections;
      expect(lines.map((l) => l.collection)).toEqual(["biomedical"]);
      // one line for the unit: member prices per row, rounded once
      let numerator = 0n;
      let tokens = 0;
      for (const [i, r] of list.entries()) {
        const member = collectionOf(members[i]!);
        const [chunk] = await svc.runtime.engine.getChunks(member.name, [r.id]);
        tokens += chunk!.tokens;
        numerator += BigInt(chunk!.tokens) * BigInt(Math.round(Number(member.pricePer1000) * 1_000_000));
      }
      expect(lines[0]!.tokens).toBe(tokens);
      expect(lines[0]!.amountMicros).toBe(((numerator + 500n) / 1000n).toString());
      expect(Number(res.headers.get("x-tokens-used"))).toBe(tokens);
    });

    it("returns and bills a chunk once when a meta-collection is searched beside one of its members", async () => {
      const res = await query({
        collections: ["biomedical", "scifact"],
        query: "statin therapy cardiovascular mortality",
        limit: 10,
      });
      expect(res.status).toBe(200);
      const list = results(res);
      expect(list).toHaveLength(10);
      expect(new Set(list.map((r) => r.id)).size).toBe(list.length);
      const events = await svc.runtime.db.query<{ data: { tokens: number; resultIds: string[] } }>(
        `SELECT data FROM events WHERE type = 'SearchCharged' AND data->>'queryId' = $1`,
        [res.body.queryId],
      );
      expect(events[0]!.data.resultIds).toEqual(list.map((r) => r.id));
      let tokens = 0;
      for (const r of list)
        tokens += (
          await svc.runtime.engine.getChunks(
            String(
              collectionOf(MEMBERS.find((m) => chunkId(m, String(r.metadata.doc_id), r.metadata.chunk_index) === r.id)!)
                .name,
            ),
            [r.id],
          )
        )[0]!.tokens;
      expect([events[0]!.data.tokens, Number(res.headers.get("x-tokens-used"))]).toEqual([tokens, tokens]);
    });

    it("enforces the key scope (403 NO_COLLECTION_ACCESS) and unknown names (404 COLLECTION_NOT_FOUND)", async () => {
      const scoped = await liveKey(["scifact"]);
      for (const collection of ["biomedical", "clinical-digest", "OpenAlex-Synergy"]) {
        const res = await query({ collection, query: "insulin resistance" }, scoped.key);
        expect([res.status, res.body.error.code]).toEqual([403, "NO_COLLECTION_ACCESS"]);
      }
      expect((await query({ collection: "SCIFACT", query: "insulin resistance" }, scoped.key)).status).toBe(200);
      for (const body of [{ collection: "no-such-collection" }, { collections: ["scifact", "no-such-collection"] }]) {
        const res = await query({ ...body, query: "insulin resistance" });
        expect([res.status, res.body.error.code]).toEqual([404, "COLLECTION_NOT_FOUND"]);
      }
    });

    it("merges collections on one relevance scale: a strong match wins whichever collection holds it", async () => {
      const works: Array<{ doc_id: string; title: string }> = [];
      for await (const work of readOpenAlexWorks(join(dataRoot, "articles", "openalex_works.synergy.jsonl.gz"))) {
        if (work.title && work.sections.some((s) => s.text.length > 200) && !work.retracted)
          works.push({ doc_id: work.doc_id, title: work.title });
      }
      // an exact title from the sparse collection beats the hybrid collection's (weak) best matches
      const work = works[3]!;
      const sparseWins = await query({ collections: ["scifact", "openalex-synergy"], query: work.title, limit: 10 });
      expect(sparseWins.status).toBe(200);
      expectResultShape(results(sparseWins), ["scifact", "openalex-synergy"]);
      expect(results(sparseWins)[0]).toMatchObject({
        collection: "openalex-synergy",
        metadata: { doc_id: work.doc_id },
      });
      // and an exact SciFact title beats every OpenAlex hit, although the best OpenAlex hit is the top of its own list
      const scifactTitle = "Vitamin D status and bone mineral density";
      const [scifactDoc] = await svc.runtime.engine.search({
        index: "scifact",
        mode: "sparse",
        text: scifactTitle,
        limit: 1,
      });
      const title = String(scifactDoc!.chunk.metadata.title);
      const hybridWins = await query({ collections: ["openalex-synergy", "scifact"], query: title, limit: 10 });
      expect(results(hybridWins)[0]).toMatchObject({
        collection: "scifact",
        metadata: { doc_id: scifactDoc!.chunk.metadata.doc_id },
      });
      const alone = await query({ collection: "openalex-synergy", query: title, limit: 10 });
      const merged = new Map(results(hybridWins).map((r) => [r.id, r.relevance]));
      // one scale: a chunk's relevance does not depend on what else was searched
      for (const r of results(alone)) if (merged.has(r.id)) expect(merged.get(r.id)).toBe(r.relevance);
      expect(results(alone)[0]!.relevance).toBeLessThan(results(hybridWins)[0]!.relevance);
    });

    it("never returns retracted articles from scholarly collections", async () => {
      // the source slice holds them: OpenAlex flags two, and the MEDLINE citation's DOI is on the retraction list
      const flagged = new Set<string>();
      for await (const work of readOpenAlexWorks(join(dataRoot, "articles", "openalex_works.synergy.jsonl.gz")))
        if (work.retracted) flagged.add(work.doc_id);
      expect([...flagged].sort()).toEqual(RETRACTED_WORKS.map((w) => w.docId).sort());
      expect((await loadRetractedDois(dataRoot)).has(RETRACTED_CITATION.doi)).toBe(true);
      const dois: string[] = [];
      const medline = await readText(join(dataRoot, "articles", "pubmed_medline16n0902_sample.xml.gz"));
      for (const citation of parseMedlineXml(medline).citations) if (citation.doi) dois.push(citation.doi);
      expect(dois).toContain(RETRACTED_CITATION.doi);

      for (const work of RETRACTED_WORKS) {
        for (const collection of ["openalex-synergy", "openalex-open-access", "biomedical"]) {
          const res = await query({ collection, query: work.title, limit: 30 });
          expect(res.status).toBe(200);
          expect(results(res).length).toBeGreaterThan(0);
          expect(results(res).map((r) => r.metadata.doc_id)).not.toContain(work.docId);
        }
      }
      const res = await query({ collection: SCHOLARLY_MEDLINE, query: RETRACTED_CITATION.title, limit: 30 });
      expect(res.status).toBe(200);
      expect(results(res).length).toBeGreaterThan(0);
      expect(results(res).map((r) => r.metadata.doi)).not.toContain(RETRACTED_CITATION.doi);
      expect(results(res).map((r) => r.metadata.doc_id)).not.toContain(RETRACTED_CITATION.pmid);
    });

    it("never returns short fragments such as isolated headings", async () => {
      const tokenizer = svc.runtime.embedder.tokenizer;
      for (const [collection, text] of [
        ["scifact", `${FRAGMENT_DOC.title} ${FRAGMENT_DOC.text}`],
        ["biomedical", "methods results conclusions"],
        [SCHOLARLY_MEDLINE, "background objective"],
      ]) {
        const res = await query({ collection, query: text, limit: 30 });
        expect(res.status).toBe(200);
        expect(results(res).length).toBeGreaterThan(0);
        for (const r of results(res)) {
          expect(r.metadata.doc_id).not.toBe(FRAGMENT_DOC._id);
          expect(isFragment(r.text, tokenizer.count(r.text))).toBe(false);
        }
      }
    });

    it("returns figures as JPEG within the requested bounds, free, with includeImages as shorthand alias", async () => {
      const prepared = await prepareCollection({
        collection: collectionOf("clinical-digest"),
        dataRoot,
        tokenizer: svc.runtime.embedder.tokenizer,
        retracted: await loadRetractedDois(dataRoot),
      });
      const withChart = prepared.records.find((r) => quotedPercentages(r.text).length >= 2 && r.metadata.title);
      expect(withChart).toBeDefined();
      const text = `${withChart!.metadata.title}`;
      const find = (res: { body: { results: Result[] } }) => results(res).find((r) => r.id === withChart!.id);

      const plain = await query({ collection: "clinical-digest", query: text, limit: 10 });
      expect(plain.status).toBe(200);
      expect(find(plain)?.metadata.figures).toEqual([
        {
          id: `${withChart!.id}-fig1`,
          label: "Figure 1 (generated)",
          caption: expect.stringMatching(/^Generated chart, not from the article/),
        },
      ]);

      const small = await query({
        collection: "clinical-digest",
        query: text,
        limit: 10,
        include_figures: true,
        image_max_width: 300,
        image_max_height: 150,
        image_quality: 20,
      });
      const large = await query({
        collection: "clinical-digest",
        query: text,
        limit: 10,
        include_figures: true,
        image_max_width: 300,
        image_max_height: 150,
        image_quality: 95,
      });
      const byDefault = await query({ collection: "clinical-digest", query: text, limit: 10, include_figures: true });
      const images: Buffer[] = [];
      for (const res of [small, large, byDefault]) {
        expect(res.status).toBe(200);
        // figures are never charged: the same rows cost the same with and without images
        expect(res.headers.get("x-tokens-used")).toBe(plain.headers.get("x-tokens-used"));
        expect(res.headers.get("x-query-cost")).toBe(plain.headers.get("x-query-cost"));
        const figure = find(res)!.metadata.figures![0]!;
        images.push(Buffer.from(figure.image_data!, "base64"));
      }
      const [smallMeta, largeMeta, defaultMeta] = await Promise.all(images.map((image) => sharp(image).metadata()));
      for (const meta of [smallMeta!, largeMeta!]) {
        expect(meta.format).toBe("jpeg");
        // 1200 x 800 source, fitted inside 300 x 150 with its aspect ratio kept
        expect([meta.width, meta.height]).toEqual([225, 150]);
      }
      expect(images[0]!.length).toBeLessThan(images[1]!.length);
      expect(defaultMeta!.format).toBe("jpeg");
      expect(defaultMeta!.width).toBeLessThanOrEqual(800);
      expect(defaultMeta!.height).toBeLessThanOrEqual(600);

      for (const flag of ["includeFigures", "includeImages"]) {
        const res = await call("POST", "/api/v1/search/clinical-digest", {
          key,
          body: { query: text, limit: 10, [flag]: true, imageMaxWidth: 120, imageMaxHeight: 100 },
        });
        expect(res.status).toBe(200);
        const meta = await sharp(Buffer.from(find(res)!.metadata.figures![0]!.image_data!, "base64")).metadata();
        expect([meta.format, meta.width, meta.height]).toEqual(["jpeg", 120, 80]);
      }

      // figures asked for without metadata: a row with figures carries them alone in metadata, the others carry null
      const figuresOnly = [
        await query({
          collection: "clinical-digest",
          query: text,
          limit: 10,
          include_figures: true,
          include_metadata: false,
        }),
        await call("POST", "/api/v1/search/clinical-digest", {
          key,
          body: { query: text, limit: 10, includeFigures: true, includeMetadata: false },
        }),
      ];
      for (const res of figuresOnly) {
        expect(res.status).toBe(200);
        expect(results(res).map((r) => r.id)).toEqual(results(plain).map((r) => r.id));
        expect(find(res)!.metadata).toEqual({
          figures: [{ ...find(plain)!.metadata.figures![0]!, image_data: expect.any(String) }],
        });
        for (const r of results(res))
          expect(r.metadata === null).toBe(results(plain).find((p) => p.id === r.id)!.metadata.figures === undefined);
      }
    });

    it("answers 503 SERVICE_UNAVAILABLE and charges nothing while the engine does not answer", async () => {
      const before = (await call("GET", `/admin/v1/organizations/${orgId}/balance`, { admin: admin() })).body.balance;
      if (engineKind === "opensearch") await proxy!.stop();
      else {
        rmSync(join(svc.dataDir, "index", "scifact"), { recursive: true, force: true });
        // the service notices a change of its index files at its next check
        await new Promise((resolve) => setTimeout(resolve, INDEX_RELOAD_CHECK_MS + 100));
      }
      const res = await query({ collection: "scifact", query: "insulin resistance" });
      expect([res.status, res.body.error.code]).toEqual([503, "SERVICE_UNAVAILABLE"]);
      expect((await call("GET", `/admin/v1/organizations/${orgId}/balance`, { admin: admin() })).body.balance).toBe(
        before,
      );
      if (engineKind === "opensearch") {
        expect((await call("GET", "/readyz")).status).toBe(503);
        await proxy!.start();
        expect((await query({ collection: "scifact", query: "insulin resistance" })).status).toBe(200);
      }
    });
  });
}
