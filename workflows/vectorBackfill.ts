// The vector backfill of one collection: batches of its chunks without a vector embedded and written, on the ingestion
// task queue every worker process polls, until none lacks one. Deterministic; the activity does the I/O and is
// idempotent (it reads what still lacks a vector each time), so a killed worker's batch simply runs again elsewhere.
import { continueAsNew, proxyActivities, setHandler } from "@temporalio/workflow";
import type { VectorCoverage } from "../src/retrieval/port.js";
import {
  vectorBackfillProgressQuery,
  type VectorBackfillActivities,
  type VectorBackfillInput,
} from "./ingestionTypes.js";

/** Batches one run takes before it continues as new (its history stays small at millions of chunks). */
const BATCHES_PER_RUN = 500;

const backfillActivities = (taskQueue: string) =>
  proxyActivities<VectorBackfillActivities>({
    taskQueue,
    startToCloseTimeout: "30 minutes",
    heartbeatTimeout: "20 seconds",
    retry: { initialInterval: "1 second", maximumInterval: "30 seconds", maximumAttempts: 20 },
  });

/** Embeds the collection's chunks without a vector; answers its coverage when none is left. */
export async function vectorBackfillWorkflow(input: VectorBackfillInput): Promise<VectorCoverage | null> {
  let coverage: VectorCoverage | null = null;
  setHandler(vectorBackfillProgressQuery, () => coverage);
  const { backfillVectors } = backfillActivities(input.batchTaskQueue);
  for (let batch = 0; batch < BATCHES_PER_RUN; batch++) {
    const done = await backfillVectors({ collection: input.collection, batchSize: input.batchSize });
    coverage = done.coverage;
    // nothing lacked a vector: done (a chunk changed meanwhile was skipped, and is read again by the next batch)
    if (done.embedded + done.skipped === 0) return coverage;
  }
  return continueAsNew<typeof vectorBackfillWorkflow>(input);
}
