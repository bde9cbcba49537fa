// `collection ingest --wait`: follows an ingestion the service runs, with the first start's progress line (documents
// and chunks done, rate, finish time) on stderr, until it ends; its last status is the answer.
import type { IngestionStatus } from "../../ingest/ingestions.js";
import { createProgressReporter, statusSnapshot } from "../../ingest/progressReport.js";

export async function followIngestion(
  show: (ingestionId: string) => Promise<IngestionStatus>,
  ingestionId: string,
  collection: string,
  pollMs = 1000,
): Promise<IngestionStatus> {
  const reporter = createProgressReporter();
  try {
    for (;;) {
      const status = await show(ingestionId);
      if (status.state !== "running") {
        const done = statusSnapshot(status);
        reporter.finish(
          collection,
          `${status.state}: ${done.documents!.done.toLocaleString("en-US")} documents, ` +
            `${status.chunksIndexed.toLocaleString("en-US")} chunks indexed`,
        );
        return status;
      }
      reporter.update(statusSnapshot(status));
      await new Promise((r) => setTimeout(r, pollMs));
    }
  } finally {
    reporter.stop();
  }
}
