// Time to searchable: SciFact (5,183 documents) ingested as a hybrid collection with its vectors embedded at each
// batch's commit (`vectors: at_commit`, the default) and with them deferred to the vector backfill (`vectors:
// backfill`), in this process (the ingestion workflow's steps and the backfill's activity called directly, the embedded
// engine, the service's embedding model on EMBEDDING_WORKERS worker threads). Reports, for each, the seconds from the
// start to the first committed batch (its documents searchable by BM25), to the whole collection searchable by BM25,
// and to every chunk with its vector. Prints JSON, then a readable line per timing.
// Usage: npm run bench:time-to-searchable [-- --batch 256] [--backfill-batch 256]
import { mkdtemp, rm } from "node:fs/promises";
import { loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { performance } from "node:perf_hooks";
import { parseArgs } from "node:util";
import { createCollectionWriters } from "../activities/collectionWriters.js";
import { createVectorBackfillActivities } from "../activities/vectorBackfill.js";
import { loadCollectionCatalog } from "../src/app/collectionsFile.js";
import { openIngestionActivityDeps, openMemoryEventStore } from "../src/app/composition.js";
import { loadConfig } from "../src/app/config.js";
import { ingestInProcess } from "../src/app/ingestInProcess.js";
import type { PlainCollection } from "../src/domain/collectionDefinitions.js";
import type { VectorTiming } from "../src/domain/events.js";
import { embeddingModelManifestPath, loadModelManifest } from "../src/embedding/modelManifest.js";
import { createOnnxEmbedder } from "../src/embedding/onnxEmbedder.js";
import { createEmbeddedEngine } from "../src/retrieval/engines/embedded/embeddedEngine.js";

const { values: args } = parseArgs({
  options: {
    batch: { type: "string", default: "256" },
    "backfill-batch": { type: "string", default: "256" },
  },
});

const config = loadConfig({ ...process.env, ADMIN_TOKEN: process.env.ADMIN_TOKEN ?? "bench-admin-token-0123456789" });
const catalog = await loadCollectionCatalog(config.collectionsConfig);
const scifact = catalog.resolveCollection("scifact") as PlainCollection;
const collection: PlainCollection = { ...scifact, retrieval: "hybrid" };
const round = (n: number) => Math.round(n * 10) / 10;

interface Timing {
  vectors: VectorTiming;
  documents: number;
  chunks: number;
  /** seconds from the start to the first committed batch: its documents searchable by BM25 */
  firstSearchableSeconds: number;
  /** to the last committed batch: the whole collection searchable by BM25 */
  allSearchableSeconds: number;
  /** to every chunk with its vector (at_commit: the same as allSearchableSeconds) */
  fullVectorsSeconds: number;
  loadAverage: { before: number; after: number };
}

async function measure(vectors: VectorTiming): Promise<Timing> {
  const dir = await mkdtemp(join(tmpdir(), "litsearch-bench-searchable-"));
  const engine = createEmbeddedEngine({ dir: join(dir, "index") });
  // the embedder itself, never the shipped demo vectors: this times embedding
  const embedder = await createOnnxEmbedder({
    manifest: await loadModelManifest(embeddingModelManifestPath(config.cacheDir)),
    workers: config.embeddingWorkers,
    threads: 1,
    batchSize: 1,
  });
  const db = await openMemoryEventStore();
  const loadBefore = loadavg()[0] ?? 0;
  try {
    const deps = openIngestionActivityDeps(
      { ...config, dataDir: dir },
      { db, engine, embedder, clock: () => new Date(), openPassageEmbedder: async () => embedder },
    );
    const started = performance.now();
    let firstSearchable: number | undefined;
    const report = await ingestInProcess(deps, {
      collection,
      batchSize: Number(args.batch),
      vectors,
      onProgress: (progress) => {
        if (firstSearchable === undefined && progress.counts.chunksIndexed > 0)
          firstSearchable = performance.now() - started;
      },
    });
    const allSearchable = performance.now() - started;
    const backfill = createVectorBackfillActivities({
      engine,
      passageEmbedder: async () => embedder,
      tokenizer: embedder.tokenizer,
      writers: createCollectionWriters(db),
    });
    // the backfill workflow's loop: batches until none lacks a vector
    const next = () =>
      backfill.backfillVectors({ collection: collection.name, batchSize: Number(args["backfill-batch"]) });
    let batch = await next();
    while (batch.embedded + batch.skipped > 0) batch = await next();
    if (batch.coverage.withVectors !== batch.coverage.chunks)
      throw new Error("the backfill left chunks without vectors");
    const fullVectors = performance.now() - started;
    return {
      vectors,
      documents: report.documents,
      chunks: report.chunks,
      firstSearchableSeconds: round((firstSearchable ?? allSearchable) / 1000),
      allSearchableSeconds: round(allSearchable / 1000),
      fullVectorsSeconds: round(fullVectors / 1000),
      loadAverage: { before: loadBefore, after: loadavg()[0] ?? 0 },
    };
  } finally {
    await embedder.close();
    await engine.close();
    await db.close();
    await rm(dir, { recursive: true, force: true });
  }
}

const timings: Timing[] = [];
for (const vectors of ["at_commit", "backfill"] as const) timings.push(await measure(vectors));
console.log(JSON.stringify({ collection: "scifact (hybrid)", batchSize: Number(args.batch), timings }, null, 2));
for (const t of timings)
  console.log(
    `${t.vectors}: ${t.documents} documents, ${t.chunks} chunks: first batch searchable by BM25 after ` +
      `${t.firstSearchableSeconds} s, all after ${t.allSearchableSeconds} s, every vector after ` +
      `${t.fullVectorsSeconds} s (load ${t.loadAverage.before} -> ${t.loadAverage.after})`,
  );
