// The ingestion pipeline end to end on the real embedded engine and the real embedding model: index, skip, re-ingest.
import { mkdtempSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createCollectionCatalog } from "../../src/domain/collectionDefinitions.js";
import { DEFAULT_DATA_ROOT } from "../../src/app/config.js";
import type { CollectionCatalog, PlainCollection } from "../../src/domain/collectionDefinitions.js";
import { createOnnxEmbedder, type OnnxEmbedder } from "../../src/embedding/onnxEmbedder.js";
import type { Embedder } from "../../src/embedding/port.js";
import { ingestCollection, ingestDemoCollections, prepareCollection } from "../../src/ingest/ingestCollection.js";
import type { IngestCollectionOptions } from "../../src/ingest/ingestCollection.js";
import { createEmbeddedEngine } from "../../src/retrieval/engines/embedded/embeddedEngine.js";
import type { SearchEngine } from "../../src/retrieval/port.js";
import { loadProvisionedManifest } from "../embedding/provisionedModel.js";

const scifactLines = readFileSync(join(DEFAULT_DATA_ROOT, "scifact/corpus.jsonl"), "utf8").split("\n").filter(Boolean);

let root: string;
let dataRoot: string;
let engine: SearchEngine;
let onnx: OnnxEmbedder;
let passagesEmbedded = 0;
let catalog: CollectionCatalog;

// the real model, counted, so the test can tell whether a run embedded anything
const countingEmbedder = (): Embedder => ({
  get modelName() {
    return onnx.modelName;
  },
  get dims() {
    return onnx.dims;
  },
  async embedPassages(texts) {
    passagesEmbedded += texts.length;
    return onnx.embedPassages(texts);
  },
  embedQuery: (text) => onnx.embedQuery(text),
  close: async () => {},
});

function writeCorpus(documents: number): void {
  mkdirSync(join(dataRoot, "mini"), { recursive: true });
  writeFileSync(join(dataRoot, "mini/corpus.jsonl"), `${scifactLines.slice(0, documents).join("\n")}\n`);
}

function collection(name: string): PlainCollection {
  const entry = catalog.resolveCollection(name);
  if (entry?.type !== "plain") throw new Error(`no plain collection ${name}`);
  return entry;
}

function options(name: string, extra: Partial<IngestCollectionOptions> = {}): IngestCollectionOptions {
  return {
    collection: collection(name),
    dataRoot,
    engine,
    embedder: countingEmbedder(),
    tokenizer: onnx.tokenizer,
    retracted: new Set(),
    fingerprintFile: join(root, "state/ingest-fingerprints.json"),
    ...extra,
  };
}

beforeAll(async () => {
  root = mkdtempSync(join(tmpdir(), "litsearch-ingest-"));
  dataRoot = join(root, "data");
  writeCorpus(12);
  engine = createEmbeddedEngine({ dir: join(root, "indexes") });
  onnx = await createOnnxEmbedder({ manifest: await loadProvisionedManifest(), batchSize: 16, threads: 2 });
  const source = { reader: "beir", files: ["mini/corpus.jsonl"] };
  const common = {
    description: null,
    kind: "scholarly",
    pricePer1000: "0.010",
    openAccessOnly: false,
    scanFilterable: true,
    source,
  };
  catalog = createCollectionCatalog({
    collections: [
      { name: "mini-hybrid", displayName: "Mini hybrid", retrieval: "hybrid", ...common },
      { name: "mini-sparse", displayName: "Mini sparse", retrieval: "sparse", ...common },
    ],
    metaCollections: [],
  });
}, 120_000);

afterAll(async () => {
  await engine?.close();
  await onnx?.close();
  if (root) rmSync(root, { recursive: true, force: true });
});

describe("ingestCollection", () => {
  it("embeds and indexes a hybrid collection, and its chunks are found by meaning", async () => {
    const progress: number[] = [];
    const report = await ingestCollection(
      options("mini-hybrid", { onProgress: (p) => p.phase === "indexing" && progress.push(p.done) }),
    );
    expect(report).toMatchObject({ skipped: false, embedded: true, documentsRead: 12, documentsIndexed: 12 });
    expect(report.chunks).toBeGreaterThanOrEqual(12);
    expect(passagesEmbedded).toBe(report.chunks);
    expect(progress.at(-1)).toBe(report.chunks);
    expect((await engine.stats("mini-hybrid")).chunks).toBe(report.chunks);

    const first = JSON.parse(scifactLines[3]!) as { _id: string; title: string };
    const hits = await engine.search({
      index: "mini-hybrid",
      mode: "dense",
      text: first.title,
      vector: await onnx.embedQuery(first.title),
      limit: 3,
    });
    expect(hits[0]?.chunk.metadata.doc_id).toBe(first._id);
    expect(hits[0]?.chunk.tokens).toBe(onnx.tokenizer.count(hits[0]!.chunk.text));
  });

  it("embeds window by window on worker threads, each chunk keeping its own vector", async () => {
    const pool = await createOnnxEmbedder({ manifest: await loadProvisionedManifest(), batchSize: 4, workers: 2 });
    try {
      const progress: number[] = [];
      // windows of 5 over about 24 chunks: several windows, the last one short, each sorted by length inside
      const report = await ingestCollection(
        options("mini-hybrid", {
          index: "mini-windows",
          embedder: pool,
          embedWindow: 5,
          onProgress: (p) => p.phase === "indexing" && progress.push(p.done),
        }),
      );
      expect(report.chunks).toBeGreaterThan(10);
      expect(progress).toEqual([...progress].sort((a, b) => a - b));
      expect(progress.at(-1)).toBe(report.chunks);
      const prepared = await prepareCollection({
        collection: collection("mini-hybrid"),
        dataRoot,
        tokenizer: onnx.tokenizer,
        retracted: new Set(),
      });
      const expected = await onnx.embedPassages(prepared.embeddingInputs);
      const stored = await engine.getChunks(
        "mini-windows",
        prepared.records.map((r) => r.id),
      );
      expect(stored).toHaveLength(prepared.records.length);
      const byId = new Map(stored.map((chunk) => [chunk.id, chunk]));
      prepared.records.forEach((record, i) => {
        const vector = byId.get(record.id)?.vector;
        expect(vector, record.id).toBeDefined();
        let maxDiff = 0;
        for (let k = 0; k < expected[i]!.length; k++)
          maxDiff = Math.max(maxDiff, Math.abs(vector![k]! - expected[i]![k]!));
        expect(maxDiff, record.id).toBeLessThan(1e-5);
      });
    } finally {
      await pool.close();
    }
  });

  it("skips an index that already holds the same input, and re-ingests when forced", async () => {
    const before = passagesEmbedded;
    const again = await ingestCollection(options("mini-hybrid"));
    expect(again.skipped).toBe(true);
    expect(passagesEmbedded).toBe(before);

    const forced = await ingestCollection(options("mini-hybrid", { force: true }));
    expect(forced.skipped).toBe(false);
    expect(passagesEmbedded).toBe(before + forced.chunks);
    expect(forced.fingerprint).toBe(again.fingerprint);
  });

  it("re-ingests when the source changes and leaves no stale chunk behind", async () => {
    const first = await ingestCollection(options("mini-hybrid"));
    writeCorpus(5);
    const shrunk = await ingestCollection(options("mini-hybrid"));
    expect(shrunk.skipped).toBe(false);
    expect(shrunk.fingerprint).not.toBe(first.fingerprint);
    expect(shrunk.documentsIndexed).toBe(5);
    expect((await engine.stats("mini-hybrid")).chunks).toBe(shrunk.chunks);
    writeCorpus(12);
  });

  it("re-embeds only the chunks a chunking change altered, keeping the vectors of the others", async () => {
    await ingestCollection(options("mini-hybrid"));
    const chunking = { minStandaloneWords: 120 };
    const before = await prepareCollection({
      collection: collection("mini-hybrid"),
      dataRoot,
      tokenizer: onnx.tokenizer,
      retracted: new Set(),
    });
    const after = await prepareCollection({
      collection: collection("mini-hybrid"),
      dataRoot,
      tokenizer: onnx.tokenizer,
      retracted: new Set(),
      chunking,
    });
    const unchanged = new Set(before.records.map((r) => `${r.id}\u0000${r.text}`));
    const changed = after.records.filter((r) => !unchanged.has(`${r.id}\u0000${r.text}`));
    expect(changed.length).toBeGreaterThan(0);
    expect(changed.length).toBeLessThan(after.records.length);
    const embeddedBefore = passagesEmbedded;
    const report = await ingestCollection(options("mini-hybrid", { chunking }));
    expect(report.skipped).toBe(false);
    expect(passagesEmbedded - embeddedBefore).toBe(changed.length);
    // every chunk, kept or re-embedded, holds the vector of its own embedding input
    const expected = await onnx.embedPassages(after.embeddingInputs);
    const stored = new Map(
      (
        await engine.getChunks(
          "mini-hybrid",
          after.records.map((r) => r.id),
        )
      ).map((c) => [c.id, c]),
    );
    after.records.forEach((record, i) => {
      const vector = stored.get(record.id)!.vector!;
      expect(Math.max(...expected[i]!.map((x, k) => Math.abs(x - vector[k]!))), record.id).toBeLessThan(1e-5);
    });
  });

  it("indexes a sparse collection without embedding anything", async () => {
    const before = passagesEmbedded;
    const report = await ingestCollection(options("mini-sparse"));
    expect(report).toMatchObject({ skipped: false, embedded: false });
    expect(passagesEmbedded).toBe(before);
    const hits = await engine.search({
      index: "mini-sparse",
      mode: "sparse",
      text: "diffusion tensor white matter newborn",
      limit: 3,
    });
    expect(hits[0]?.chunk.metadata.doc_id).toBe("4983");
  });

  it("ingestDemoCollections ingests only what is absent or changed", async () => {
    const reports = await ingestDemoCollections({
      catalog,
      dataRoot,
      engine,
      embedder: countingEmbedder(),
      tokenizer: onnx.tokenizer,
      fingerprintFile: join(root, "state/ingest-fingerprints.json"),
      retracted: new Set(),
    });
    expect(reports.map((r) => [r.collection, r.skipped])).toEqual([
      ["mini-hybrid", false], // the last hybrid ingestion used other chunking options
      ["mini-sparse", true],
    ]);
  });
});
