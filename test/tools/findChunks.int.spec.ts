// The retrieval port's findChunks (works/lookup reads works through it) answers alike on the embedded engine and on a
// real OpenSearch node: the chunks of a work by DOI and by PMID, within the limit, none for an absent identifier. Needs
// OpenSearch.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DEFAULT_COLLECTIONS_CONFIG } from "../../src/app/config.js";
import { loadCollectionCatalog } from "../../src/app/collectionsFile.js";
import { prepareCollection } from "../../src/ingest/pipelineRules.js";
import { createEmbeddedEngine } from "../../src/retrieval/engines/embedded/embeddedEngine.js";
import { createOpenSearchEngine } from "../../src/retrieval/engines/opensearch/openSearchEngine.js";
import type { ChunkRecord, SearchEngine } from "../../src/retrieval/port.js";
import { requireComponent } from "../setup/components.js";
import { pseudoRandomVector } from "../search/scifactFixture.js";
import { sliceDataRoot } from "../support/testService.js";
import { whitespaceTokenizer } from "../ingest/wordTokenizer.js";

const DIMS = 8;
const INDEX = "find-chunks";
let dir: string;
let dataRoot: string;
let records: ChunkRecord[];
let engines: [string, SearchEngine][];

beforeAll(async () => {
  const url = requireComponent("opensearchUrl");
  dir = mkdtempSync(join(tmpdir(), "find-chunks-"));
  dataRoot = await sliceDataRoot(40);
  const catalog = await loadCollectionCatalog(DEFAULT_COLLECTIONS_CONFIG);
  const collection = catalog.collections.find((c) => c.name === "clinical-digest")!;
  const prepared = await prepareCollection({
    collection,
    dataRoot,
    tokenizer: whitespaceTokenizer,
    retracted: new Set(),
  });
  records = prepared.records.map((r) => ({ ...r, vector: pseudoRandomVector(r.id, DIMS) }));
  engines = [
    ["embedded", createEmbeddedEngine({ dir: join(dir, "index") })],
    ["opensearch", createOpenSearchEngine({ url, indexPrefix: `find-chunks-${process.pid}-` })],
  ];
  for (const [, engine] of engines) {
    await engine.ensureIndex(INDEX, DIMS);
    await engine.indexChunks(INDEX, records);
    await engine.commit(INDEX);
  }
}, 300_000);

afterAll(async () => {
  for (const [, engine] of engines ?? []) {
    await engine.deleteIndex(INDEX).catch(() => undefined);
    await engine.close();
  }
  if (dir) rmSync(dir, { recursive: true, force: true });
  if (dataRoot) rmSync(dataRoot, { recursive: true, force: true });
});

describe("findChunks", () => {
  it("returns the chunks of a work by DOI and by PMID on both engines, within the limit", async () => {
    // a work of several chunks with both identifiers
    const byDoc = new Map<string, ChunkRecord[]>();
    for (const r of records)
      if (r.metadata.doi && r.metadata.pmid) byDoc.set(r.metadata.doc_id, [...(byDoc.get(r.metadata.doc_id) ?? []), r]);
    const work = [...byDoc.values()].sort((a, b) => b.length - a.length)[0]!;
    expect(work.length).toBeGreaterThan(1);
    const { doi, pmid } = work[0]!.metadata;
    const expected = work.map((r) => r.id).sort();
    for (const [name, engine] of engines) {
      const byDoi = await engine.findChunks(INDEX, { kind: "eq", field: "doi", value: doi! }, 50);
      expect(byDoi.map((c) => c.id).sort(), name).toEqual(expected);
      expect(byDoi[0]!.metadata.title, name).toBe(work[0]!.metadata.title);
      const byPmid = await engine.findChunks(INDEX, { kind: "eq", field: "pmid", value: pmid! }, 50);
      expect(byPmid.map((c) => c.id).sort(), name).toEqual(expected);
      expect(await engine.findChunks(INDEX, { kind: "eq", field: "doi", value: doi! }, 1), name).toHaveLength(1);
      expect(await engine.findChunks(INDEX, { kind: "eq", field: "doi", value: "10.9999/absent" }, 50), name).toEqual(
        [],
      );
    }
  });
});
