// An exact match of a rare phrase is never hidden by the recommended min_relevance: a small collection (the SciFact
// abstracts holding "umbilical vein endothelial" among abstracts on the same subjects that do not), the service's
// embedding model and the embedded engine, searched for the phrase in each retrieval mode that matches terms. The
// phrase was the worst of the rare phrases bench:quality measures (short, so its passages sit at low cosines).
import { mkdtempSync, rmSync } from "node:fs";
import { readFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DEFAULT_DATA_ROOT, REPO_ROOT } from "../../src/app/config.js";
import { createOnnxEmbedder, type OnnxEmbedder } from "../../src/embedding/onnxEmbedder.js";
import { createEmbeddedEngine } from "../../src/retrieval/engines/embedded/embeddedEngine.js";
import type { ChunkRecord, RetrievalMode, SearchEngine } from "../../src/retrieval/port.js";
import { RECOMMENDED_MIN_RELEVANCE, requestTraits } from "../../src/retrieval/relevance.js";
import { mergeByRelevance } from "../../src/retrieval/rerank.js";
import { loadServiceModelManifest } from "../embedding/provisionedModel.js";

const PHRASE = "umbilical vein endothelial";
const INDEX = "rare-phrase";
/** words of the phrase's subject: distractors hold some of them, not the phrase */
const NEIGHBOURS = /\b(endothelial|endothelium|umbilical|vascular|angiogenesis)\b/i;
const DISTRACTORS = 60;

const normalized = (text: string): string =>
  ` ${text
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, " ")
    .trim()} `;
const holdsPhrase = (chunk: ChunkRecord): boolean =>
  normalized(`${String(chunk.metadata.title ?? "")} ${chunk.text}`).includes(` ${PHRASE} `);

let embedder: OnnxEmbedder;
let engine: SearchEngine;
let dir: string;
let holders: number;

beforeAll(async () => {
  embedder = await createOnnxEmbedder({ manifest: await loadServiceModelManifest(), batchSize: 16, threads: 2 });
  dir = mkdtempSync(join(tmpdir(), "rare-phrase-"));
  engine = createEmbeddedEngine({ dir });
  const docs: Array<{ _id: string; title: string; text: string }> = [];
  for (const line of (await readFile(join(DEFAULT_DATA_ROOT, "scifact", "corpus.jsonl"), "utf8")).split("\n"))
    if (line.trim()) docs.push(JSON.parse(line) as { _id: string; title: string; text: string });
  const withPhrase = docs.filter((d) => normalized(`${d.title} ${d.text}`).includes(` ${PHRASE} `));
  const distractors = docs
    .filter((d) => !normalized(`${d.title} ${d.text}`).includes(` ${PHRASE} `) && NEIGHBOURS.test(d.text))
    .slice(0, DISTRACTORS);
  holders = withPhrase.length;
  const picked = [...withPhrase, ...distractors];
  // one chunk per abstract (its first 1,200 characters), embedded as ingestion embeds a passage: title, then text
  const texts = picked.map((d) => d.text.slice(0, 1200));
  const vectors = await embedder.embedPassages(picked.map((d, i) => `${d.title}\n${texts[i]}`));
  const chunks: ChunkRecord[] = picked.map((d, i) => ({
    id: `${d._id}:0`,
    text: texts[i]!,
    tokens: 200,
    metadata: { chunk_index: 0, doc_id: String(d._id), title: d.title },
    vector: vectors[i],
  }));
  await engine.ensureIndex(INDEX, embedder.dims, embedder.modelName);
  await engine.indexChunks(INDEX, chunks);
  await engine.commit(INDEX);
}, 300_000);

afterAll(async () => {
  await engine?.close();
  await embedder?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

describe(`an exact match of "${PHRASE}"`, () => {
  it("is a rare phrase of the fixture: about ten documents hold it", () => {
    expect(holders).toBeGreaterThanOrEqual(8);
    expect(holders).toBeLessThanOrEqual(12);
  });

  it.each<RetrievalMode>(["sparse", "hybrid"])(
    "stands at or above the recommended min_relevance in %s mode",
    async (mode) => {
      const vector = await embedder.embedQuery(PHRASE);
      const hits = await engine.search({ index: INDEX, mode, text: PHRASE, vector, limit: 2 * holders });
      const merged = mergeByRelevance([{ key: INDEX, source: INDEX, mode, hits }], 2 * holders, requestTraits(PHRASE));
      const exact = merged.filter((m) => holdsPhrase(m.hit.chunk));
      console.log(
        `[rare phrase] ${mode}: exact matches ${exact.map((m) => m.relevance).join(", ")}; others ` +
          merged
            .filter((m) => !holdsPhrase(m.hit.chunk))
            .map((m) => m.relevance)
            .join(", "),
      );
      // the engine finds (nearly) every holder among its first rows, so the check below is not vacuous
      expect(exact.length).toBeGreaterThanOrEqual(holders - 1);
      for (const m of exact) expect(m.relevance, m.hit.id).toBeGreaterThanOrEqual(RECOMMENDED_MIN_RELEVANCE);
    },
  );

  it("is what docs/api.md recommends", async () => {
    const api = await readFile(join(REPO_ROOT, "docs", "api.md"), "utf8");
    expect(api).toContain(`**Recommendation: \`min_relevance: ${RECOMMENDED_MIN_RELEVANCE}\`**`);
  });
});
