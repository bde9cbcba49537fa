// What `npm run bench:ingest` measures per engine: the shapes that take the ingestion batches, from `--workers`.

export interface IngestShape {
  engine: string;
  /**
   * worker processes (`src/app/worker.ts`) that take the batches; 0: the API process takes them (its in-process worker)
   */
  workerProcesses: number;
}

/**
 * `--engines embedded,opensearch --workers 0,1,2`: the embedded engine's batches run in the process that owns its
 * index, so it is measured once, in-process, whatever the counts; OpenSearch once per count (0: in-process, PGlite
 * store; N: PostgreSQL and N worker processes). A bad list throws a message that names the fix.
 */
export function ingestShapes(engines: string, workers: string): IngestShape[] {
  const counts = workers.split(",").map((w) => w.trim());
  if (counts.some((c) => !/^\d+$/.test(c) || Number(c) > 16))
    throw new Error(
      "--workers takes a comma-separated list of worker process counts from 0 to 16 (0: the API process takes " +
        `the batches), e.g. --workers 1,2; got "${workers}"`,
    );
  const shapes: IngestShape[] = [];
  for (const engine of engines.split(",").map((e) => e.trim())) {
    if (engine === "embedded") shapes.push({ engine, workerProcesses: 0 });
    else if (engine === "opensearch")
      for (const c of new Set(counts.map(Number))) shapes.push({ engine, workerProcesses: c });
    else
      throw new Error(
        `--engines takes embedded and/or opensearch, e.g. --engines embedded,opensearch; got "${engine}"`,
      );
  }
  return shapes;
}
