// Incremental updates on both engines (the embedded engine and a real OpenSearch node): staged upserts and deletions
// are invisible until commit and all visible after it, a search running beside a series of commits that change and
// delete documents sees every document in exactly one version, deleted chunks leave every read and the inventory,
// and another engine instance sees the new generation. Needs OpenSearch.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { FilterNode } from "../../src/filters/ast.js";
import { createEmbeddedEngine } from "../../src/retrieval/engines/embedded/embeddedEngine.js";
import { createOpenSearchEngine } from "../../src/retrieval/engines/opensearch/openSearchEngine.js";
import { EmbeddingMismatchError, type ChunkRecord, type SearchEngine } from "../../src/retrieval/port.js";
import { requireComponent } from "../setup/components.js";

const DIMS = 8;
/** a term in every chunk, so one sparse search returns them all */
const COMMON = "corpus";
const ALL: FilterNode = { kind: "exists", field: "doc_id" };
/** one made-up word per version, so a chunk's text says which version of its document it belongs to */
const MARKERS = [
  "zebulon",
  "quixotic",
  "wombatry",
  "xylophant",
  "jubilax",
  "kvetchy",
  "plover",
  "grackle",
  "mongoose",
  "ocelot",
  "narwhal",
];

/** Chunks of one version of a document: `count` chunks, ids stable per (doc, chunk) unless `fresh` gives new ones. */
function docChunks(
  doc: string,
  version: number,
  count: number,
  options: { fresh?: boolean; journal?: string } = {},
): ChunkRecord[] {
  return Array.from({ length: count }, (_, index): ChunkRecord => ({
    id: options.fresh ? `${doc}-v${version}-c${index}` : `${doc}-c${index}`,
    text: `${COMMON} ${MARKERS[version]} passage ${index} of ${doc}`,
    tokens: 6,
    metadata: {
      chunk_index: index,
      doc_id: doc,
      title: `Document ${doc}`,
      journal: options.journal ?? "Journal of Tests",
      issn: [options.journal === "Deleted Letters" ? "2222-2222" : "1111-1111"],
    },
  }));
}

const versionOf = (chunk: ChunkRecord): number => MARKERS.findIndex((marker) => chunk.text.includes(` ${marker} `));

interface EngineUnderTest {
  name: string;
  engine: SearchEngine;
  /** a second instance reading the same indexes (the embedded one on the same directory) */
  other: () => SearchEngine;
}

describe("incremental updates, on both engines", () => {
  let dir: string;
  let prefix: string;
  let url: string;
  const created: SearchEngine[] = [];
  const engines: EngineUnderTest[] = [];

  beforeAll(() => {
    // fails (does not skip) when the run did not start OpenSearch
    url = requireComponent("opensearchUrl");
    dir = mkdtempSync(join(tmpdir(), "live-updates-"));
    prefix = `live-${process.pid}-`;
    const embedded = (): SearchEngine => {
      const engine = createEmbeddedEngine({ dir });
      created.push(engine);
      return engine;
    };
    const opensearch = (): SearchEngine => {
      const engine = createOpenSearchEngine({ url, indexPrefix: prefix });
      created.push(engine);
      return engine;
    };
    engines.push(
      { name: "embedded", engine: embedded(), other: embedded },
      { name: "opensearch", engine: opensearch(), other: opensearch },
    );
  });

  afterAll(async () => {
    for (const { engine } of engines) {
      for (const index of ["staged", "concurrent", "deleted", "shared", "embedded-by", "unrecorded"])
        await engine.deleteIndex(index).catch(() => undefined);
    }
    for (const engine of created) await engine.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  async function fresh(engine: SearchEngine, index: string, chunks: ChunkRecord[]): Promise<void> {
    await engine.deleteIndex(index);
    await engine.ensureIndex(index, DIMS);
    await engine.indexChunks(index, chunks);
    await engine.commit(index);
  }

  /** Every read of the index, as plain data: what a search, getChunks, countChunks, findChunks and stats see. */
  async function reads(engine: SearchEngine, index: string, ids: string[]) {
    const hits = await engine.search({ index, mode: "sparse", text: COMMON, limit: 1000 });
    const found = await engine.findChunks(index, ALL, 1000);
    return {
      searched: hits.map((hit) => `${hit.id}:${versionOf(hit.chunk)}`).sort(),
      fetched: (await engine.getChunks(index, ids)).map((chunk) => `${chunk.id}:${versionOf(chunk)}`).sort(),
      counted: await engine.countChunks(index, ALL),
      found: found.map((chunk) => `${chunk.id}:${versionOf(chunk)}`).sort(),
      stats: (await engine.stats(index)).chunks,
    };
  }

  it("keeps staged upserts and deletions invisible until commit, and shows all of them after it", async () => {
    for (const { name, engine } of engines) {
      const before = [...docChunks("a", 0, 2), ...docChunks("b", 0, 2), ...docChunks("c", 0, 1)];
      await fresh(engine, "staged", before);
      const ids = ["a-c0", "a-c1", "b-c0", "b-c1", "c-c0", "d-c0"];
      const committed = await reads(engine, "staged", ids);
      expect(committed.counted, name).toBe(5);

      // a changed (same ids), b deleted, d added; c untouched
      await engine.indexChunks("staged", docChunks("a", 1, 2));
      await engine.deleteChunks("staged", ["b-c0", "b-c1", "never-indexed"]);
      await engine.indexChunks("staged", docChunks("d", 1, 1));
      expect(await reads(engine, "staged", ids), `${name} before commit`).toEqual(committed);
      expect(await engine.search({ index: "staged", mode: "sparse", text: MARKERS[1], limit: 10 }), name).toEqual([]);

      await engine.commit("staged");
      const after = await reads(engine, "staged", ids);
      const expected = ["a-c0:1", "a-c1:1", "c-c0:0", "d-c0:1"];
      expect(after, `${name} after commit`).toEqual({
        searched: expected,
        fetched: expected,
        counted: 4,
        found: expected,
        stats: 4,
      });
      expect(
        (await engine.search({ index: "staged", mode: "sparse", text: MARKERS[1], limit: 10 }))
          .map((hit) => hit.id)
          .sort(),
        name,
      ).toEqual(["a-c0", "a-c1", "d-c0"]);
    }
  });

  it("never shows a search a document in two versions or in none while commits change and delete them", async () => {
    const DOCS = 24;
    const COMMITS = 10;
    for (const { name, engine } of engines) {
      // every document starts at version 0 with 3 chunks
      const chunkIds = new Map<string, string[]>();
      const initial: ChunkRecord[] = [];
      for (let n = 0; n < DOCS; n++) {
        const chunks = docChunks(`doc${n}`, 0, 3);
        chunkIds.set(
          `doc${n}`,
          chunks.map((chunk) => chunk.id),
        );
        initial.push(...chunks);
      }
      await fresh(engine, "concurrent", initial);
      /** the versions a document may be seen in right now: the committed one, and the one a running commit makes */
      const allowed = new Map<string, Set<number | "deleted">>();
      for (let n = 0; n < DOCS; n++) allowed.set(`doc${n}`, new Set([0]));
      const deleted = new Set<string>();

      let running = true;
      const violations: string[] = [];
      let searches = 0;
      const searcher = (async () => {
        while (running) {
          // a read may see what was allowed when it started or when it ended (a commit may complete while it runs)
          const snapshot = () => new Map([...allowed].map(([doc, versions]) => [doc, new Set(versions)]));
          const atSearch = snapshot();
          const hits = await engine.search({ index: "concurrent", mode: "sparse", text: COMMON, limit: 1000 });
          const atFind = snapshot();
          const found = await engine.findChunks("concurrent", ALL, 1000);
          const atEnd = snapshot();
          searches++;
          const during = (from: typeof atEnd, to: typeof atEnd) =>
            new Map([...to].map(([doc, versions]) => [doc, new Set([...(from.get(doc) ?? []), ...versions])]));
          for (const [source, chunks, window] of [
            ["search", hits.map((hit) => hit.chunk), during(atSearch, atFind)],
            ["findChunks", found, during(atFind, atEnd)],
          ] as const) {
            const byDoc = new Map<string, ChunkRecord[]>();
            for (const chunk of chunks)
              byDoc.set(chunk.metadata.doc_id, [...(byDoc.get(chunk.metadata.doc_id) ?? []), chunk]);
            for (const [doc, versions] of window) {
              const seen = byDoc.get(doc) ?? [];
              const seenVersions = new Set(seen.map(versionOf));
              if (seen.length === 0) {
                if (!versions.has("deleted")) violations.push(`${source}: ${doc} missing`);
                continue;
              }
              if (seenVersions.size !== 1)
                violations.push(`${source}: ${doc} in versions ${[...seenVersions].join("+")}`);
              const [version] = seenVersions;
              if (!versions.has(version))
                violations.push(`${source}: ${doc} in version ${version}, allowed ${[...versions].join(",")}`);
              // a version's chunks all at once (version 3k+1 of a document has 2 chunks, the others 3)
              if (seen.length !== (version % 3 === 1 ? 2 : 3))
                violations.push(`${source}: ${doc} v${version} with ${seen.length} chunks`);
            }
          }
          await new Promise((resolve) => setImmediate(resolve));
        }
      })();

      for (let version = 1; version <= COMMITS; version++) {
        const next = new Map<string, number | "deleted">();
        // the versions a running commit may make visible are allowed from the moment their staging starts
        for (let n = version % 3; n < DOCS; n += 3) {
          const doc = `doc${n}`;
          if (!deleted.has(doc)) (allowed.get(doc) as Set<number | "deleted">).add(n === version ? "deleted" : version);
        }
        for (let n = version % 3; n < DOCS; n += 3) {
          const doc = `doc${n}`;
          if (deleted.has(doc)) continue;
          const old = chunkIds.get(doc) as string[];
          if (n === version) {
            // deleted for good
            await engine.deleteChunks("concurrent", old);
            next.set(doc, "deleted");
            deleted.add(doc);
            continue;
          }
          // versions 3k+1 have 2 chunks under new ids (the old ones deleted), the others 3 under the stable ids
          const chunks = version % 3 === 1 ? docChunks(doc, version, 2, { fresh: true }) : docChunks(doc, version, 3);
          const stale = old.filter((id) => !chunks.some((chunk) => chunk.id === id));
          await engine.deleteChunks("concurrent", stale);
          await engine.indexChunks("concurrent", chunks);
          chunkIds.set(
            doc,
            chunks.map((chunk) => chunk.id),
          );
          next.set(doc, version);
          // staging takes time in a real ingestion: searches run between the staged parts of a change
          await new Promise((resolve) => setTimeout(resolve, 2));
        }
        await engine.commit("concurrent");
        for (const [doc, state] of next) allowed.set(doc, new Set([state]));
      }
      running = false;
      await searcher;
      expect(violations.slice(0, 10), name).toEqual([]);
      expect(searches, name).toBeGreaterThan(COMMITS);
      // and the end state is exactly the last version of every document
      const end = await engine.findChunks("concurrent", ALL, 1000);
      const endDocs = new Set(end.map((chunk) => chunk.metadata.doc_id));
      expect([...endDocs].sort(), name).toEqual([...allowed.keys()].filter((doc) => !deleted.has(doc)).sort());
      for (const chunk of end)
        expect(allowed.get(chunk.metadata.doc_id)?.has(versionOf(chunk)), `${name} ${chunk.id}`).toBe(true);
    }
  });

  it("removes deleted chunks from every read and from the inventory, and another instance sees it", async () => {
    for (const { name, engine, other } of engines) {
      const chunks = [
        ...docChunks("kept", 0, 2),
        ...docChunks("gone", 0, 2, { journal: "Deleted Letters" }),
        ...docChunks("also", 0, 1),
      ];
      await fresh(engine, "deleted", chunks);
      // an inventory stored by an ingest, then a commit that deletes without a new one: it must not survive
      const stored = await engine.getInventory("deleted");
      expect(stored?.documentCount, name).toBe(3);
      await engine.putInventory("deleted", {
        ...(stored as NonNullable<typeof stored>),
        builtAt: "2020-01-01T00:00:00.000Z",
      });
      await engine.commit("deleted");
      expect((await engine.getInventory("deleted"))?.builtAt, name).toBe("2020-01-01T00:00:00.000Z");

      const reader = other();
      expect((await reader.getInventory("deleted"))?.documentCount, name).toBe(3);
      await engine.deleteChunks("deleted", ["gone-c0", "gone-c1"]);
      await engine.commit("deleted");

      for (const side of [engine, reader]) {
        const ids = chunks.map((chunk) => chunk.id);
        const seen = await reads(side, "deleted", ids);
        const expected = ["also-c0:0", "kept-c0:0", "kept-c1:0"];
        expect(seen, name).toEqual({ searched: expected, fetched: expected, counted: 3, found: expected, stats: 3 });
        expect(await side.search({ index: "deleted", mode: "sparse", text: "gone", limit: 10 }), name).toEqual([]);
        expect(
          await side.countChunks("deleted", { kind: "eq", field: "journal", value: "Deleted Letters" }),
          name,
        ).toBe(0);
        const inventory = await side.getInventory("deleted");
        expect(inventory?.documentCount, name).toBe(2);
        expect(inventory?.builtAt, name).not.toBe("2020-01-01T00:00:00.000Z");
        expect(
          inventory?.entries.map((entry) => [entry.journal, entry.documents]),
          name,
        ).toEqual([["Journal of Tests", 2]]);
      }
    }
  });

  it("lets another instance see each new generation at its commit and not before", async () => {
    for (const { name, engine, other } of engines) {
      await fresh(engine, "shared", [...docChunks("x", 0, 2), ...docChunks("y", 0, 1)]);
      const reader = other();
      const readIds = async () =>
        (await reader.findChunks("shared", ALL, 100)).map((chunk) => `${chunk.id}:${versionOf(chunk)}`).sort();
      expect(await readIds(), name).toEqual(["x-c0:0", "x-c1:0", "y-c0:0"]);
      await engine.indexChunks("shared", docChunks("x", 2, 1));
      await engine.deleteChunks("shared", ["x-c1", "y-c0"]);
      expect(await readIds(), `${name} before commit`).toEqual(["x-c0:0", "x-c1:0", "y-c0:0"]);
      await engine.commit("shared");
      expect(await readIds(), `${name} after commit`).toEqual(["x-c0:2"]);
      expect((await reader.stats("shared")).chunks, name).toBe(1);
    }
  });

  it("records an index's embedding path, refuses queries and writers of another path, in every instance", async () => {
    const vector = Float32Array.from({ length: DIMS }, (_, i) => (i === 0 ? 1 : 0));
    const chunks = docChunks("v", 0, 2).map((chunk) => ({ ...chunk, vector }));
    for (const { name, engine, other } of engines) {
      await engine.ensureIndex("embedded-by", DIMS, "model-a@fp32:000000000000");
      await engine.indexChunks("embedded-by", chunks);
      await engine.commit("embedded-by");
      const reader = other();
      expect(await reader.embeddingOf("embedded-by"), name).toBe("model-a@fp32:000000000000");
      const search = (side: SearchEngine, embedding: string) =>
        side.search({ index: "embedded-by", mode: "hybrid", text: COMMON, vector, embedding, limit: 5 });
      expect((await search(reader, "model-a@fp32:000000000000")).length, name).toBe(2);
      for (const side of [engine, reader]) {
        await expect(search(side, "model-b@fp32:111111111111"), name).rejects.toThrow(EmbeddingMismatchError);
        await expect(search(side, "model-b@fp32:111111111111"), name).rejects.toThrow(
          /made by model-a@fp32:000000000000, and this process embeds with model-b@fp32:111111111111/,
        );
      }
      // sparse searches carry no vector and are not refused
      expect((await reader.search({ index: "embedded-by", mode: "sparse", text: COMMON, limit: 5 })).length, name).toBe(
        2,
      );
      await expect(engine.ensureIndex("embedded-by", DIMS, "model-b@fp32:111111111111"), name).rejects.toThrow(
        EmbeddingMismatchError,
      );
      await engine.ensureIndex("embedded-by", DIMS, "model-a@fp32:000000000000");
      // an index that recorded none (built before indexes recorded it) keeps answering
      await engine.ensureIndex("unrecorded", DIMS);
      expect(await engine.embeddingOf("unrecorded"), name).toBeNull();
      expect(await engine.embeddingOf("no-such-index"), name).toBeNull();
    }
  });
});
