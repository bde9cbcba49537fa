// Inventories and topic weights on both engines: the first 80 OpenAlex works and MEDLINE citations, ingested with the
// real embedding model into the embedded engine and a real OpenSearch node, give the same inventory on both (equal to
// counts made here from the source documents), keep it through re-ingest, rebuild it for an index ingested without one,
// and rank journals on a topic identically. Needs OpenSearch.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DEFAULT_COLLECTIONS_CONFIG } from "../../src/app/config.js";
import type { CollectionInventory, InventoryEntry } from "../../src/domain/inventory.js";
import { journalWeightsForTopic } from "../../src/usecases/search/topicJournals.js";
import { createCollectionCatalog, type PlainCollection } from "../../src/domain/collectionDefinitions.js";
import { loadCollectionCatalog } from "../../src/app/collectionsFile.js";
import { createOnnxEmbedder, type OnnxEmbedder } from "../../src/embedding/onnxEmbedder.js";
import { buildCollection } from "../support/buildCollection.js";
import type { Db } from "../../src/eventstore/db.js";
import { prepareCollection } from "../../src/ingest/pipelineRules.js";
import { readCollectionDocuments } from "../../src/ingest/readCollection.js";
import { loadRetractedDois } from "../../src/ingest/retractions.js";
import { createEmbeddedEngine } from "../../src/retrieval/engines/embedded/embeddedEngine.js";
import { createOpenSearchEngine } from "../../src/retrieval/engines/opensearch/openSearchEngine.js";
import type { SearchEngine } from "../../src/retrieval/port.js";
import { loadProvisionedManifest } from "../embedding/provisionedModel.js";
import { requireComponent } from "../setup/components.js";
import { sliceDataRoot } from "../support/testService.js";
import { freshStore } from "../support/stores.js";

const DOCUMENTS = 80;

let root: string;
let dataRoot: string;
let url: string;
let prefix: string;
let onnx: OnnxEmbedder;
let retracted: ReadonlySet<string>;
let embedded: SearchEngine;
let opensearch: SearchEngine;
let engines: SearchEngine[];
/** sparse (OpenAlex, as configured), hybrid (the same works searched in hybrid mode), dense (the clinical digest) */
let collections: PlainCollection[];

let db: Db;

/** Builds the collection through the one ingestion pipeline, in this process (one store, a manifest per engine). */
function ingest(collection: PlainCollection, engine: SearchEngine, extra: { force?: boolean } = {}) {
  return buildCollection(
    {
      db,
      engine,
      passageEmbedder: async () => onnx,
      model: onnx,
      tokenizer: onnx.tokenizer,
      retractedDois: async () => retracted,
      dataRoot,
      dataDir: join(root, "state"),
      clock: () => new Date(),
    },
    { collection, retracted, fingerprintFile: join(root, "ingest-fingerprints.json"), ...extra },
  );
}

const withoutBuiltAt = ({ builtAt: _builtAt, ...rest }: CollectionInventory) => rest;
const withoutSubjects = ({ subjects: _subjects, ...rest }: InventoryEntry) => rest;

async function inventoryOf(engine: SearchEngine, index: string): Promise<CollectionInventory> {
  const inventory = await engine.getInventory(index);
  if (!inventory) throw new Error(`${engine.kind} has no index ${index}`);
  return inventory;
}

/** Entries counted here from the source documents that produced chunks, without the inventory code. */
async function expectedEntries(
  collection: PlainCollection,
): Promise<{ documentCount: number; entries: InventoryEntry[] }> {
  const prepared = await prepareCollection({ collection, dataRoot, tokenizer: onnx.tokenizer, retracted });
  const indexed = new Set(prepared.records.map((record) => record.metadata.doc_id));
  const counts = new Map<string, InventoryEntry>();
  for await (const document of readCollectionDocuments(collection, dataRoot)) {
    if ("deleted" in document || !indexed.has(document.doc_id)) continue;
    const issns = [...new Set(document.metadata.issn ?? [])].sort();
    const journal = document.metadata.journal?.trim() ? document.metadata.journal : null;
    const publisher = document.metadata.publisher?.trim() ? document.metadata.publisher : null;
    const key = `${issns.join(",")}|${journal}|${publisher}`;
    const entry = counts.get(key) ?? { issns, journal, publisher, documents: 0 };
    entry.documents += 1;
    counts.set(key, entry);
  }
  return { documentCount: indexed.size, entries: [...counts.values()] };
}

const byIdentity = (a: InventoryEntry, b: InventoryEntry): number => {
  const key = (entry: InventoryEntry) => `${entry.issns.join(",")}|${entry.journal}|${entry.publisher}`;
  return key(a) < key(b) ? -1 : key(a) > key(b) ? 1 : 0;
};

beforeAll(async () => {
  url = requireComponent("opensearchUrl");
  root = mkdtempSync(join(tmpdir(), "inventory-int-"));
  dataRoot = await sliceDataRoot(DOCUMENTS);
  retracted = await loadRetractedDois(dataRoot);
  db = await freshStore("pglite");
  onnx = await createOnnxEmbedder({ manifest: await loadProvisionedManifest(), batchSize: 16, threads: 2 });
  prefix = `inventory-${process.pid}-`;
  embedded = createEmbeddedEngine({ dir: join(root, "index") });
  opensearch = createOpenSearchEngine({ url, indexPrefix: prefix });
  engines = [embedded, opensearch];

  const demo = await loadCollectionCatalog(DEFAULT_COLLECTIONS_CONFIG);
  const plain = (name: string) => demo.collections.find((collection) => collection.name === name)!;
  const { type: _type, excludeRetracted: _exclude, ...openalex } = plain("openalex-synergy");
  const hybrid = createCollectionCatalog({
    collections: [{ ...openalex, name: "openalex-hybrid", retrieval: "hybrid" }],
    metaCollections: [],
  }).collections[0];
  collections = [plain("openalex-synergy"), hybrid, plain("clinical-digest")];
  for (const collection of collections) for (const engine of engines) await ingest(collection, engine);
}, 600_000);

afterAll(async () => {
  for (const collection of collections ?? []) await opensearch?.deleteIndex(collection.name).catch(() => undefined);
  await fetch(`${url}/${prefix}_inventory`, { method: "DELETE" }).catch(() => undefined);
  await opensearch?.close();
  await embedded?.close();
  await onnx?.close();
  await db?.close();
  if (root) rmSync(root, { recursive: true, force: true });
  if (dataRoot) rmSync(dataRoot, { recursive: true, force: true });
});

describe("collection inventory", () => {
  it("is the same on both engines and equals the documents counted from the source", async () => {
    for (const collection of collections) {
      const [fromEmbedded, fromOpenSearch] = await Promise.all(
        engines.map((engine) => inventoryOf(engine, collection.name)),
      );
      expect(withoutBuiltAt(fromOpenSearch), collection.name).toEqual(withoutBuiltAt(fromEmbedded));
      const expected = await expectedEntries(collection);
      expect(fromEmbedded.collection).toBe(collection.name);
      expect(fromEmbedded.documentCount, collection.name).toBe(expected.documentCount);
      expect([...fromEmbedded.entries].map(withoutSubjects).sort(byIdentity), collection.name).toEqual(
        expected.entries.sort(byIdentity),
      );
      // the subjects the works carry (OpenAlex concepts, major MeSH headings), each counted at most once a document
      for (const entry of fromEmbedded.entries)
        for (const subject of entry.subjects ?? []) expect(subject.documents).toBeLessThanOrEqual(entry.documents);
      expect(fromEmbedded.entries.filter((entry) => (entry.subjects ?? []).length > 0).length).toBeGreaterThan(10);
      expect(fromEmbedded.truncated).toBe(false);
      // most documents first
      for (let n = 1; n < fromEmbedded.entries.length; n++)
        expect(fromEmbedded.entries[n - 1].documents).toBeGreaterThanOrEqual(fromEmbedded.entries[n].documents);
      // a real slice: works without an abstract are not indexed, and the journals are many and carry ISSNs
      expect(expected.documentCount).toBeGreaterThan(20);
      expect(fromEmbedded.entries.length).toBeGreaterThan(10);
      expect(fromEmbedded.entries.filter((entry) => entry.issns.length > 0).length).toBeGreaterThan(10);
    }
    const openalex = await inventoryOf(embedded, "openalex-synergy");
    expect(openalex.documentCount).toBeLessThan(DOCUMENTS);
  });

  it("keeps the same counts through a forced re-ingest and a skipped one, on both engines", async () => {
    const collection = collections[0];
    for (const engine of engines) {
      const before = await inventoryOf(engine, collection.name);
      const forced = await ingest(collection, engine, { force: true });
      expect(forced.skipped).toBe(false);
      const after = await inventoryOf(engine, collection.name);
      expect(after.builtAt, engine.kind).not.toBe(before.builtAt);
      expect(withoutBuiltAt(after), engine.kind).toEqual(withoutBuiltAt(before));
      expect((await ingest(collection, engine)).skipped).toBe(true);
      expect(await inventoryOf(engine, collection.name), engine.kind).toEqual(after);
    }
  });

  it("is seen by another process after a re-ingest (OpenSearch reads it again only when it changed)", async () => {
    const collection = collections[2];
    const reader = createOpenSearchEngine({ url, indexPrefix: prefix });
    try {
      const first = await inventoryOf(reader, collection.name);
      expect(await inventoryOf(reader, collection.name)).toBe(first);
      await ingest(collection, opensearch, { force: true });
      const second = await inventoryOf(reader, collection.name);
      expect(second.builtAt).not.toBe(first.builtAt);
      expect(withoutBuiltAt(second)).toEqual(withoutBuiltAt(first));
    } finally {
      await reader.close();
    }
  });

  it("is rebuilt from the chunks when an index has none, alike on both engines, and kept by OpenSearch", async () => {
    const collection = collections[0];
    const index = "openalex-copy";
    const stored = await inventoryOf(embedded, collection.name);
    const prepared = await prepareCollection({ collection, dataRoot, tokenizer: onnx.tokenizer, retracted });
    try {
      for (const engine of engines) {
        // what an index written before inventories existed holds: the chunks and nothing else
        await engine.ensureIndex(index, onnx.dims);
        await engine.indexChunks(index, prepared.records);
        await engine.commit(index);
        const rebuilt = await inventoryOf(engine, index);
        // chunks do not carry their work's subjects: a rebuilt inventory has none (topics then match by content)
        expect(withoutBuiltAt(rebuilt), engine.kind).toEqual({
          ...withoutBuiltAt(stored),
          entries: stored.entries.map(withoutSubjects),
          collection: index,
        });
      }
      const reader = createOpenSearchEngine({ url, indexPrefix: prefix });
      expect((await inventoryOf(reader, index)).builtAt).toBe((await inventoryOf(opensearch, index)).builtAt);
      await reader.close();
    } finally {
      for (const engine of engines) await engine.deleteIndex(index);
    }
    for (const engine of engines) expect(await engine.getInventory(index), engine.kind).toBeNull();
    const document = await fetch(`${url}/${prefix}_inventory/_doc/${prefix}${index}`);
    expect(document.status).toBe(404);
  });
});

describe("journal weights for a topic", () => {
  // the first works of the slice come from the muscle-relaxant review; the MEDLINE sample is general medicine
  const topics = [
    "baclofen for spasticity",
    "gabapentin neuropathic pain",
    "antiepileptic drugs in children with epilepsy",
    "multiple sclerosis",
    "intrathecal drug infusion",
    "headache prophylaxis",
    "traumatic brain injury rehabilitation",
    "randomized controlled trial of treatment outcomes",
  ];

  it("weigh journals identically on both engines, in sparse, hybrid and dense collections", async () => {
    let rankedLists = 0;
    for (const collection of collections) {
      for (const topic of topics) {
        const [embeddedWeights, openSearchWeights] = await Promise.all(
          engines.map((engine) => journalWeightsForTopic({ engine, embedder: onnx }, collection, topic)),
        );
        // the same journals with the same weights: any ranking read off them (the catalogue's journal scope) agrees
        const fromEmbedded = [...embeddedWeights].map(([key, weight]) => ({ key, ...weight }));
        const where = `${collection.name} (${collection.retrieval}) "${topic}"`;
        expect([...openSearchWeights.keys()].sort(), where).toEqual(fromEmbedded.map((journal) => journal.key).sort());
        fromEmbedded.forEach((journal) => {
          const other = openSearchWeights.get(journal.key)!;
          expect(other.weight, where).toBeCloseTo(journal.weight, 4);
          expect(other.chunks, where).toBe(journal.chunks);
          expect(other.documents, where).toBe(journal.documents);
          expect(journal.documents).toBeLessThanOrEqual(journal.chunks);
          expect(journal.weight).toBeLessThanOrEqual(journal.documents);
        });
        if (fromEmbedded.length >= 3) rankedLists++;
      }
    }
    expect(rankedLists).toBeGreaterThan(topics.length);
  });
});
