// A hybrid collection ingested with its vectors deferred, on both engines (the embedded engine and a real OpenSearch
// node), with the real embedding model and PGlite: searchable by BM25 at its commit, dense and hybrid answers during
// the backfill say how much has vectors, a backfill batch that dies before it writes loses nothing and the next one
// resumes, and once backfilled its answers and vectors equal those of the same documents embedded at commit.
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { IngestionActivityDeps } from "../../activities/ingestion.js";
import { createCollectionWriters } from "../../activities/collectionWriters.js";
import { createVectorBackfillActivities } from "../../activities/vectorBackfill.js";
import { ingestInProcess } from "../../src/app/ingestInProcess.js";
import { DEFAULT_DATA_ROOT } from "../../src/app/config.js";
import { createCollectionCatalog, type PlainCollection } from "../../src/domain/collectionDefinitions.js";
import { createOnnxEmbedder, type OnnxEmbedder } from "../../src/embedding/onnxEmbedder.js";
import type { Embedder } from "../../src/embedding/port.js";
import type { Db } from "../../src/eventstore/db.js";
import { chunkId } from "../../src/ingest/chunk.js";
import { createEmbeddedEngine } from "../../src/retrieval/engines/embedded/embeddedEngine.js";
import { createOpenSearchEngine } from "../../src/retrieval/engines/opensearch/openSearchEngine.js";
import { vectorShare, type RetrievalMode, type SearchEngine, type SearchHit } from "../../src/retrieval/port.js";
import { vectorsBackfilling } from "../../src/retrieval/vectorsBackfilling.js";
import { loadProvisionedManifest } from "../embedding/provisionedModel.js";
import { requireComponent } from "../setup/components.js";
import { plainCollection } from "../support/operatorContent.js";
import { freshStore } from "../support/stores.js";

const DOCUMENTS = 24;
const QUERIES = ["vitamin D deficiency and bone density", "microRNA regulation of cancer cells", "smoking risk"];
const scifactLines = readFileSync(join(DEFAULT_DATA_ROOT, "scifact/corpus.jsonl"), "utf8").split("\n").filter(Boolean);

let root: string;
let dataRoot: string;
let onnx: OnnxEmbedder;
let db: Db;
const engines: Array<{ name: string; engine: SearchEngine }> = [];

function collection(name: string): PlainCollection {
  const catalog = createCollectionCatalog({
    collections: [plainCollection(name, "beir", ["mini/corpus.jsonl"])],
    metaCollections: [],
  });
  const entry = catalog.resolveCollection(name);
  if (entry?.type !== "plain") throw new Error(`no plain collection ${name}`);
  return entry;
}

function deps(engine: SearchEngine, embedder: Embedder = onnx): IngestionActivityDeps {
  return {
    db,
    engine,
    passageEmbedder: async () => embedder,
    model: { modelName: onnx.modelName, dims: onnx.dims },
    tokenizer: onnx.tokenizer,
    retractedDois: async () => new Set(),
    dataRoot,
    dataDir: join(root, "state"),
    clock: () => new Date(),
  };
}

/** A search's rows as (document, chunk, score): comparable across two collections of the same documents. */
async function rows(engine: SearchEngine, index: string, mode: RetrievalMode, text: string) {
  const hits: SearchHit[] = await engine.search({
    index,
    mode,
    text,
    vector: mode === "sparse" ? undefined : await onnx.embedQuery(text),
    embedding: onnx.modelName,
    limit: 10,
  });
  return hits.map((hit) => `${hit.chunk.metadata.doc_id}/${hit.chunk.metadata.chunk_index} ${hit.score.toFixed(6)}`);
}

beforeAll(async () => {
  const url = requireComponent("opensearchUrl");
  root = mkdtempSync(join(tmpdir(), "litsearch-backfill-"));
  dataRoot = join(root, "data");
  mkdirSync(join(dataRoot, "mini"), { recursive: true });
  writeFileSync(join(dataRoot, "mini/corpus.jsonl"), `${scifactLines.slice(0, DOCUMENTS).join("\n")}\n`);
  db = await freshStore("pglite");
  onnx = await createOnnxEmbedder({ manifest: await loadProvisionedManifest(), batchSize: 16, threads: 2 });
  engines.push({ name: "embedded", engine: createEmbeddedEngine({ dir: join(root, "indexes") }) });
  engines.push({
    name: "opensearch",
    engine: createOpenSearchEngine({ url, indexPrefix: `backfill-${process.pid}-` }),
  });
}, 120_000);

afterAll(async () => {
  for (const { engine } of engines) {
    for (const index of ["deferred", "at-commit"]) await engine.deleteIndex(index).catch(() => undefined);
    await engine.close();
  }
  await onnx?.close();
  await db?.close();
  if (root) rmSync(root, { recursive: true, force: true });
});

describe.each(["embedded", "opensearch"])("a hybrid ingestion with its vectors backfilled (%s)", (engineName) => {
  it("BM25 at commit, both modes meanwhile, resumes after a dead batch, then equals embedding at once", async () => {
    const { engine } = engines.find((e) => e.name === engineName)!;
    const reference = await ingestInProcess(deps(engine), { collection: collection("at-commit"), batchSize: 8 });
    let embedded = 0;
    const counting: Embedder = {
      ...onnx,
      modelName: onnx.modelName,
      dims: onnx.dims,
      embedPassages: async (texts) => {
        embedded += texts.length;
        return onnx.embedPassages(texts);
      },
    };
    const deferred = await ingestInProcess(deps(engine, counting), {
      collection: collection("deferred"),
      batchSize: 8,
      vectors: "backfill",
    });
    // committed without embedding anything: every chunk searchable by BM25, none has a vector
    expect(embedded).toBe(0);
    expect(deferred.chunks).toBe(reference.chunks);
    expect(await engine.vectorCoverage("deferred")).toEqual({ chunks: deferred.chunks, withVectors: 0 });
    for (const text of QUERIES)
      expect(await rows(engine, "deferred", "sparse", text)).toEqual(await rows(engine, "at-commit", "sparse", text));
    // dense and hybrid answer by BM25 meanwhile: the same documents as sparse
    const hybridBefore = await rows(engine, "deferred", "hybrid", QUERIES[0]!);
    expect(hybridBefore).toEqual(await rows(engine, "deferred", "sparse", QUERIES[0]!));
    expect((await rows(engine, "deferred", "dense", QUERIES[0]!)).length).toBeGreaterThan(0);

    const writers = createCollectionWriters(db);
    const backfill = (embedder: Embedder) =>
      createVectorBackfillActivities({
        engine,
        passageEmbedder: async () => embedder,
        tokenizer: onnx.tokenizer,
        writers,
      });
    // one batch: part of the collection has vectors, and both modes still answer
    const first = await backfill(counting).backfillVectors({ collection: "deferred", batchSize: 10 });
    expect(first).toMatchObject({ embedded: 10, skipped: 0 });
    const share = vectorShare(first.coverage);
    expect(share).toBeCloseTo(10 / deferred.chunks, 6);
    expect(await engine.vectorCoverage("deferred")).toEqual({ chunks: deferred.chunks, withVectors: 10 });
    // /readyz lists the collection being backfilled with its share, and not the one embedded at commit
    expect(await vectorsBackfilling(engine, ["deferred", "at-commit"])).toEqual([
      { collection: "deferred", vectorShare: Math.floor(share * 1000) / 1000 },
    ]);
    for (const mode of ["dense", "hybrid"] as const)
      expect((await rows(engine, "deferred", mode, QUERIES[1]!)).length).toBe(10);

    // a worker dies in a batch after embedding, before writing: nothing of it is written, nothing is lost
    const dying: Embedder = {
      ...counting,
      modelName: onnx.modelName,
      dims: onnx.dims,
      embedPassages: async (texts) => {
        await counting.embedPassages(texts);
        throw new Error("worker killed");
      },
    };
    await expect(backfill(dying).backfillVectors({ collection: "deferred", batchSize: 10 })).rejects.toThrow(
      "worker killed",
    );
    expect((await engine.vectorCoverage("deferred")).withVectors).toBe(10);

    // another worker resumes from what still lacks a vector, to the end
    const resumed = backfill(counting);
    let batch = await resumed.backfillVectors({ collection: "deferred", batchSize: 16 });
    while (batch.embedded + batch.skipped > 0)
      batch = await resumed.backfillVectors({ collection: "deferred", batchSize: 16 });
    expect(batch.coverage).toEqual({ chunks: deferred.chunks, withVectors: deferred.chunks });
    expect(await vectorsBackfilling(engine, ["deferred", "at-commit"])).toEqual([]);
    // every chunk embedded once, but for the killed batch's (re-embedded into the same vectors)
    expect(embedded).toBe(deferred.chunks + 10);

    // fully backfilled: the same answers and the same vectors as the ingestion embedded at commit
    // (OpenSearch: the same rows; scores within 5e-3, as Lucene counts a re-indexed chunk's old copy in its term
    // statistics until its segment merges, as for any document ingested again)
    for (const text of QUERIES)
      for (const mode of ["dense", "hybrid"] as const) {
        const [after, embeddedAtCommit] = [
          await rows(engine, "deferred", mode, text),
          await rows(engine, "at-commit", mode, text),
        ];
        if (engineName === "embedded") expect(after).toEqual(embeddedAtCommit);
        expect(after.map((row) => row.split(" ")[0])).toEqual(embeddedAtCommit.map((row) => row.split(" ")[0]));
        after.forEach((row, k) =>
          expect(Number(row.split(" ")[1])).toBeCloseTo(Number(embeddedAtCommit[k]!.split(" ")[1]), 2),
        );
      }
    const ids = (index: string) =>
      scifactLines.slice(0, DOCUMENTS).map((line) => chunkId(index, (JSON.parse(line) as { _id: string })._id, 0));
    const [mine, theirs] = await Promise.all([
      engine.getChunks("deferred", ids("deferred")),
      engine.getChunks("at-commit", ids("at-commit")),
    ]);
    expect(mine.length).toBeGreaterThan(0);
    expect(mine.map((c) => Array.from(c.vector!))).toEqual(theirs.map((c) => Array.from(c.vector!)));
  }, 600_000);
});
