// Embedded engine: the english analyzer, Lucene-exact BM25, dense and hybrid ranking, pre-filtering, persistence and
// idempotent upserts.
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { createVectorMatrix } from "../../src/retrieval/engines/embedded/denseKernel.js";
import { createEmbeddedEngine } from "../../src/retrieval/engines/embedded/embeddedEngine.js";
import { analyzeEnglish, ENGLISH_STOP_WORDS, tokenizeStandard } from "../../src/text/englishAnalyzer.js";
import { decodeLengthNorm, encodeLengthNorm } from "../../src/text/luceneBm25.js";
import { stemPorter } from "../../src/text/porterStemmer.js";
import { BM25_B, BM25_K1, dotProduct, HYBRID_ALPHA } from "../../src/retrieval/fusion.js";
import type { ChunkRecord, SearchEngine } from "../../src/retrieval/port.js";
import { loadScifactChunks, loadScifactQueries, pseudoRandomVector, SCIFACT_SAMPLE_DIR } from "./scifactFixture.js";

describe("analyzeEnglish (OpenSearch english analyzer)", () => {
  it("removes the 33 Lucene English stop words and nothing else", () => {
    expect(ENGLISH_STOP_WORDS.size).toBe(33);
    expect(analyzeEnglish("The effect of the drug is not such that they will be there")).toEqual(["effect", "drug"]);
    // "over", "we", "which" are not in Lucene's list
    expect(analyzeEnglish("over we which")).toEqual(["over", "we", "which"]);
  });

  it("stems with Lucene's Porter stemmer", () => {
    expect(analyzeEnglish("running runs")).toEqual(["run", "run"]);
    expect(analyzeEnglish("generalizations relational probably")).toEqual(["gener", "relat", "probabl"]);
    // short-word cases where Lucene differs from other Porter implementations
    expect(stemPorter("ies")).toBe("i");
    expect(stemPorter("eed")).toBe("eed");
    expect(stemPorter("sses")).toBe("ss");
  });

  it("strips English possessives, including the typographic apostrophe", () => {
    expect(analyzeEnglish("the dog's bone, Alzheimer’s disease")).toEqual(["dog", "bone", "alzheim", "diseas"]);
  });

  it("splits words like the standard tokenizer (UAX#29)", () => {
    expect(tokenizeStandard("3.5-fold 1,000 IL-6 U.S.A. foo_bar can't a:b x1y2 β-catenin 中文")).toEqual([
      "3.5",
      "fold",
      "1,000",
      "IL",
      "6",
      "U.S.A",
      "foo_bar",
      "can't",
      "a:b",
      "x1y2",
      "β",
      "catenin",
      "中",
      "文",
    ]);
    expect(analyzeEnglish("  ...  ")).toEqual([]);
  });
});

describe("Lucene length norm", () => {
  it("keeps lengths below 24 exact and rounds longer ones down to 4 significant bits", () => {
    for (let length = 0; length < 24; length++) expect(decodeLengthNorm(encodeLengthNorm(length))).toBe(length);
    expect(decodeLengthNorm(encodeLengthNorm(100))).toBe(96);
    for (let length = 24; length < 5000; length += 7) {
      const decoded = decodeLengthNorm(encodeLengthNorm(length));
      expect(decoded).toBeLessThanOrEqual(length);
      expect(decoded).toBeGreaterThan(length * 0.85);
    }
  });
});

describe("dense kernel", () => {
  it("computes bit-identical dot products in WebAssembly and in JS, for any width", () => {
    for (const dims of [1, 3, 8, 13, 384]) {
      const rows = 50;
      const wasm = createVectorMatrix(rows, dims);
      const portable = createVectorMatrix(rows, dims, true);
      for (let i = 0; i < rows * dims; i++) wasm.vectors[i] = portable.vectors[i] = Math.sin(i * 12.9898) * 0.7;
      const query = pseudoRandomVector(`q${dims}`, dims);
      const fromWasm = Float64Array.from(wasm.scoreAll(query));
      const fromJs = portable.scoreAll(query);
      const [wasmRow, jsRow] = [wasm.scoreRows(query), portable.scoreRows(query)];
      for (let row = 0; row < rows; row++) {
        expect(fromWasm[row]).toBe(fromJs[row]);
        expect(fromWasm[row]).toBe(dotProduct(query, wasm.vectors, row * dims, dims));
        expect(wasmRow(row)).toBe(fromWasm[row]);
        expect(jsRow(row)).toBe(fromWasm[row]);
      }
    }
  });
});

const DIMS = 8;

function unitVector(values: number[]): Float32Array {
  const norm = Math.sqrt(values.reduce((sum, value) => sum + value * value, 0));
  return Float32Array.from(values.map((value) => value / norm));
}

function chunk(
  id: string,
  text: string,
  metadata: Partial<ChunkRecord["metadata"]> = {},
  vector?: Float32Array,
): ChunkRecord {
  return {
    id,
    text,
    tokens: text.split(" ").length,
    metadata: { chunk_index: 0, doc_id: id, ...metadata },
    vector: vector ?? pseudoRandomVector(text, DIMS),
  };
}

describe("embedded engine", () => {
  let dir: string;
  let engine: SearchEngine;

  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), "embedded-engine-"));
    engine = createEmbeddedEngine({ dir });
  });
  afterEach(async () => {
    await engine.close();
    rmSync(dir, { recursive: true, force: true });
  });

  async function indexed(chunks: ChunkRecord[], index = "docs"): Promise<void> {
    await engine.ensureIndex(index, DIMS);
    await engine.indexChunks(index, chunks);
    await engine.commit(index);
  }

  it("scores BM25 as Lucene does: idf ln(1 + (N - df + 0.5)/(df + 0.5)), k1 1.2, b 0.75, (k1 + 1) boost", async () => {
    await indexed([
      chunk("a", "common rare"),
      chunk("b", "common words only"),
      chunk("c", "common words again here"),
      chunk("d", "nothing relevant"),
    ]);
    const hits = await engine.search({ index: "docs", mode: "sparse", text: "common rare", limit: 10 });
    expect(hits.map((hit) => hit.id)).toEqual(["a", "b", "c"]);

    const docCount = 4;
    const avgdl = (2 + 3 + 4 + 2) / docCount;
    const idf = (df: number) => Math.log(1 + (docCount - df + 0.5) / (df + 0.5));
    const termScore = (df: number, freq: number, length: number) =>
      (idf(df) * (BM25_K1 + 1) * freq) / (freq + BM25_K1 * (1 - BM25_B + (BM25_B * length) / avgdl));
    expect(hits[0].sparse).toBeCloseTo(termScore(3, 1, 2) + termScore(1, 1, 2), 5);
    expect(hits[1].sparse).toBeCloseTo(termScore(3, 1, 3), 5);
    // scores are shares of the query's BM25 ceiling: the sum of its terms' weights idf * (k1 + 1)
    const ceiling = (BM25_K1 + 1) * (idf(3) + idf(1));
    expect(hits[0].score).toBeCloseTo((hits[0].sparse as number) / ceiling, 5);
    expect(hits[1].score).toBeCloseTo((hits[1].sparse as number) / ceiling, 5);
    expect(hits[0].score).toBeLessThan(1);
  });

  it("keeps a weak best match weak: the sparse score does not depend on the other hits", async () => {
    await indexed([
      chunk("strong", "telomerase telomerase activity telomerase"),
      chunk("weak", "activity of cells and tissues"),
      chunk("other", "nothing here"),
    ]);
    const both = await engine.search({ index: "docs", mode: "sparse", text: "telomerase activity", limit: 10 });
    const weakOnly = await engine.search({
      index: "docs",
      mode: "sparse",
      text: "telomerase activity",
      limit: 10,
      filter: { kind: "eq", field: "doc_id", value: "weak" },
    });
    expect(weakOnly).toHaveLength(1);
    expect(weakOnly[0].score).toBe(both.find((hit) => hit.id === "weak")!.score);
    expect(weakOnly[0].score).toBeLessThan(0.5);
  });

  it("ranks a chunk matching a rarer term above one matching a common term", async () => {
    await indexed([
      chunk("common-1", "protein expression in cells"),
      chunk("common-2", "protein folding in cells"),
      chunk("common-3", "protein binding in cells"),
      chunk("rare", "telomerase activity in cells"),
    ]);
    const hits = await engine.search({ index: "docs", mode: "sparse", text: "protein telomerase", limit: 2 });
    expect(hits[0].id).toBe("rare");
  });

  it("indexes the title with the text", async () => {
    await indexed([chunk("titled", "body words", { title: "Telomerase review" }), chunk("plain", "body words")]);
    const hits = await engine.search({ index: "docs", mode: "sparse", text: "telomerase", limit: 5 });
    expect(hits.map((hit) => hit.id)).toEqual(["titled"]);
  });

  it("ranks dense hits by cosine", async () => {
    await indexed([
      chunk("x", "one", {}, unitVector([1, 0, 0, 0, 0, 0, 0, 0])),
      chunk("xy", "two", {}, unitVector([1, 1, 0, 0, 0, 0, 0, 0])),
      chunk("y", "three", {}, unitVector([0, 1, 0, 0, 0, 0, 0, 0])),
      chunk("minus-x", "four", {}, unitVector([-1, 0, 0, 0, 0, 0, 0, 0])),
    ]);
    const query = unitVector([1, 0.2, 0, 0, 0, 0, 0, 0]);
    const hits = await engine.search({ index: "docs", mode: "dense", text: "", vector: query, limit: 4 });
    expect(hits.map((hit) => hit.id)).toEqual(["x", "xy", "y", "minus-x"]);
    expect(hits[0].dense).toBeCloseTo(1 / Math.sqrt(1.04), 6);
    expect(hits[3].score).toBe(0);
    for (const hit of hits) expect(hit.score).toBe(Math.max(0, hit.dense as number));
  });

  it("fuses hybrid scores as alpha * cosine + (1 - alpha) * bm25 / the query's BM25 ceiling, all in 0..1", async () => {
    await indexed([
      chunk("lexical", "telomerase telomerase activity", {}, unitVector([0, 1, 0, 0, 0, 0, 0, 0])),
      chunk("semantic", "unrelated words", {}, unitVector([1, 0, 0, 0, 0, 0, 0, 0])),
      // close to the query on both sides, so it leads whatever the weight of each
      chunk("both", "telomerase in cells", {}, unitVector([1, 0.2, 0, 0, 0, 0, 0, 0])),
    ]);
    const hits = await engine.search({
      index: "docs",
      mode: "hybrid",
      text: "telomerase",
      vector: unitVector([1, 0, 0, 0, 0, 0, 0, 0]),
      limit: 3,
    });
    // 'telomerase' is in 2 of the 3 chunks
    const ceiling = (BM25_K1 + 1) * Math.log(1 + (3 - 2 + 0.5) / (2 + 0.5));
    for (const hit of hits) {
      expect(hit.score).toBeGreaterThanOrEqual(0);
      expect(hit.score).toBeLessThanOrEqual(1);
      const expected =
        HYBRID_ALPHA * Math.max(0, hit.dense as number) + (1 - HYBRID_ALPHA) * ((hit.sparse ?? 0) / ceiling);
      expect(hit.score).toBeCloseTo(expected, 6);
    }
    expect(hits[0].id).toBe("both");
    expect(hits.find((hit) => hit.id === "semantic")?.sparse).toBeUndefined();
  });

  it("applies filters before taking the top k (sparse, dense and hybrid)", async () => {
    const chunks = Array.from({ length: 40 }, (_, i) =>
      chunk(`c${i}`, `shared term number ${i}`, {
        journal: i < 30 ? "Nature" : "Cell",
        issn: i % 2 === 0 ? ["1234-5678"] : null,
      }),
    );
    await indexed(chunks);
    const filter = { kind: "eq", field: "journal", value: "cell" } as const;
    for (const mode of ["sparse", "dense", "hybrid"] as const) {
      const hits = await engine.search({
        index: "docs",
        mode,
        text: "shared term",
        vector: pseudoRandomVector("q", DIMS),
        limit: 5,
        filter,
      });
      expect(hits).toHaveLength(5);
      for (const hit of hits) expect(hit.chunk.metadata.journal).toBe("Cell");
    }
    const withoutIssn = await engine.search({
      index: "docs",
      mode: "sparse",
      text: "shared",
      limit: 100,
      filter: { kind: "not", child: { kind: "eq", field: "issn", value: "1234-5678" } },
    });
    expect(withoutIssn).toHaveLength(20);
  });

  it("reloads a committed index from disk with identical results, without rebuilding", async () => {
    const chunks = loadScifactChunks(200, DIMS, [], SCIFACT_SAMPLE_DIR);
    await indexed(chunks, "scifact");
    const queries = loadScifactQueries(20, SCIFACT_SAMPLE_DIR);
    const search = (target: SearchEngine, text: string) =>
      target.search({ index: "scifact", mode: "hybrid", text, vector: pseudoRandomVector(text, DIMS), limit: 10 });
    const before = await Promise.all(queries.map((query) => search(engine, query.text)));

    const manifest = JSON.parse(readFileSync(join(dir, "scifact", "manifest.json"), "utf8")) as {
      formatVersion: number;
      chunkCount: number;
    };
    expect(manifest).toMatchObject({ formatVersion: 2, chunkCount: 200 });

    const restarted = createEmbeddedEngine({ dir });
    expect(await restarted.hasIndex("scifact")).toBe(true);
    const after = await Promise.all(queries.map((query) => search(restarted, query.text)));
    expect(after).toEqual(before);
    expect(await restarted.stats("scifact")).toEqual(await engine.stats("scifact"));
    const [reloaded] = await restarted.getChunks("scifact", [chunks[3].id]);
    expect(reloaded).toEqual(chunks[3]);
    await restarted.close();
  });

  it("writes only the rows a commit changes, compacts them as they pile up, reads every layout back", async () => {
    const chunks = loadScifactChunks(200, DIMS, [], SCIFACT_SAMPLE_DIR);
    await indexed(chunks, "scifact");
    const files = () => readdirSync(join(dir, "scifact"));
    const rowFiles = () => files().filter((name) => name.endsWith(".chunks.ndjson"));
    const manifest = () =>
      JSON.parse(readFileSync(join(dir, "scifact", "manifest.json"), "utf8")) as Record<string, unknown> & {
        rowFiles: Array<{ count: number }>;
      };
    const queries = loadScifactQueries(10, SCIFACT_SAMPLE_DIR);
    const results = (target: SearchEngine) =>
      Promise.all(
        queries.map((query) =>
          target.search({
            index: "scifact",
            mode: "hybrid",
            text: query.text,
            vector: pseudoRandomVector(query.text, DIMS),
            limit: 10,
          }),
        ),
      );
    const expectReloadEqual = async () => {
      const restarted = createEmbeddedEngine({ dir });
      expect(await results(restarted)).toEqual(await results(engine));
      expect(await restarted.stats("scifact")).toEqual(await engine.stats("scifact"));
      const ids = chunks.map((record) => record.id);
      expect(await restarted.getChunks("scifact", ids)).toEqual(await engine.getChunks("scifact", ids));
      await restarted.close();
    };

    // a commit of 5 changed chunks and 3 deletions adds one row file of 5 rows
    let live = [...chunks];
    const change = (round: number, from: number) => {
      const changed = live
        .slice(from, from + 5)
        .map((record) => ({ ...record, text: `${record.text} revised${round}` }));
      live = live.map((record) => changed.find((other) => other.id === record.id) ?? record);
      return changed;
    };
    await engine.indexChunks("scifact", change(1, 0));
    await engine.deleteChunks(
      "scifact",
      live.slice(190, 193).map((record) => record.id),
    );
    live = live.filter((_, index) => index < 190 || index >= 193);
    await engine.commit("scifact");
    expect(rowFiles()).toHaveLength(2);
    expect(manifest().rowFiles.map((file) => file.count)).toEqual([200, 5]);
    expect((await engine.stats("scifact")).chunks).toBe(197);
    await expectReloadEqual();

    // more small commits: at 12 row files (or a quarter of the rows dead) one commit writes all live rows again
    let compactedAt = 0;
    for (let round = 2; round <= 14 && compactedAt === 0; round++) {
      await engine.indexChunks("scifact", change(round, round * 5));
      await engine.commit("scifact");
      expect(rowFiles().length).toBeLessThanOrEqual(12);
      if (rowFiles().length === 1) compactedAt = round;
    }
    expect(compactedAt).toBe(12);
    expect(manifest().rowFiles.map((file) => file.count)).toEqual([197]);
    await expectReloadEqual();

    // a version 1 generation (one chunk and one vector file, no row map) is still read
    const current = manifest();
    expect(current.rowFiles).toHaveLength(1);
    const [{ chunks: chunkFile, vectors: vectorFile }] = current.rowFiles as unknown as Array<{
      chunks: string;
      vectors: string;
    }>;
    const { rowFiles: _rows, ...v1 } = current;
    const { rowOf: _rowOf, ...v1Files } = current.files as Record<string, string>;
    writeFileSync(
      join(dir, "scifact", "manifest.json"),
      JSON.stringify({ ...v1, formatVersion: 1, files: { ...v1Files, chunks: chunkFile, vectors: vectorFile } }),
    );
    await expectReloadEqual();
  });

  it("commits a change on top of a generation another process committed since, instead of over it", async () => {
    await indexed([chunk("first", "alpha"), chunk("second", "beta")]);
    const other = createEmbeddedEngine({ dir });
    await engine.indexChunks("docs", [chunk("mine", "gamma")]);
    await other.indexChunks("docs", [chunk("theirs", "delta")]);
    await other.deleteChunks("docs", ["first"]);
    await other.commit("docs");
    await engine.commit("docs");
    const reader = createEmbeddedEngine({ dir });
    for (const side of [engine, reader]) {
      expect((await side.findChunks("docs", { kind: "all" }, 10)).map((found) => found.id).sort()).toEqual([
        "mine",
        "second",
        "theirs",
      ]);
    }
    await Promise.all([other.close(), reader.close()]);
  });

  it("lets a reader process see what a writer process committed", async () => {
    await indexed([chunk("first", "alpha")]);
    const reader = createEmbeddedEngine({ dir });
    expect(
      (await reader.search({ index: "docs", mode: "sparse", text: "alpha beta", limit: 5 })).map((hit) => hit.id),
    ).toEqual(["first"]);
    await engine.indexChunks("docs", [chunk("second", "beta")]);
    await engine.commit("docs");
    expect(
      (await reader.search({ index: "docs", mode: "sparse", text: "alpha beta", limit: 5 }))
        .map((hit) => hit.id)
        .sort(),
    ).toEqual(["first", "second"]);
    await engine.deleteIndex("docs");
    expect(await reader.hasIndex("docs")).toBe(false);
    await reader.close();
  });

  it("lets a reader with a reload check interval see a commit only once the interval has passed", async () => {
    await indexed([chunk("first", "alpha")]);
    vi.useFakeTimers({ toFake: ["performance"] });
    try {
      const reader = createEmbeddedEngine({ dir, reloadCheckIntervalMs: 1000 });
      const ids = async () =>
        (await reader.search({ index: "docs", mode: "sparse", text: "alpha beta", limit: 5 }))
          .map((hit) => hit.id)
          .sort();
      expect(await ids()).toEqual(["first"]);
      await engine.indexChunks("docs", [chunk("second", "beta")]);
      await engine.commit("docs");
      vi.advanceTimersByTime(999);
      expect(await ids()).toEqual(["first"]);
      vi.advanceTimersByTime(1);
      expect(await ids()).toEqual(["first", "second"]);
      await reader.close();
    } finally {
      vi.useRealTimers();
    }
  });

  it("treats re-indexing the same chunks as a no-op and an upsert with new content as a replacement", async () => {
    const chunks = loadScifactChunks(50, DIMS, [], SCIFACT_SAMPLE_DIR);
    await indexed(chunks);
    const manifestPath = join(dir, "docs", "manifest.json");
    const generation = () => (JSON.parse(readFileSync(manifestPath, "utf8")) as { generation: number }).generation;
    const statsBefore = await engine.stats("docs");
    const generationBefore = generation();
    const query = {
      index: "docs",
      mode: "hybrid" as const,
      text: "cancer cells",
      vector: pseudoRandomVector("cancer", DIMS),
      limit: 10,
    };
    const resultsBefore = await engine.search(query);

    await engine.indexChunks("docs", chunks);
    await engine.indexChunks(
      "docs",
      chunks.map((record) => ({ ...record, metadata: { ...record.metadata } })),
    );
    await engine.commit("docs");
    expect(await engine.stats("docs")).toEqual(statsBefore);
    expect(generation()).toBe(generationBefore);
    expect(await engine.search(query)).toEqual(resultsBefore);

    await engine.indexChunks("docs", [{ ...chunks[0], text: "zyxwv unique replacement text" }]);
    await engine.commit("docs");
    expect((await engine.stats("docs")).chunks).toBe(50);
    const replaced = await engine.search({ index: "docs", mode: "sparse", text: "zyxwv", limit: 5 });
    expect(replaced.map((hit) => hit.id)).toEqual([chunks[0].id]);
  });

  it("fetches chunks by id, leaving out unknown ids, and deletes indexes", async () => {
    await indexed([chunk("a", "alpha"), chunk("b", "beta")]);
    expect((await engine.getChunks("docs", ["b", "missing", "a"])).map((record) => record.id)).toEqual(["b", "a"]);
    await engine.deleteIndex("docs");
    expect(await engine.hasIndex("docs")).toBe(false);
    await expect(engine.search({ index: "docs", mode: "sparse", text: "alpha", limit: 1 })).rejects.toThrow(
      /does not exist/,
    );
  });

  it("rejects vectors of the wrong width and dense queries without a vector", async () => {
    await engine.ensureIndex("docs", DIMS);
    await expect(engine.indexChunks("docs", [chunk("a", "alpha", {}, new Float32Array(3))])).rejects.toThrow(/3-dim/);
    await expect(engine.search({ index: "docs", mode: "dense", text: "alpha", limit: 1 })).rejects.toThrow(
      /query vector/,
    );
    await expect(engine.ensureIndex("docs", DIMS + 1)).rejects.toThrow(/dims/);
  });
});
