// Ingests the configured demo collections that are not indexed yet (first start), with a progress bar. Planned apart
// from running, so the service can listen while it runs: each collection to build is marked ingesting (its searches
// answer 503) until its index is committed.
import { join } from "node:path";
import type { Runtime } from "./composition.js";
import { openIngestEmbedder, openIngestionActivityDeps } from "./composition.js";
import type { PlainCollection } from "../domain/collectionDefinitions.js";
import { needsVectors } from "../ingest/pipelineRules.js";
import { forgetIngestedInput, needsIngest, recordIngestedInput } from "../ingest/indexInput.js";
import { waitForIngestion } from "../usecases/collections/temporalIngestions.js";
import { manifestKey, manifestTotals } from "../ingest/manifest.js";
import type { Actor, IngestionCounts } from "../domain/events.js";
import { zeroCounts } from "../domain/ingestionCounts.js";
import { Rejection } from "../domain/rejection.js";
import { createProgressReporter, statusSnapshot, type ProgressReporter } from "../ingest/progressReport.js";
import { loadRetractedDois } from "../ingest/retractions.js";
import { worksMissing } from "../ingest/works.js";
import { dropCollectionIndex, indexInputOf, ingestInProcess, type IngestionReport } from "./ingestInProcess.js";

type IngestRuntime = Pick<Runtime, "config" | "catalog" | "engine" | "embedder" | "log" | "db"> &
  Partial<Pick<Runtime, "readiness" | "ingestions" | "worker">>;

/**
 * Documents per batch of a first start's ingestion: each batch is one commit of the index, and a demo batch embeds
 * nothing (its vectors ship), so few large batches build a collection fastest.
 */
const DEMO_BATCH_SIZE = 2048;

/** Who starts the first start's ingestions. */
const DEMO_ACTOR: Actor = { kind: "operator", id: "demo-ingestion" };

/**
 * Builds one collection through the ingestion workflow (mode replace: the collection becomes exactly its files), as an
 * operator's ingestion would; null when the start stopped first.
 */
async function ingestThroughWorkflow(
  runtime: Required<Pick<IngestRuntime, "ingestions">> & IngestRuntime,
  collection: PlainCollection,
  cancellation: Promise<void>,
  reporter: ProgressReporter,
): Promise<IngestionReport | null> {
  const started = performance.now();
  const start = () =>
    runtime.ingestions.start(
      { collection: collection.name, files: collection.source.files, mode: "replace", batchSize: DEMO_BATCH_SIZE },
      DEMO_ACTOR,
    );
  const { ingestionId } = await start().catch(async (err: unknown) => {
    // an ingestion a stopped start left running resumes on this start's worker: let it end, then build from the files
    const running =
      err instanceof Rejection && err.code === "CONFLICT"
        ? (err.details as { ingestionId?: string } | undefined)?.ingestionId
        : undefined;
    if (!running) throw err;
    await waitForIngestion(runtime.ingestions, running);
    return start();
  });
  let cancelled = false;
  void cancellation.then(() => (cancelled = true));
  const status = await waitForIngestion(runtime.ingestions, ingestionId, 250, (s) => {
    reporter.update(statusSnapshot(s));
    return cancelled;
  });
  if (!status) {
    await runtime.ingestions.cancel(ingestionId, "the service stopped during its first start");
    return null;
  }
  if (status.state === "failed") throw new Error(status.error ?? "the ingestion failed");
  const counts = zeroCounts();
  for (const key of Object.keys(counts) as (keyof IngestionCounts)[]) counts[key] = status[key];
  return {
    collection: collection.name,
    ingestionId,
    counts,
    ...(await manifestTotals(runtime.db, manifestKey(runtime.engine.kind, collection.name))),
    embedded: needsVectors(collection),
    seconds: Math.round((performance.now() - started) / 10) / 100,
  };
}

interface DemoIngestionOptions {
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
  run(): Promise<{ reports: IngestionReport[]; failures: { collection: string; error: Error }[] }>;
  /**
   * stops a run between collections or mid-way (its embedding workers end; the half-built index is rebuilt on the next
   * start) and waits for it to stop
   */
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
export async function planDemoIngestion(
  runtime: IngestRuntime,
  options: DemoIngestionOptions = {},
): Promise<DemoIngestion> {
  const { config, engine } = runtime;
  // the workers start on the first passage to embed: a start with nothing to build starts none
  const embedder = await openIngestEmbedder(config, runtime.log);
  const retracted = await loadRetractedDois(config.dataRoot);
  // the activities' dependencies, for the fingerprint and the in-process pipeline; their passage embedder is this one
  const deps = openIngestionActivityDeps(config, {
    db: runtime.db,
    engine,
    embedder: runtime.embedder,
    clock: () => new Date(),
    openPassageEmbedder: async () => embedder,
  });
  const fingerprintFile = join(config.dataDir, `ingest-fingerprints.${engine.kind}.json`);
  const inputOf = (collection: PlainCollection) =>
    indexInputOf(deps, { collection, retracted, fingerprintFile, force: options.force });
  const toBuild: PlainCollection[] = [];
  try {
    // the demo collections: those the configuration file seeded (the operator API's own are ingested when defined)
    for (const collection of runtime.catalog.collections.filter((c) => runtime.catalog.isSeeded(c.name))) {
      // an index built before works were recorded is read again (its unchanged documents keep their chunks and vectors)
      if (
        (await needsIngest(inputOf(collection))) ||
        (await worksMissing(runtime.db, manifestKey(engine.kind, collection.name)))
      )
        toBuild.push(collection);
      else runtime.log.info({ collection: collection.name }, "collection already indexed");
    }
  } catch (err) {
    await embedder.close();
    throw err;
  }
  const ordered = withoutVectorsFirst(toBuild);
  for (const collection of ordered) runtime.readiness?.set(collection.name, "ingesting");
  if (ordered.length === 0) await embedder.close();

  let cancelled = false;
  let cancel: () => void = () => undefined;
  const cancellation = new Promise<void>((resolve) => (cancel = resolve));
  let running: Promise<unknown> = Promise.resolve();
  return {
    pending: ordered.map((c) => c.name),
    run() {
      const run = async () => {
        const reports: IngestionReport[] = [];
        const failures: { collection: string; error: Error }[] = [];
        if (ordered.length === 0) return { reports, failures };
        const reporter = createProgressReporter();
        try {
          for (const collection of ordered) {
            await Promise.race([options.beforeCollection?.(collection.name), cancellation]);
            if (cancelled) break;
            try {
              await forgetIngestedInput(inputOf(collection));
              if (options.force) await dropCollectionIndex(runtime.db, engine, collection.name);
              // through the ingestion workflow when this process runs its batches; else (no worker in this process:
              // the CLI, or a service whose worker is a separate process) the same steps in this process
              const report =
                runtime.ingestions && runtime.worker
                  ? await ingestThroughWorkflow(
                      { ...runtime, ingestions: runtime.ingestions },
                      collection,
                      cancellation,
                      reporter,
                    )
                  : await ingestInProcess(deps, {
                      collection,
                      batchSize: DEMO_BATCH_SIZE,
                      actor: DEMO_ACTOR,
                      cancelled: () => cancelled,
                      onProgress: (progress) =>
                        reporter.update(statusSnapshot({ ...progress.counts, collection: collection.name })),
                    });
              if (!report) break;
              await recordIngestedInput(inputOf(collection), report);
              reports.push(report);
              reporter.finish(
                collection.name,
                `${report.documents.toLocaleString("en-US")} documents, ` +
                  `${report.chunks.toLocaleString("en-US")} chunks searchable`,
              );
              runtime.readiness?.set(collection.name, "ready");
              runtime.log.info(
                { collection: report.collection, chunks: report.chunks, seconds: report.seconds },
                "collection ingested",
              );
            } catch (err) {
              if (cancelled) break;
              const error = err instanceof Error ? err : new Error(String(err));
              failures.push({ collection: collection.name, error });
              runtime.readiness?.set(collection.name, "failed");
              runtime.log.error(
                { collection: collection.name, err: error },
                "collection could not be ingested; its searches answer 503 until a restart ingests it",
              );
            }
          }
        } finally {
          reporter.stop();
          await embedder.close();
        }
        if (cancelled) runtime.log.info("demo ingestion stopped; the next start builds what is missing");
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

/**
 * Plans and runs the demo ingestion to the end (CLI `ingest`, tests); the first failure is thrown after the others ran.
 */
export async function ingestMissingDemoCollections(runtime: IngestRuntime, force = false): Promise<IngestionReport[]> {
  const { reports, failures } = await (await planDemoIngestion(runtime, { force })).run();
  const [failure] = failures;
  if (failure)
    throw new Error(`ingesting ${failure.collection} failed: ${failure.error.message}`, { cause: failure.error });
  return reports;
}
