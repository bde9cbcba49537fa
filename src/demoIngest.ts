// Ingests the configured demo collections that are not indexed yet (first start), with a progress bar. Planned apart
// from running, so the service can listen while it runs: each collection to build is marked ingesting (its searches
// answer 503) until its index is committed.
import { join } from 'node:path';
import type { Runtime } from './composition.js';
import { openIngestEmbedder } from './composition.js';
import type { PlainCollection } from './collections/catalog.js';
import { ingestCollection, needsIngest, needsVectors, type IngestCollectionOptions, type IngestReport } from './ingest/ingestCollection.js';
import { createIngestProgressBar } from './ingest/progressBar.js';
import { loadRetractedDois } from './ingest/retractions.js';
import { figureRootOf } from './figures/demoFigures.js';

type IngestRuntime = Pick<Runtime, 'config' | 'catalog' | 'engine' | 'embedder' | 'log'> & Partial<Pick<Runtime, 'readiness'>>;

export interface DemoIngestionOptions {
  /** rebuild every collection, even those whose index holds the same input */
  force?: boolean;
  /** awaited before each collection is built; tests hold one back to see the service answer while it ingests */
  beforeCollection?: (collection: string) => Promise<void>;
}

export interface DemoIngestion {
  /** the collections this run builds, in the order it builds them (marked ingesting in the runtime's readiness) */
  readonly pending: readonly string[];
  /**
   * Builds them one after another, each marked ready when committed. A collection that fails is marked failed and
   * logged, and the others still ingest; the failures come back beside the reports.
   */
  run(): Promise<{ reports: IngestReport[]; failures: { collection: string; error: Error }[] }>;
  /** stops a run between collections or mid-way (its embedding workers end; the half-built index is rebuilt on the next start) and waits for it to stop */
  cancel(): Promise<void>;
}

/**
 * Collections that need no vectors first (BM25 only: seconds, so most of the catalogue answers almost at once), then
 * the others in catalogue order. A better guess at the embedding work (the source's size) misleads across formats:
 * gzipped MEDLINE XML against plain JSON lines.
 */
function withoutVectorsFirst(collections: PlainCollection[]): PlainCollection[] {
  return [...collections.filter((c) => !needsVectors(c)), ...collections.filter(needsVectors)];
}

/** Finds the collections whose index is absent or built from other input, and marks them ingesting. */
export async function planDemoIngestion(runtime: IngestRuntime, options: DemoIngestionOptions = {}): Promise<DemoIngestion> {
  const { config, engine } = runtime;
  // the workers start on the first passage to embed: a start with nothing to build starts none
  const embedder = await openIngestEmbedder(config);
  const retracted = await loadRetractedDois(config.dataRoot);
  const optionsFor = (collection: PlainCollection): IngestCollectionOptions => ({
    collection,
    dataRoot: config.dataRoot,
    engine,
    embedder,
    tokenizer: runtime.embedder.tokenizer,
    retracted,
    fingerprintFile: join(config.dataDir, `ingest-fingerprints.${engine.kind}.json`),
    figureDir: figureRootOf(config.dataDir),
    force: options.force,
  });
  const toBuild: PlainCollection[] = [];
  try {
    // the demo collections: those the configuration file seeded (the operator API's own are ingested when defined)
    for (const collection of runtime.catalog.collections.filter((c) => runtime.catalog.isSeeded(c.name))) {
      if (await needsIngest(optionsFor(collection))) toBuild.push(collection);
      else runtime.log.info({ collection: collection.name }, 'collection already indexed');
    }
  } catch (err) {
    await embedder.close();
    throw err;
  }
  const ordered = withoutVectorsFirst(toBuild);
  for (const collection of ordered) runtime.readiness?.set(collection.name, 'ingesting');
  if (ordered.length === 0) await embedder.close();

  let cancelled = false;
  let cancel: () => void = () => undefined;
  const cancellation = new Promise<void>((resolve) => (cancel = resolve));
  let running: Promise<unknown> = Promise.resolve();
  return {
    pending: ordered.map((c) => c.name),
    run() {
      const run = async () => {
        const reports: IngestReport[] = [];
        const failures: { collection: string; error: Error }[] = [];
        if (ordered.length === 0) return { reports, failures };
        const bar = createIngestProgressBar();
        try {
          for (const collection of ordered) {
            await Promise.race([options.beforeCollection?.(collection.name), cancellation]);
            if (cancelled) break;
            try {
              const report = await ingestCollection({ ...optionsFor(collection), onProgress: bar.onProgress });
              reports.push(report);
              runtime.readiness?.set(collection.name, 'ready');
              runtime.log.info({ collection: report.collection, chunks: report.chunks, seconds: report.seconds }, 'collection ingested');
            } catch (err) {
              if (cancelled) break;
              const error = err instanceof Error ? err : new Error(String(err));
              failures.push({ collection: collection.name, error });
              runtime.readiness?.set(collection.name, 'failed');
              runtime.log.error({ collection: collection.name, err: error }, 'collection could not be ingested; its searches answer 503 until a restart ingests it');
            }
          }
        } finally {
          bar.stop();
          await embedder.close();
        }
        if (cancelled) runtime.log.info('demo ingestion stopped; the next start builds what is missing');
        return { reports, failures };
      };
      const result = run();
      running = result.catch(() => undefined);
      return result;
    },
    async cancel() {
      cancelled = true;
      cancel();
      // ends the workers, so an embedding in flight fails at once instead of finishing its window
      await embedder.close();
      await running;
    },
  };
}

/** Plans and runs the demo ingestion to the end (CLI `ingest`, tests); the first failure is thrown after the others ran. */
export async function ingestMissingDemoCollections(runtime: IngestRuntime, force = false): Promise<IngestReport[]> {
  const { reports, failures } = await (await planDemoIngestion(runtime, { force })).run();
  const [failure] = failures;
  if (failure) throw new Error(`ingesting ${failure.collection} failed: ${failure.error.message}`, { cause: failure.error });
  return reports;
}
