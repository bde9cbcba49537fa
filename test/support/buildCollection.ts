// A collection built from all its files in this process, skipped when its index holds exactly this input already: the
// tests' and benchmarks' way to a built index (the service's first start does the same per collection in
// src/app/demoIngest.ts).
import { performance } from "node:perf_hooks";
import type { IngestionActivityDeps } from "../../activities/ingestion.js";
import type { IngestionCounts } from "../../src/domain/events.js";
import {
  dropCollectionIndex,
  indexInputOf,
  ingestInProcess,
  type IngestionReport,
} from "../../src/app/ingestInProcess.js";
import { currentInput, forgetIngestedInput, recordIngestedInput } from "../../src/ingest/indexInput.js";

/** An in-process ingestion's request (src/app/ingestInProcess.ts) */
type InProcessIngestion = Parameters<typeof ingestInProcess>[1];

interface CollectionBuild extends Omit<InProcessIngestion, "files" | "mode"> {
  /** lower-case DOIs of the retraction list the input fingerprint names (loadRetractedDois) */
  retracted: ReadonlySet<string>;
  /** JSON file holding the input fingerprint of every built index */
  fingerprintFile: string;
  /** build afresh even when the index holds the same input */
  force?: boolean;
}

export interface CollectionBuildReport extends Omit<IngestionReport, "ingestionId" | "counts"> {
  /** true when the index already held this exact input and nothing ran */
  skipped: boolean;
  /** absent when skipped */
  ingestionId?: string;
  counts?: IngestionCounts;
  fingerprint: string;
}

/**
 * Builds a collection from all its files (replace) unless its index holds exactly this input already (then nothing
 * runs); `force` drops the index first. Records the input built, so the next build skips it.
 */
export async function buildCollection(
  deps: IngestionActivityDeps,
  build: CollectionBuild,
): Promise<CollectionBuildReport> {
  const started = performance.now();
  const input = indexInputOf(deps, build);
  const { fingerprint, current } = await currentInput(input);
  if (!build.force && current)
    return {
      collection: build.collection.name,
      skipped: true,
      documents: current.documents,
      chunks: current.chunks,
      embedded: false,
      fingerprint,
      seconds: Math.round((performance.now() - started) / 10) / 100,
    };
  await forgetIngestedInput(input);
  if (build.force) await dropCollectionIndex(deps.db, deps.engine, build.collection.name);
  const report = await ingestInProcess(deps, build);
  await recordIngestedInput(input, report);
  return { ...report, skipped: false, fingerprint, seconds: Math.round((performance.now() - started) / 10) / 100 };
}
