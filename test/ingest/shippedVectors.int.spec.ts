// The demo's shipped passage vectors (demo-data/vectors/, scripts/demo-vectors.ts) are this pipeline's: made by the
// service's embedding path and chunker, holding every embedding input of every demo collection that needs vectors,
// and equal to what the embedder computes now (a sample re-embedded, cosine >= 0.999). Fails when the model, the
// chunker or the demo data changed and the vectors were not rebuilt.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DEFAULT_COLLECTIONS_CONFIG, DEFAULT_DATA_ROOT } from "../../src/app/config.js";
import { loadCollectionCatalog } from "../../src/app/collectionsFile.js";
import { createOnnxEmbedder, type OnnxEmbedder } from "../../src/embedding/onnxEmbedder.js";
import { expectedVectorsHeader, SHIPPED_VECTORS_FILE } from "../../src/ingest/demoVectors.js";
import { needsVectors, prepareCollection } from "../../src/ingest/pipelineRules.js";
import { readShippedVectors, staleReason, vectorKey, type ShippedVectors } from "../../src/ingest/shippedVectors.js";
import { loadServiceModelManifest } from "../embedding/provisionedModel.js";

const REBUILD = "rebuild them: npx tsx scripts/demo-vectors.ts";
let embedder: OnnxEmbedder;
let shipped: ShippedVectors;
const inputs = new Map<string, string[]>();

beforeAll(async () => {
  embedder = await createOnnxEmbedder({ manifest: await loadServiceModelManifest(), workers: 2 });
  const file = await readShippedVectors(SHIPPED_VECTORS_FILE(DEFAULT_DATA_ROOT));
  if (!file) throw new Error(`no shipped vectors at ${SHIPPED_VECTORS_FILE(DEFAULT_DATA_ROOT)}: ${REBUILD}`);
  shipped = file;
  const catalog = await loadCollectionCatalog(DEFAULT_COLLECTIONS_CONFIG);
  for (const collection of catalog.collections.filter(needsVectors)) {
    const prepared = await prepareCollection({
      collection,
      dataRoot: DEFAULT_DATA_ROOT,
      tokenizer: embedder.tokenizer,
      retracted: new Set(),
    });
    inputs.set(collection.name, prepared.embeddingInputs);
  }
}, 300_000);

afterAll(async () => {
  await embedder?.close();
});

describe("the shipped demo vectors", () => {
  it("were made by this embedding path, chunker and record building", () => {
    expect(staleReason(shipped.header, expectedVectorsHeader(embedder)), REBUILD).toBeNull();
  });

  it("hold every embedding input of every demo collection with vectors (every one of them hybrid or dense)", () => {
    expect([...inputs.keys()].sort()).toEqual([
      "clinical-digest",
      "openalex-open-access",
      "openalex-synergy",
      "scifact",
    ]);
    for (const [collection, texts] of inputs) {
      const missing = texts.filter((text) => !shipped.get(vectorKey(text)));
      expect(
        missing.length,
        `${collection}: ${missing.length} of ${texts.length} chunks have no shipped vector; ${REBUILD}`,
      ).toBe(0);
    }
  });

  it("equal the vectors the embedder computes now (a sample of each collection, cosine >= 0.999)", async () => {
    for (const [collection, texts] of inputs) {
      const sample = Array.from({ length: 6 }, (_, i) => texts[Math.floor((i * texts.length) / 6)]!);
      const fresh = await embedder.embedPassages(sample);
      sample.forEach((text, i) => {
        const stored = shipped.get(vectorKey(text))!;
        const cosine = stored.reduce((sum, v, k) => sum + v * fresh[i]![k]!, 0);
        expect(cosine, `${collection}: ${text.slice(0, 60)}`).toBeGreaterThanOrEqual(0.999);
      });
    }
  });
});
