// The vector backfill's activity: one batch of a collection's chunks without a vector embedded (each chunk's input
// rebuilt from its stored title and text, as the ingestion builds it) and written back under the collection's writer.
// Idempotent: each batch reads what still lacks a vector, and a chunk is written only when it is still the one that
// was embedded, so a batch run twice (a killed worker) gives the same vectors and loses none.
import { asActivity, heartbeating } from "./asActivity.js";
import type { CollectionWriters } from "./collectionWriters.js";
import type { Embedder, Tokenizer } from "../src/embedding/port.js";
import { chunkFingerprint } from "../src/retrieval/chunkFingerprint.js";
import type { ChunkRecord, SearchEngine } from "../src/retrieval/port.js";
import { embedAll, embeddingInputOf } from "../src/ingest/pipelineRules.js";
import type { BackfillBatch, VectorBackfillActivities } from "../workflows/ingestionTypes.js";

interface VectorBackfillDeps {
  engine: SearchEngine;
  /** the embedder of passages, opened on the first batch */
  passageEmbedder: () => Promise<Embedder>;
  tokenizer: Tokenizer;
  /** the worker process's one writer per collection (the ingestion's activities share it) */
  writers: CollectionWriters;
  /** fault injection for crash tests: a batch waits this long after embedding, before it writes */
  beforeWriteDelayMs?: number;
}

/** The chunk as stored without its vector: what the backfill compares before writing. */
const withoutVector = ({ id, text, tokens, metadata }: ChunkRecord): ChunkRecord => ({ id, text, tokens, metadata });

export function createVectorBackfillActivities(deps: VectorBackfillDeps): VectorBackfillActivities {
  const { engine } = deps;
  return {
    async backfillVectors({ collection, batchSize }): Promise<BackfillBatch> {
      return asActivity(() =>
        heartbeating(async () => {
          const lacking = await engine.chunksWithoutVectors(collection, batchSize);
          if (lacking.length === 0)
            return { embedded: 0, skipped: 0, coverage: await engine.vectorCoverage(collection) };
          const inputs = lacking.map((chunk) => embeddingInputOf(chunk.metadata.title, chunk, deps.tokenizer));
          const vectors = await embedAll(await deps.passageEmbedder(), inputs);
          if (deps.beforeWriteDelayMs) await new Promise((r) => setTimeout(r, deps.beforeWriteDelayMs));
          let embedded = 0;
          await deps.writers(collection, async () => {
            // a chunk an ingestion changed, deleted or embedded meanwhile keeps what it has now
            const now = new Map(
              (
                await engine.getChunks(
                  collection,
                  lacking.map((chunk) => chunk.id),
                )
              ).map((chunk) => [chunk.id, chunkFingerprint(chunk)]),
            );
            const updates = lacking.flatMap((chunk, k) =>
              now.get(chunk.id) === chunkFingerprint(withoutVector(chunk)) ? [{ ...chunk, vector: vectors[k] }] : [],
            );
            if (updates.length === 0) return;
            await engine.indexChunks(collection, updates);
            await engine.commit(collection);
            embedded = updates.length;
          });
          return { embedded, skipped: lacking.length - embedded, coverage: await engine.vectorCoverage(collection) };
        }),
      );
    },
  };
}
