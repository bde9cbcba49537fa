// Ingests the configured demo collections that are not indexed yet (first start), with a progress bar.
import { join } from 'node:path';
import { openIngestEmbedder, type Runtime } from './composition.js';
import { ingestDemoCollections, type IngestReport } from './ingest/ingestCollection.js';
import { createIngestProgressBar } from './ingest/progressBar.js';
import { figureRootOf } from './figures/demoFigures.js';

export async function ingestMissingDemoCollections(runtime: Pick<Runtime, 'config' | 'catalog' | 'engine' | 'embedder' | 'log'>, force = false): Promise<IngestReport[]> {
  const bar = createIngestProgressBar();
  // worker threads, started on the first passage to embed: a start with nothing to ingest starts none
  const embedder = await openIngestEmbedder(runtime.config);
  try {
    const reports = await ingestDemoCollections({
      catalog: runtime.catalog,
      dataRoot: runtime.config.dataRoot,
      engine: runtime.engine,
      embedder,
      tokenizer: runtime.embedder.tokenizer,
      fingerprintFile: join(runtime.config.dataDir, `ingest-fingerprints.${runtime.engine.kind}.json`),
      figureDir: figureRootOf(runtime.config.dataDir),
      force,
      onProgress: bar.onProgress,
    });
    for (const r of reports) runtime.log.info({ collection: r.collection, skipped: r.skipped, chunks: r.chunks, seconds: r.seconds }, r.skipped ? 'collection already indexed' : 'collection ingested');
    return reports;
  } finally {
    bar.stop();
    await embedder.close();
  }
}
