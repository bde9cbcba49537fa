// The incremental upsert: a batch against the manifest re-embeds only new and changed documents, deletes a changed
// document's surplus chunks and a removed document's every chunk, and leaves unchanged ones alone.
import { describe, expect, it } from "vitest";
import { plainCollectionOf } from "../../src/domain/collectionDefinitions.js";
import { chunkIdsOf, type ManifestEntry } from "../../src/ingest/manifest.js";
import type { SourceDocument } from "../../src/ingest/sourceDocument.js";
import { classifyBatch } from "../../src/usecases/collections/classifyBatch.js";
import { whitespaceTokenizer } from "../ingest/wordTokenizer.js";

const collection = plainCollectionOf({
  name: "papers",
  displayName: "Papers",
  description: "test papers",
  kind: "scholarly",
  retrieval: "hybrid",
  pricePer1000: "0.050000",
  openAccessOnly: false,
  scanFilterable: true,
  source: { reader: "jsonl", files: ["papers.jsonl"] },
});
const options = { collection, tokenizer: whitespaceTokenizer, inputs: "pipeline-v1" };

const doc = (id: string, text: string, extra: Partial<SourceDocument> = {}): SourceDocument => ({
  doc_id: id,
  title: `Title ${id}`,
  sections: [{ section: "abstract", text }],
  metadata: { doi: `10.1/${id}` },
  ...extra,
});
const words = (n: number, word: string) => Array.from({ length: n }, (_, k) => `${word}${k}`).join(" ") + ".";

/** The manifest as a first ingestion of `docs` leaves it. */
function manifestOf(docs: SourceDocument[], inputs = options.inputs): Map<string, ManifestEntry> {
  return new Map(classifyBatch(docs, new Map(), { ...options, inputs }).upserts.map((e) => [e.docId, e]));
}

describe("classifyBatch", () => {
  const a = doc("a", words(40, "alpha"));
  const b = doc("b", words(40, "beta"));

  it("adds every document of a first ingestion, each with its chunks and one embedding input per chunk", () => {
    const plan = classifyBatch([a, b], new Map(), options);
    expect(plan.counts).toMatchObject({ documentsAdded: 2, documentsUpdated: 0, documentsUnchanged: 0 });
    expect(plan.upserts.map((e) => e.docId)).toEqual(["a", "b"]);
    expect(plan.records.length).toBe(plan.upserts.reduce((n, e) => n + e.chunks, 0));
    expect(plan.embeddingInputs).toHaveLength(plan.records.length);
    expect(plan.stale).toEqual([]);
  });

  it("leaves an unchanged document alone: nothing embedded, indexed or deleted, but its work is still written", () => {
    const plan = classifyBatch([a], manifestOf([a, b]), options);
    expect(plan.counts).toMatchObject({ documentsAdded: 0, documentsUnchanged: 1 });
    expect(plan.records).toEqual([]);
    expect(plan.upserts).toEqual([]);
    expect(plan.stale).toEqual([]);
    expect(plan.works.upserts).toHaveLength(1);
  });

  it("re-embeds a changed document and deletes only the chunks past its new count", () => {
    const long = doc("a", Array.from({ length: 6 }, (_, k) => words(60, `s${k}`)).join(" "));
    const known = manifestOf([long]);
    const before = known.get("a")!.chunks;
    expect(before).toBeGreaterThan(1);
    const plan = classifyBatch([a], known, options);
    expect(plan.counts).toMatchObject({ documentsUpdated: 1, documentsAdded: 0 });
    const after = plan.upserts[0]!.chunks;
    expect(plan.records).toHaveLength(after);
    expect(plan.stale).toEqual(chunkIdsOf("papers", "a", before, after));
    expect(plan.upserts[0]!.fingerprint).not.toBe(known.get("a")!.fingerprint);
  });

  it("re-embeds every document when the pipeline's inputs change (another model or chunker)", () => {
    const plan = classifyBatch([a, b], manifestOf([a, b], "pipeline-v0"), options);
    expect(plan.counts).toMatchObject({ documentsUpdated: 2, documentsUnchanged: 0 });
  });

  it("removes a deleted document's every chunk and its manifest row; an unknown deletion changes nothing", () => {
    const known = manifestOf([a, b]);
    const plan = classifyBatch(
      [
        { deleted: true, doc_id: "b" },
        { deleted: true, doc_id: "zz" },
      ],
      known,
      options,
    );
    expect(plan.deletes).toEqual(["b"]);
    expect(plan.stale).toEqual(chunkIdsOf("papers", "b", known.get("b")!.chunks));
    expect(plan.counts.documentsDeleted).toBe(1);
    expect(plan.works.deletes).toEqual(["b", "zz"]);
  });

  it("takes a document retracted since it was indexed out of search but keeps its work", () => {
    const known = manifestOf([a]);
    const plan = classifyBatch([{ ...a, retracted: true }], known, options);
    expect(plan.deletes).toEqual(["a"]);
    expect(plan.records).toEqual([]);
    expect(plan.works.upserts).toHaveLength(1);
  });

  it("counts a new document left out (too short to stand alone) as excluded, and one indexed before as deleted", () => {
    const short = doc("s", "Four words of text.");
    const plan = classifyBatch([short, a], new Map(), options);
    expect(plan.counts).toMatchObject({ documentsRead: 0, documentsAdded: 1, documentsExcluded: 1 });
    expect(plan.upserts.map((e) => e.docId)).toEqual(["a"]);
    const shortened = classifyBatch([{ ...a, sections: short.sections }], manifestOf([a]), options);
    expect(shortened.counts).toMatchObject({ documentsDeleted: 1, documentsExcluded: 0 });
  });
});
