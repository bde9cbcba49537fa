// The incremental upsert's rule: which documents of a batch are new, changed, unchanged or gone, by their fingerprints
// against the manifest, and so which chunks are indexed, embedded and deleted. Pure: the ingestBatch activity does the
// I/O around it (reads the manifest rows, embeds, indexes, commits, records).
import type { Tokenizer } from "../../embedding/port.js";
import type { PlainCollection } from "../../domain/collectionDefinitions.js";
import type { IngestionCounts } from "../../domain/events.js";
import type { ChunkRecord } from "../../retrieval/port.js";
import { prepareDocument, workOfPrepared } from "../../ingest/pipelineRules.js";
import type { ChunkingOptions } from "../../ingest/chunk.js";
import { hashCanonicalJson } from "../../ingest/fingerprint.js";
import { chunkIdsOf, zeroCounts, type ManifestEntry } from "../../ingest/manifest.js";
import type { SourceItem } from "../../ingest/sourceDocument.js";
import type { StoredWork } from "../../ingest/works.js";

interface BatchPlan {
  /** chunks of new and changed documents, to embed (when the collection has vectors) and index */
  records: ChunkRecord[];
  /** the embedder's input of each record, in the same order */
  embeddingInputs: string[];
  /** chunk ids to delete: a changed document's surplus chunks, a removed document's every chunk */
  stale: string[];
  /** manifest rows to write: one per new or changed document */
  upserts: ManifestEntry[];
  /** doc_ids whose manifest rows go */
  deletes: string[];
  counts: IngestionCounts;
  /** every document's work is written (an unchanged text may come with changed references) */
  works: { upserts: StoredWork[]; deletes: string[] };
}

/**
 * Classifies one batch against the manifest (`known`: the rows of the batch's doc_ids). `inputs` is the hash of
 * everything besides the document that decides its chunks and vectors (pipeline version, chunker, tokenizer, model),
 * so a document whose fingerprint matches its row is left alone; a deletion, or a document retracted, closed or
 * emptied since it was indexed, leaves the collection (a retracted one stays a work, out of search).
 */
export function classifyBatch(
  items: readonly SourceItem[],
  known: ReadonlyMap<string, ManifestEntry>,
  options: { collection: PlainCollection; tokenizer: Tokenizer; inputs: string; chunking?: ChunkingOptions },
): BatchPlan {
  const { collection, tokenizer, inputs, chunking } = options;
  const plan: BatchPlan = {
    records: [],
    embeddingInputs: [],
    stale: [],
    upserts: [],
    deletes: [],
    counts: zeroCounts(),
    works: { upserts: [], deletes: [] },
  };
  const { counts, works } = plan;
  const remove = (docId: string) => {
    const before = known.get(docId);
    if (!before) return;
    plan.stale.push(...chunkIdsOf(collection.name, docId, before.chunks));
    plan.deletes.push(docId);
    counts.documentsDeleted += 1;
  };
  for (const item of items) {
    if ("deleted" in item) {
      remove(item.doc_id);
      works.deletes.push(item.doc_id);
      continue;
    }
    const prepared = prepareDocument(item, { collection, tokenizer, retracted: new Set(), chunking });
    const work = workOfPrepared(item, prepared);
    if (work) works.upserts.push(work);
    else works.deletes.push(item.doc_id);
    if (prepared.kind !== "chunks") {
      // left out by the collection's rules: a document indexed before leaves (deleted), a new one is excluded
      if (known.has(item.doc_id)) remove(item.doc_id);
      else counts.documentsExcluded += 1;
      continue;
    }
    const fingerprint = hashCanonicalJson({
      inputs,
      title: item.title,
      sections: item.sections,
      metadata: item.metadata,
      retracted: item.retracted ?? false,
      // only where a source classifies its works, so the others keep their fingerprints
      ...(item.subjects ? { subjects: item.subjects } : {}),
    });
    const before = known.get(item.doc_id);
    if (before?.fingerprint === fingerprint) {
      counts.documentsUnchanged += 1;
      continue;
    }
    if (before) {
      counts.documentsUpdated += 1;
      plan.stale.push(...chunkIdsOf(collection.name, item.doc_id, before.chunks, prepared.records.length));
    } else counts.documentsAdded += 1;
    plan.records.push(...prepared.records);
    plan.embeddingInputs.push(...prepared.embeddingInputs);
    plan.upserts.push({
      docId: item.doc_id,
      fingerprint,
      chunks: prepared.records.length,
      journal: {
        issn: item.metadata.issn ?? null,
        journal: item.metadata.journal ?? null,
        publisher: item.metadata.publisher ?? null,
        ...(item.subjects ? { subjects: item.subjects } : {}),
      },
    });
  }
  return plan;
}
