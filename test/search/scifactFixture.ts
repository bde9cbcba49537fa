// SciFact documents as chunk records for engine tests, with deterministic pseudo-random vectors seeded from the text.
// The vectors only make the two engines comparable; the real embedding model is exercised by the embedding tests
// and the quality benchmark, not here.
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import type { ChunkRecord } from "../../src/retrieval/port.js";

/** BEIR SciFact as the repository ships it (demo-data/scifact: the originals unchanged) */
export const SCIFACT_DIR = fileURLToPath(new URL("../../demo-data/scifact", import.meta.url));
/** Its first 200 documents and 20 queries, for the unit tier (small and quick to index). */
export const SCIFACT_SAMPLE_DIR = fileURLToPath(new URL("../fixtures/scifact", import.meta.url));

interface ScifactDoc {
  _id: string;
  title: string;
  text: string;
}

/** FNV-1a of the text, the seed of its vector. */
function seedOf(text: string): number {
  let hash = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    hash ^= text.charCodeAt(i);
    hash = Math.imul(hash, 0x01000193);
  }
  return hash >>> 0;
}

/** mulberry32: a small deterministic generator of floats in [0, 1). */
function generatorFrom(seed: number): () => number {
  let state = seed;
  return () => {
    state = (state + 0x6d2b79f5) | 0;
    let t = Math.imul(state ^ (state >>> 15), 1 | state);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** An L2-normalized pseudo-random vector determined by `text`. */
export function pseudoRandomVector(text: string, dims: number): Float32Array {
  const next = generatorFrom(seedOf(text));
  const vector = new Float32Array(dims);
  let norm = 0;
  for (let i = 0; i < dims; i++) {
    // centred sum of uniforms: close enough to Gaussian for spreading directions
    const value = next() + next() + next() - 1.5;
    vector[i] = value;
    norm += value * value;
  }
  const scale = 1 / Math.sqrt(norm);
  for (let i = 0; i < dims; i++) vector[i] *= scale;
  return vector;
}

/** Synthetic metadata so filters have something to select on: years, journals, ISSNs, open access. */
function syntheticMetadata(index: number, doc: ScifactDoc): ChunkRecord["metadata"] {
  const year = 2000 + (index % 20);
  const month = String((index % 12) + 1).padStart(2, "0");
  return {
    chunk_index: 0,
    doc_id: doc._id,
    title: doc.title,
    journal: ["Nature", "Cell", "The Lancet", "PLoS ONE"][index % 4],
    issn: index % 5 === 0 ? null : [`0000-000${index % 4}`, `1111-111${index % 3}`],
    publication_date: index % 7 === 0 ? `${year}` : `${year}-${month}-15`,
    open_access: index % 2 === 0,
    article_type: index % 3 === 0 ? "review" : "research-article",
    keywords: index % 4 === 0 ? ["Cancer", "Immunology"] : ["Genetics"],
  };
}

/**
 * The first `limit` SciFact documents as chunks (one per document), then the documents named in `alsoIds` that are not
 * among them, in the order given; synthetic metadata by position, so the first `limit` are the same either way.
 */
export function loadScifactChunks(
  limit: number,
  dims: number,
  alsoIds: readonly string[] = [],
  dir = SCIFACT_DIR,
): ChunkRecord[] {
  const docs = readFileSync(`${dir}/corpus.jsonl`, "utf8")
    .split("\n")
    .filter((line) => line.length > 0)
    .map((line) => JSON.parse(line) as ScifactDoc);
  const picked = docs.slice(0, limit);
  const pickedIds = new Set(picked.map((doc) => String(doc._id)));
  const byId = new Map(docs.map((doc) => [String(doc._id), doc]));
  for (const id of alsoIds) {
    const doc = byId.get(id);
    if (!doc) throw new Error(`SciFact corpus has no document ${id}`);
    if (!pickedIds.has(id)) {
      picked.push(doc);
      pickedIds.add(id);
    }
  }
  return picked.map((doc, index) => ({
    id: `scifact-${doc._id}`,
    text: doc.text,
    tokens: doc.text.split(/\s+/).length,
    metadata: syntheticMetadata(index, doc),
    vector: pseudoRandomVector(`${doc.title}\n${doc.text}`, dims),
  }));
}

/**
 * The first `limit` SciFact train queries that have judgements (qrels/train.tsv order), with their relevant documents.
 */
export function loadScifactTrainJudgements(limit: number): Array<{ id: string; text: string; relevant: Set<string> }> {
  const relevant = new Map<string, Set<string>>();
  for (const line of readFileSync(`${SCIFACT_DIR}/qrels/train.tsv`, "utf8").split(/\r?\n/).slice(1)) {
    const [queryId, docId, score] = line.split("\t");
    if (!queryId || !docId || Number(score) <= 0) continue;
    if (!relevant.has(queryId)) relevant.set(queryId, new Set());
    relevant.get(queryId)!.add(docId);
  }
  const texts = new Map(loadScifactQueries(Number.MAX_SAFE_INTEGER).map((query) => [query.id, query.text]));
  return [...relevant.entries()].slice(0, limit).map(([id, docs]) => {
    const text = texts.get(id);
    if (text === undefined) throw new Error(`SciFact train query ${id} is not in queries.jsonl`);
    return { id, text, relevant: docs };
  });
}

export function loadScifactQueries(limit: number, dir = SCIFACT_DIR): Array<{ id: string; text: string }> {
  const lines = readFileSync(`${dir}/queries.jsonl`, "utf8")
    .split("\n")
    .filter((line) => line.length > 0);
  return lines.slice(0, limit).map((line) => {
    const query = JSON.parse(line) as { _id: string | number; text: string };
    return { id: String(query._id), text: query.text };
  });
}
