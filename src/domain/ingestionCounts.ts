// An ingestion's counts: none yet, and two added (batches summed by the workflow's progress and by the recorded
// totals). Pure.
import type { IngestionCounts } from "./events.js";

export const zeroCounts = (): IngestionCounts => ({
  documentsRead: 0,
  documentsAdded: 0,
  documentsUpdated: 0,
  documentsDeleted: 0,
  documentsUnchanged: 0,
  documentsExcluded: 0,
  chunksIndexed: 0,
});

/** Counts as stored: those recorded before a count existed read 0 for it. */
export const countsOf = (stored: Partial<IngestionCounts>): IngestionCounts => ({ ...zeroCounts(), ...stored });

export function addCounts(a: IngestionCounts, b: IngestionCounts): IngestionCounts {
  return {
    documentsRead: a.documentsRead + b.documentsRead,
    documentsAdded: a.documentsAdded + b.documentsAdded,
    documentsUpdated: a.documentsUpdated + b.documentsUpdated,
    documentsDeleted: a.documentsDeleted + b.documentsDeleted,
    documentsUnchanged: a.documentsUnchanged + b.documentsUnchanged,
    documentsExcluded: a.documentsExcluded + b.documentsExcluded,
    chunksIndexed: a.chunksIndexed + b.chunksIndexed,
  };
}
