// The embedded engine and the OpenSearch adapter rank the same SciFact chunks identically (sparse, dense, hybrid,
// with filters), analyze text identically, and both treat re-indexing as a no-op. Needs a real OpenSearch node.
import { mkdtempSync, rmSync } from "node:fs";
import { createServer, request as httpRequest, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { FilterNode } from "../../src/filters/ast.js";
import { createEmbeddedEngine } from "../../src/retrieval/engines/embedded/embeddedEngine.js";
import { analyzeEnglish } from "../../src/text/englishAnalyzer.js";
import { efSearchFor } from "../../src/retrieval/engines/opensearch/denseScoring.js";
import { createOpenSearchEngine } from "../../src/retrieval/engines/opensearch/openSearchEngine.js";
import type { ChunkRecord, RetrievalMode, SearchEngine, SearchHit } from "../../src/retrieval/port.js";
import { requireComponent } from "../setup/components.js";
import { loadScifactChunks, loadScifactQueries, pseudoRandomVector } from "./scifactFixture.js";

const DIMS = 384;
const INDEX = "scifact-parity";
const FILTERS: Array<FilterNode | undefined> = [
  undefined,
  { kind: "range", field: "publication_date", bounds: { gte: "2005", lte: "2012-06" } },
  { kind: "not", child: { kind: "eq", field: "issn", value: "0000-0001" } },
  { kind: "in", field: "journal", values: ["nature", "CELL"] },
  {
    kind: "and",
    children: [
      { kind: "eq", field: "open_access", value: true },
      {
        kind: "or",
        children: [
          { kind: "eq", field: "publication_date", value: "2014" },
          { kind: "eq", field: "article_type", value: "review" },
        ],
      },
    ],
  },
  { kind: "not", child: { kind: "exists", field: "issn" } },
];

describe("embedded and OpenSearch engines agree", () => {
  let url: string;
  let dir: string;
  let embedded: SearchEngine;
  let opensearch: ReturnType<typeof createOpenSearchEngine>;
  let chunks: ChunkRecord[];

  beforeAll(async () => {
    // fails (does not skip) when the run did not start OpenSearch
    url = requireComponent("opensearchUrl");
    dir = mkdtempSync(join(tmpdir(), "engine-parity-"));
    embedded = createEmbeddedEngine({ dir });
    opensearch = createOpenSearchEngine({ url, indexPrefix: `parity-${process.pid}-` });
    // Vectors are pseudo-random, seeded from the text: parity needs identical inputs, not meaning.
    // The real embedding model is exercised by the embedding and quality tests.
    chunks = loadScifactChunks(300, DIMS);
    for (const engine of [embedded, opensearch]) {
      await engine.ensureIndex(INDEX, DIMS);
      await engine.indexChunks(INDEX, chunks);
      await engine.commit(INDEX);
    }
  });

  afterAll(async () => {
    await opensearch?.deleteIndex(INDEX);
    await opensearch?.close();
    await embedded?.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it("reports how the node scores vectors", async () => {
    const storage = await opensearch.vectorStorage();
    expect(["binary", "knn"]).toContain(storage);
    console.log(
      "[engine parity] OpenSearch vector scoring: " +
        `${storage === "knn" ? "k-NN plugin" : "painless script over binary doc values"}`,
    );
    expect(await opensearch.ping()).toBe(true);
    expect((await opensearch.stats(INDEX)).chunks).toBe(300);
  });

  it("analyzes titles, abstracts and queries into the same terms as the english analyzer", async () => {
    const texts = [
      ...chunks.slice(0, 100).flatMap((chunk) => [chunk.metadata.title as string, chunk.text]),
      ...loadScifactQueries(50).map((q) => q.text),
    ];
    for (const text of texts) {
      const response = await fetch(`${url}/_analyze`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ analyzer: "english", text }),
      });
      const { tokens } = (await response.json()) as { tokens: Array<{ token: string }> };
      expect(analyzeEnglish(text)).toEqual(tokens.map((token) => token.token));
    }
  });

  const modes: RetrievalMode[] = ["sparse", "dense", "hybrid"];
  for (const mode of modes) {
    it(`returns the same top 10 in ${mode} mode, with and without filters`, async () => {
      const queries = loadScifactQueries(25);
      let compared = 0;
      let nonEmpty = 0;
      for (const filter of FILTERS) {
        for (const query of queries) {
          const request = {
            index: INDEX,
            mode,
            text: query.text,
            vector: pseudoRandomVector(query.text, DIMS),
            limit: 10,
            filter,
          };
          const [fromEmbedded, fromOpenSearch] = await Promise.all([
            embedded.search(request),
            opensearch.search(request),
          ]);
          const where = `${mode} "${query.text}" filter ${JSON.stringify(filter)}`;
          expect(
            fromOpenSearch.map((hit) => hit.id),
            where,
          ).toEqual(fromEmbedded.map((hit) => hit.id));
          fromEmbedded.forEach((hit, i) => expectSameScores(hit, fromOpenSearch[i], where));
          compared++;
          if (fromEmbedded.length > 0) nonEmpty++;
        }
      }
      expect(compared).toBe(FILTERS.length * 25);
      expect(nonEmpty).toBeGreaterThan(compared * 0.9);
    });

    it(`returns no hits in ${mode} mode when the filter leaves no chunk`, async () => {
      const text = loadScifactQueries(1)[0]!.text;
      const request = {
        index: INDEX,
        mode,
        text,
        vector: pseudoRandomVector(text, DIMS),
        limit: 10,
        filter: { kind: "eq", field: "journal", value: "No Such Journal Anywhere" } as FilterNode,
      };
      expect(await embedded.search(request)).toEqual([]);
      expect(await opensearch.search(request)).toEqual([]);
    });
  }

  it("asks OpenSearch for both hybrid retrievers and ceiling at once, then rows; no painless with k-NN", async () => {
    const recorder = await startRecordingProxy(url);
    const engine = createOpenSearchEngine({ url: recorder.url, indexPrefix: `parity-${process.pid}-` });
    try {
      const knn = (await engine.vectorStorage()) === "knn";
      const chunkCount = (await engine.stats(INDEX)).chunks;
      const searchOf = (mode: RetrievalMode, text: string) => ({
        index: INDEX,
        mode,
        text,
        vector: pseudoRandomVector(text, DIMS),
        limit: 10,
      });
      // the first search reads the index's mapping, the first k-NN search its chunk count (which sets its ef_search)
      await engine.search(searchOf("sparse", "warm up"));
      await engine.search(searchOf("dense", "warm up"));
      for (const query of loadScifactQueries(25)) {
        for (const mode of modes) {
          recorder.requests.length = 0;
          const hits = await engine.search(searchOf(mode, query.text));
          const where = `${mode} "${query.text}"`;
          const paths = recorder.requests.map(
            (request) => `${request.method} ${request.path.replace(/^\/[^/]+\//, "/").replace(/\?.*$/, "")}`,
          );
          const expected = {
            sparse: ["POST /_search", "POST /_termvectors"],
            dense: ["POST /_search"],
            hybrid: ["POST /_search", "POST /_search", "POST /_termvectors", "POST /_mget"],
          }[mode];
          expect([...paths].sort(), where).toEqual([...expected].sort());
          // each answer carries only what the adapter reads (no index names, sort values or shard counts per hit)
          expect(
            recorder.requests
              .filter((request) => !request.path.includes("filter_path="))
              .map((request) => request.path),
            where,
          ).toEqual([]);
          // the rows kept are fetched after both retrievers answered: the last request, asking for the 10 best and the
          // few within the cosine error of the last of them
          if (mode === "hybrid") {
            expect(paths[3], where).toBe("POST /_mget");
            const ids = (JSON.parse(recorder.requests[3]!.body) as { ids: string[] }).ids;
            expect(ids.length, where).toBeGreaterThanOrEqual(hits.length);
            expect(ids.length, where).toBeLessThanOrEqual(hits.length + 3);
            expect(
              hits.every((hit) => ids.includes(hit.id)),
              where,
            ).toBe(true);
          }
          if (knn)
            expect(
              recorder.requests.some((request) => request.body.includes("painless")),
              where,
            ).toBe(false);
          // a small index searches its graph with the small indexes' ef_search (never below k)
          type KnnBody = { query?: { knn?: Record<string, { k: number; method_parameters: { ef_search: number } }> } };
          const knnClauses = recorder.requests
            .filter((r) => r.path.includes("/_search"))
            .flatMap((r) => Object.values((JSON.parse(r.body) as KnnBody).query?.knn ?? {}));
          if (knn) expect(knnClauses.length, where).toBe(mode === "sparse" ? 0 : 1);
          for (const field of knnClauses) {
            expect(field.method_parameters.ef_search, where).toBe(Math.max(efSearchFor(chunkCount), field.k));
          }
        }
      }
    } finally {
      await engine.close();
      await recorder.stop();
    }
  });

  it("reads a filter's few chunks in one search and the ceiling, the same rows; more: the usual search", async () => {
    const recorder = await startRecordingProxy(url);
    const engine = createOpenSearchEngine({ url: recorder.url, indexPrefix: `parity-${process.pid}-` });
    const drops = () => false;
    const rowsOf = (hits: readonly SearchHit[]) =>
      hits.map((h) => ({ id: h.id, score: h.score, dense: h.dense, sparse: h.sparse, chunk: h.chunk }));
    try {
      // the first searches read the index's mapping, chunk count and vector coverage (kept, and read again behind
      // later searches now and then: not counted)
      await engine.search({
        index: INDEX,
        mode: "hybrid",
        text: "warm up",
        vector: pseudoRandomVector("w", DIMS),
        limit: 5,
      });
      let compared = 0;
      for (const [q, query] of loadScifactQueries(12).entries()) {
        const vector = pseudoRandomVector(query.text, DIMS);
        const top = await opensearch.search({ index: INDEX, mode: "hybrid", text: query.text, vector, limit: 30 });
        // works near the top of the whole list, in its middle, and anywhere in the index (an alert's new works)
        const docs = [
          ...[1, 4, 12, 25].map((rank) => top[rank]?.chunk.metadata.doc_id),
          ...[0, 1, 2, 3].map((k) => chunks[(q * 37 + k * 53) % chunks.length]!.metadata.doc_id),
        ];
        const filter: FilterNode = { kind: "in", field: "doc_id", values: [...new Set(docs.map(String))] };
        for (const mode of modes) {
          const where = `${mode} "${query.text}"`;
          // as an alert's run asks: 200 rows deep, keeping 200 documents
          const request = {
            index: INDEX,
            mode,
            text: query.text,
            vector,
            limit: 200,
            keep: { rows: 200, drops },
            filter,
          };
          const own = await opensearch.search(request);
          recorder.requests.length = 0;
          const few = await engine.search({ ...request, few: true });
          expect(rowsOf(few), where).toEqual(rowsOf(own));
          expect(
            (await embedded.search({ ...request, few: true })).map((h) => h.id),
            where,
          ).toEqual(own.map((h) => h.id));
          const paths = recorder.requests
            .map((r) => `${r.method} ` + `${r.path.replace(/^\/[^/]+\//, "/").replace(/\?.*$/, "")}`)
            .filter((path) => path !== "GET /_count");
          expect(paths.sort(), where).toEqual(
            mode === "dense" ? ["POST /_search"] : ["POST /_search", "POST /_termvectors"],
          );
          compared += own.length;
        }
        // a filter that selects more chunks than a retriever takes for 3 rows (100), and one that selects fewer than
        // it takes for 200 (1,000) but more than one search reads whole (100): the mode's own search, its rows
        const wide: FilterNode = { kind: "not", child: { kind: "in", field: "doc_id", values: [String(docs[0])] } };
        for (const limit of [3, 200]) {
          const request = { index: INDEX, mode: "hybrid" as const, text: query.text, vector, limit, filter: wide };
          recorder.requests.length = 0;
          expect(rowsOf(await engine.search({ ...request, few: true }))).toEqual(
            rowsOf(await opensearch.search(request)),
          );
          expect(recorder.requests.some((r) => r.path.includes("/_mget"))).toBe(true);
          // the search that found too many read no more than 101 chunks whole
          const sizes = recorder.requests
            .filter((r) => r.path.includes("/_search") && r.body.includes('"_source":true'))
            .map((r) => (JSON.parse(r.body) as { size: number }).size);
          expect(sizes, `${limit}`).toEqual([101]);
        }
      }
      expect(compared).toBeGreaterThan(12 * 3 * 4);
    } finally {
      await engine.close();
      await recorder.stop();
    }
  });

  it("returns stored chunks unchanged, vectors included", async () => {
    const wanted = [chunks[0].id, "no-such-chunk", chunks[17].id];
    const [fromOpenSearch, fromEmbedded] = await Promise.all([
      opensearch.getChunks(INDEX, wanted),
      embedded.getChunks(INDEX, wanted),
    ]);
    expect(fromOpenSearch).toEqual([chunks[0], chunks[17]]);
    expect(fromEmbedded).toEqual([chunks[0], chunks[17]]);
  });

  it("treats re-indexing the same chunks as a no-op in OpenSearch too", async () => {
    const request = {
      index: INDEX,
      mode: "hybrid" as const,
      text: "vitamin D deficiency",
      vector: pseudoRandomVector("vitamin D", DIMS),
      limit: 10,
    };
    const before = await opensearch.search(request);
    await opensearch.indexChunks(INDEX, chunks);
    await opensearch.commit(INDEX);
    expect((await opensearch.stats(INDEX)).chunks).toBe(300);
    // unchanged chunks are skipped, so no deleted documents skew BM25 statistics
    expect(await opensearch.search(request)).toEqual(before);
  });

  it("fails loudly when a chunk cannot be indexed", async () => {
    const bad = {
      ...chunks[0],
      id: "bad-date-type",
      metadata: { ...chunks[0].metadata, open_access: "maybe" as unknown as boolean },
    };
    await expect(opensearch.indexChunks(INDEX, [bad])).rejects.toThrow(/failed to index/);
  });
});

function expectSameScores(embeddedHit: SearchHit, openSearchHit: SearchHit, where: string): void {
  if (embeddedHit.sparse === undefined) expect(openSearchHit.sparse, where).toBeUndefined();
  else {
    // Lucene's float BM25 (one-byte length norms included) is replicated, so this tolerance is only a margin
    const tolerance = 1e-5 * embeddedHit.sparse;
    expect(Math.abs((openSearchHit.sparse as number) - embeddedHit.sparse), where).toBeLessThanOrEqual(tolerance);
  }
  if (embeddedHit.dense === undefined) expect(openSearchHit.dense, where).toBeUndefined();
  else expect(openSearchHit.dense as number, where).toBeCloseTo(embeddedHit.dense, 9);
  expect(openSearchHit.score, where).toBeCloseTo(embeddedHit.score, 6);
}

interface RecordedRequest {
  method: string;
  path: string;
  body: string;
}

/** An HTTP proxy in front of the node that records each request the adapter sends, in the order they arrive. */
async function startRecordingProxy(
  target: string,
): Promise<{ url: string; requests: RecordedRequest[]; stop(): Promise<void> }> {
  const upstream = new URL(target);
  const requests: RecordedRequest[] = [];
  const server: Server = createServer((incoming, outgoing) => {
    const chunks: Buffer[] = [];
    incoming.on("data", (chunk: Buffer) => chunks.push(chunk));
    incoming.on("end", () => {
      const body = Buffer.concat(chunks);
      requests.push({ method: incoming.method ?? "", path: incoming.url ?? "", body: body.toString("utf8") });
      const forwarded = httpRequest(
        {
          host: upstream.hostname,
          port: upstream.port,
          method: incoming.method,
          path: incoming.url,
          headers: { ...incoming.headers, host: upstream.host },
        },
        (answer) => {
          outgoing.writeHead(answer.statusCode ?? 502, answer.headers);
          answer.pipe(outgoing);
        },
      );
      forwarded.on("error", () => outgoing.destroy());
      forwarded.end(body);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", () => resolve()));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    requests,
    stop: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
