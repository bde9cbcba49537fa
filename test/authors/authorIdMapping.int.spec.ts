// The author_id filter on both engines, and the OpenSearch upgrade path: an index created under mapping version 2
// (without the author_id field) gets the field added in place on first use, so chunks re-ingested into it are found
// by the filter as in a new index; a name is never a key.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createEmbeddedEngine } from "../../src/retrieval/engines/embedded/embeddedEngine.js";
import { createOpenSearchEngine } from "../../src/retrieval/engines/opensearch/openSearchEngine.js";
import { chunkIndexBody, OPENSEARCH_MAPPING_VERSION } from "../../src/retrieval/engines/opensearch/indexMapping.js";
import type { ChunkRecord, SearchEngine } from "../../src/retrieval/port.js";
import type { FilterNode } from "../../src/filters/ast.js";
import { authorKeys, type Authorship } from "../../src/domain/authors.js";
import { requireComponent } from "../setup/components.js";

const KIRSCHBAUM: Authorship = {
  name: "Clemens Kirschbaum",
  id: "A1928796387",
  orcid: "0000-0003-3707-4444",
  position: "last",
};
const NAMESAKE: Authorship = { name: "Clemens Kirschbaum", id: "A4343333101", orcid: null, position: "first" };
const MEDLINE: Authorship = { name: "C Kirschbaum", id: null, orcid: "0000-0003-3707-4444", position: "first" };

function chunk(id: string, authorships: Authorship[]): ChunkRecord {
  return {
    id,
    text: `hair cortisol concentrations in chronic stress, document ${id}`,
    tokens: 10,
    metadata: {
      doc_id: id,
      chunk_index: 0,
      authors: authorships.map((a) => a.name),
      authorships,
      author_id: authorKeys(authorships),
    },
  };
}

const CHUNKS = [chunk("d1", [KIRSCHBAUM]), chunk("d2", [NAMESAKE]), chunk("d3", [MEDLINE]), chunk("d4", [])];
const byAuthor = (...values: string[]): FilterNode => ({ kind: "in", field: "author_id", values });

async function matched(engine: SearchEngine, index: string, filter: FilterNode): Promise<string[]> {
  const hits = await engine.search({ index, mode: "sparse", text: "hair cortisol", limit: 10, filter });
  return hits.map((h) => h.id).sort();
}

describe("the author_id filter", () => {
  const dir = mkdtempSync(join(tmpdir(), "author-id-"));
  let url: string;
  let opensearch: ReturnType<typeof createOpenSearchEngine>;
  const prefix = `authors-${process.pid}-`;

  beforeAll(() => {
    url = requireComponent("opensearchUrl");
    opensearch = createOpenSearchEngine({ url, indexPrefix: prefix });
  });

  afterAll(async () => {
    await opensearch?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it("matches by OpenAlex id or ORCID on both engines, never by the name", async () => {
    const embedded = createEmbeddedEngine({ dir });
    for (const engine of [embedded, opensearch]) {
      await engine.ensureIndex("fresh", 384);
      await engine.indexChunks("fresh", CHUNKS);
      await engine.commit("fresh");
      expect(await matched(engine, "fresh", byAuthor("A1928796387")), engine.kind).toEqual(["d1"]);
      expect(await matched(engine, "fresh", byAuthor("0000-0003-3707-4444")), engine.kind).toEqual(["d1", "d3"]);
      expect(await matched(engine, "fresh", byAuthor("A4343333101")), engine.kind).toEqual(["d2"]);
      expect(await matched(engine, "fresh", byAuthor("Clemens Kirschbaum")), engine.kind).toEqual([]);
    }
    await opensearch.deleteIndex("fresh");
  });

  it("adds the field to an index of mapping version 2 in place, and then finds re-ingested chunks", async () => {
    const body = chunkIndexBody(384, "binary") as { mappings: Record<string, any> };
    delete body.mappings.properties.metadata.properties.author_id;
    body.mappings._meta.mappingVersion = 2;
    const created = await fetch(`${url}/${prefix}legacy`, {
      method: "PUT",
      headers: { "content-type": "application/json" },
      body: JSON.stringify(body),
    });
    expect(created.status).toBe(200);
    const fresh = createOpenSearchEngine({ url, indexPrefix: prefix });
    try {
      await fresh.indexChunks("legacy", CHUNKS);
      await fresh.commit("legacy");
      const mapping = (await (await fetch(`${url}/${prefix}legacy/_mapping`)).json()) as Record<string, any>;
      const mappings = mapping[`${prefix}legacy`].mappings;
      expect(mappings._meta.mappingVersion).toBe(OPENSEARCH_MAPPING_VERSION);
      expect(mappings.properties.metadata.properties.author_id.type).toBe("keyword");
      expect(await matched(fresh, "legacy", byAuthor("0000-0003-3707-4444", "A4343333101"))).toEqual([
        "d1",
        "d2",
        "d3",
      ]);
    } finally {
      await fresh.deleteIndex("legacy");
      await fresh.close();
    }
  });
});
