// Which collections' vector backfill runs, and how far: what /readyz details, the dense and hybrid search answer and
// the operator's collections list report. The engines keep each index's coverage (OpenSearch: as its commits and a
// refresh behind the searches read it; embedded: counted once per committed segment), so reading it costs no request.
import { vectorShare, type SearchEngine, type VectorCoverage } from "./port.js";

export interface VectorsBackfilling {
  collection: string;
  /** the share of the collection's chunks that have a vector, 0..1, rounded down to 3 decimals (never 1 before done) */
  vectorShare: number;
}

/** The share as reported: rounded down, so that 1 means every chunk has its vector. */
export function reportedShare(coverage: VectorCoverage): number {
  return Math.floor(vectorShare(coverage) * 1000) / 1000;
}

/**
 * The collections some of whose chunks have no vector yet (their vector backfill runs: an ingestion with vectors:
 * backfill), each with the share that has one, in the order given; a collection whose engine cannot tell is left out.
 */
export async function vectorsBackfilling(
  engine: Pick<SearchEngine, "vectorCoverage">,
  collections: readonly string[],
): Promise<VectorsBackfilling[]> {
  const shares = await Promise.all(
    collections.map(async (collection) => {
      const coverage = await engine.vectorCoverage(collection).catch(() => null);
      return coverage && coverage.withVectors < coverage.chunks
        ? [{ collection, vectorShare: reportedShare(coverage) }]
        : [];
    }),
  );
  return shares.flat();
}
