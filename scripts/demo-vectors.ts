// Builds the demo collections' passage vectors that ship with the repository (demo-data/vectors/), with the
// project's own pipeline: each demo collection that needs vectors is read and chunked as ingestion does, and every
// distinct embedding input not already in the file is embedded with the service's embedder. Incremental: vectors of
// texts that are still there are kept when the header still matches. Run after a change to the model, the chunker or
// the demo data (test/ingest/shippedVectors.int.spec.ts fails until then):
//   npx tsx scripts/demo-vectors.ts [--data-root DIR] [--out FILE] [--workers N]
import { mkdir } from "node:fs/promises";
import { dirname } from "node:path";
import { parseArgs } from "node:util";
import { cacheDirFrom, DEFAULT_COLLECTIONS_CONFIG, DEFAULT_DATA_ROOT } from "../src/app/config.js";
import { loadCollectionCatalog } from "../src/app/collectionsFile.js";
import { embeddingModelManifestPath } from "../src/embedding/modelManifest.js";
import { createOnnxEmbedder } from "../src/embedding/onnxEmbedder.js";
import { needsVectors, prepareCollection } from "../src/ingest/pipelineRules.js";
import { expectedVectorsHeader, SHIPPED_VECTORS_FILE } from "../src/ingest/demoVectors.js";
import { readShippedVectors, staleReason, vectorKey, writeShippedVectors } from "../src/ingest/shippedVectors.js";

const { values } = parseArgs({
  options: {
    "data-root": { type: "string", default: DEFAULT_DATA_ROOT },
    out: { type: "string" },
    workers: { type: "string", default: "2" },
  },
});
const dataRoot = values["data-root"]!;
const catalog = await loadCollectionCatalog(DEFAULT_COLLECTIONS_CONFIG);
const embedder = await createOnnxEmbedder({
  manifest: embeddingModelManifestPath(cacheDirFrom(process.env)),
  workers: Number(values.workers),
});
const expected = expectedVectorsHeader(embedder);
const path = values.out ?? SHIPPED_VECTORS_FILE(dataRoot);

const texts = new Map<string, string>();
for (const collection of catalog.collections.filter(needsVectors)) {
  // every document, retracted ones too: the lists in force decide at ingestion, and the file serves any of them
  const prepared = await prepareCollection({
    collection: { ...collection, excludeRetracted: false },
    dataRoot,
    tokenizer: embedder.tokenizer,
    retracted: new Set(),
  });
  for (const input of prepared.embeddingInputs) texts.set(vectorKey(input), input);
  console.log(
    `${collection.name}: ${prepared.embeddingInputs.length} chunks of ${prepared.documentsIndexed} documents`,
  );
}

const vectors = new Map<string, Float32Array>();
const existing = await readShippedVectors(path);
if (existing && staleReason(existing.header, expected) === null) {
  for (const key of texts.keys()) {
    const vector = existing.get(key);
    if (vector) vectors.set(key, vector);
  }
}
const missing = [...texts.entries()].filter(([key]) => !vectors.has(key));
console.log(
  `${texts.size} distinct texts: ${vectors.size} kept from ${path}, ${missing.length} to embed with ` +
    `${embedder.modelName}`,
);
const started = performance.now();
let last = 0;
const fresh = await embedder.embedPassages(
  missing.map(([, text]) => text),
  (done) => {
    const now = performance.now();
    if (now - last < 10_000 && done < missing.length) return;
    last = now;
    const rate = done / ((now - started) / 1000);
    console.log(
      `  ${done}/${missing.length} embedded, ${rate.toFixed(1)}/s, about ` +
        `${Math.round((missing.length - done) / Math.max(rate, 0.01))} s left`,
    );
  },
);
missing.forEach(([key], i) => vectors.set(key, fresh[i]!));
await embedder.close();
await mkdir(dirname(path), { recursive: true });
await writeShippedVectors(path, expected, vectors);
console.log(`wrote ${vectors.size} vectors (${expected.embedding}, float16) to ${path}`);
