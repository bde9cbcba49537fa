// The collection inventory: how documents are grouped and ordered, and how the embedded engine stores an inventory with
// the index generation it describes (or rebuilds one from the chunks when a generation has none).
import { mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { InventoryTally, journalKey, type CollectionInventory } from "../../src/domain/inventory.js";
import { createEmbeddedEngine } from "../../src/retrieval/engines/embedded/embeddedEngine.js";
import type { ChunkRecord, SearchEngine } from "../../src/retrieval/port.js";
import { pseudoRandomVector } from "../search/scifactFixture.js";

const DIMS = 8;

function chunk(docId: string, chunkIndex: number, metadata: Partial<ChunkRecord["metadata"]> = {}): ChunkRecord {
  const text = `chunk ${chunkIndex} of document ${docId}`;
  return {
    id: `${docId}-${chunkIndex}`,
    text,
    tokens: 6,
    metadata: { doc_id: docId, chunk_index: chunkIndex, ...metadata },
    vector: pseudoRandomVector(text, DIMS),
  };
}

const withoutBuiltAt = ({ builtAt: _builtAt, ...rest }: CollectionInventory) => rest;

describe("InventoryTally", () => {
  it("groups documents by sorted ISSNs, title and publisher, most documents first, then title (untitled last)", () => {
    const tally = new InventoryTally();
    tally.add({ issn: ["2222-2222", "1111-1111"], journal: "Cell", publisher: "Elsevier" });
    tally.add({ issn: ["1111-1111", "2222-2222", "1111-1111"], journal: "Cell", publisher: "Elsevier" });
    tally.add({ issn: ["1111-1111"], journal: "Cell", publisher: "Elsevier" });
    tally.add({ journal: "Untitled Letters" });
    tally.add({ journal: "  ", publisher: "" });
    tally.add({});
    const inventory = tally.inventory("papers", new Date("2026-01-02T03:04:05Z"));
    expect(inventory).toEqual({
      collection: "papers",
      documentCount: 6,
      entries: [
        { issns: ["1111-1111", "2222-2222"], journal: "Cell", publisher: "Elsevier", documents: 2 },
        { issns: [], journal: null, publisher: null, documents: 2 },
        { issns: ["1111-1111"], journal: "Cell", publisher: "Elsevier", documents: 1 },
        { issns: [], journal: "Untitled Letters", publisher: null, documents: 1 },
      ],
      truncated: false,
      builtAt: "2026-01-02T03:04:05.000Z",
    });
  });

  it("gives the same inventory whatever order the documents come in", () => {
    const documents = Array.from({ length: 200 }, (_, n) => ({
      issn: [`000${n % 7}-000${n % 3}`],
      journal: `Journal ${n % 5}`,
      publisher: n % 2 ? "A" : null,
    }));
    const forward = new InventoryTally();
    const backward = new InventoryTally();
    documents.forEach((document) => forward.add(document));
    [...documents].reverse().forEach((document) => backward.add(document));
    const at = new Date();
    expect(backward.inventory("c", at)).toEqual(forward.inventory("c", at));
    expect(forward.inventory("c", at).entries.reduce((sum, entry) => sum + entry.documents, 0)).toBe(200);
  });

  it("counts the subjects of each journal's documents, once per document, keeping those on a quarter of them", () => {
    const tally = new InventoryTally();
    const cardiology = { name: "Cardiology", scheme: "openalex_concept" as const };
    const heart = { name: "Heart Failure", scheme: "mesh" as const };
    const surgery = { name: "Surgery", scheme: "openalex_concept" as const };
    tally.add({ issn: ["0009-7322"], journal: "Circulation", subjects: [cardiology, heart, cardiology] });
    tally.add({ issn: ["0009-7322"], journal: "Circulation", subjects: [cardiology, surgery] });
    tally.add({ issn: ["0009-7322"], journal: "Circulation", subjects: [heart] });
    tally.add({ issn: ["0009-7322"], journal: "Circulation" });
    tally.add({ issn: ["0009-7322"], journal: "Circulation" });
    tally.add({ issn: ["1072-3714"], journal: "Menopause", subjects: [] });
    // a document without a journal has nowhere to be listed: its subjects are not kept
    tally.add({ subjects: [cardiology] });
    expect(tally.inventory("c").entries).toEqual([
      {
        issns: ["0009-7322"],
        journal: "Circulation",
        publisher: null,
        documents: 5,
        // Surgery, on 1 of 5 documents, is under a quarter of them
        subjects: [
          { ...cardiology, documents: 2 },
          { ...heart, documents: 2 },
        ],
      },
      { issns: ["1072-3714"], journal: "Menopause", publisher: null, documents: 1 },
      { issns: [], journal: null, publisher: null, documents: 1 },
    ]);
  });

  it("keeps the largest entries past the cap, says so and still counts every document", () => {
    const MAX_INVENTORY_ENTRIES = 50_000; // the entries an inventory keeps
    const tally = new InventoryTally();
    for (let n = 0; n <= MAX_INVENTORY_ENTRIES; n++) tally.add({ journal: `Journal ${n}` });
    tally.add({ journal: "Journal 7" });
    const inventory = tally.inventory("big");
    expect(inventory.truncated).toBe(true);
    expect(inventory.entries).toHaveLength(MAX_INVENTORY_ENTRIES);
    expect(inventory.documentCount).toBe(MAX_INVENTORY_ENTRIES + 2);
    expect(inventory.entries[0]).toMatchObject({ journal: "Journal 7", documents: 2 });
  });

  it("keys a journal by its smallest ISSN, else its lower-cased title", () => {
    expect(journalKey({ issn: ["2222-2222", "1111-1111"], journal: "Cell" })).toBe("1111-1111");
    expect(journalKey({ issn: [], journal: "The Lancet" })).toBe("the lancet");
    expect(journalKey({ issn: null, journal: " " })).toBeNull();
    expect(journalKey({})).toBeNull();
  });
});

describe("embedded engine inventory", () => {
  let dir: string;
  let engine: SearchEngine;
  const documents = [
    [
      chunk("a", 0, { issn: ["1111-1111"], journal: "Cell", publisher: "Elsevier" }),
      chunk("a", 1, { issn: ["1111-1111"], journal: "Cell", publisher: "Elsevier" }),
    ],
    [chunk("b", 0, { issn: ["1111-1111"], journal: "Cell", publisher: "Elsevier" })],
    [
      chunk("c", 0, { journal: "Untitled Letters" }),
      chunk("c", 1, { journal: "Untitled Letters" }),
      chunk("c", 2, { journal: "Untitled Letters" }),
    ],
  ];
  const chunks = documents.flat();
  const stored = (): CollectionInventory => {
    const tally = new InventoryTally();
    for (const document of documents) tally.add(document[0].metadata);
    return tally.inventory("papers", new Date("2026-01-01T00:00:00Z"));
  };

  beforeEach(async () => {
    dir = mkdtempSync(join(tmpdir(), "inventory-"));
    engine = createEmbeddedEngine({ dir });
    await engine.ensureIndex("docs", DIMS);
    await engine.indexChunks("docs", chunks);
  });
  afterEach(async () => {
    await engine.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it("stores the inventory in the generation it commits with, where another process reads it", async () => {
    await engine.putInventory("docs", stored());
    await engine.commit("docs");
    const manifest = JSON.parse(readFileSync(join(dir, "docs", "manifest.json"), "utf8")) as {
      generation: number;
      files: { inventory?: string };
    };
    expect(manifest.files.inventory).toBe(`g${manifest.generation}.inventory.json`);
    expect(await engine.getInventory("docs")).toEqual(stored());
    const reader = createEmbeddedEngine({ dir });
    expect(await reader.getInventory("docs")).toEqual(stored());
    await reader.close();
  });

  it("rebuilds an inventory from the first chunks when the generation has none, equal but name and time", async () => {
    await engine.commit("docs");
    expect(readdirSync(join(dir, "docs")).some((name) => name.endsWith(".inventory.json"))).toBe(false);
    const rebuilt = await engine.getInventory("docs");
    expect(rebuilt && withoutBuiltAt(rebuilt)).toEqual({ ...withoutBuiltAt(stored()), collection: "docs" });
    expect(rebuilt?.documentCount).toBe(3);
  });

  it("drops the stored inventory when a commit changes the chunks without a new one, for every process", async () => {
    await engine.putInventory("docs", stored());
    await engine.commit("docs");
    const reader = createEmbeddedEngine({ dir });
    expect((await reader.getInventory("docs"))?.builtAt).toBe(stored().builtAt);
    await engine.indexChunks("docs", [chunk("d", 0, { issn: ["3333-3333"], journal: "Nature" })]);
    await engine.commit("docs");
    for (const side of [engine, reader]) {
      const inventory = await side.getInventory("docs");
      expect(inventory?.documentCount).toBe(4);
      expect(inventory?.entries.map((entry) => entry.journal)).toEqual(["Cell", "Nature", "Untitled Letters"]);
    }
    await reader.close();
  });

  it("commits an inventory alone, and keeps it across a commit that changes nothing", async () => {
    await engine.commit("docs");
    await engine.putInventory("docs", stored());
    await engine.commit("docs");
    await engine.indexChunks("docs", chunks);
    await engine.commit("docs");
    const reader = createEmbeddedEngine({ dir });
    expect(await reader.getInventory("docs")).toEqual(stored());
    await reader.close();
  });

  it("answers null for an index that does not exist, and forgets the inventory with a deleted index", async () => {
    await engine.putInventory("docs", stored());
    await engine.commit("docs");
    await engine.deleteIndex("docs");
    expect(await engine.getInventory("docs")).toBeNull();
    await engine.ensureIndex("docs", DIMS);
    await engine.commit("docs");
    expect((await engine.getInventory("docs"))?.documentCount).toBe(0);
    await expect(engine.putInventory("missing", stored())).rejects.toThrow(/does not exist/);
  });
});
