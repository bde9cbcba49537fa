// Which chunks of an OpenSearch index have a vector yet (a collection ingested with its vectors deferred gets them
// from the vector backfill): the coverage searches and /readyz report, and the chunks the backfill embeds next.
import type { OpenSearchQuery } from "../../../filters/compileToOpenSearch.js";
import type { ChunkRecord, VectorCoverage } from "../../port.js";
import { fromDocument, WITHOUT_VECTORS, type ChunkDocument, type IndexInfo } from "./chunkDocuments.js";
import { cosineClause } from "./denseScoring.js";
import { FIELD } from "./indexMapping.js";
import type { Call } from "./transport.js";

/** How long a search trusts an index's coverage as last read (another process's backfill grows it). */
const COVERAGE_TTL_MS = 2_000;

/** The field a chunk has exactly when it has a vector (the binary doc values where the index keeps them). */
function presenceField(info: Pick<IndexInfo, "binaryVectors">): string {
  return info.binaryVectors ? FIELD.vectorBinary : FIELD.vectorKnn;
}

/** The chunks with a vector (`has`) or without one. */
export function vectorPresence(info: Pick<IndexInfo, "binaryVectors">, has: boolean): OpenSearchQuery {
  const exists = { exists: { field: presenceField(info) } };
  return has ? exists : { bool: { must_not: [exists] } };
}

/** Coverage per index name, read at most once a COVERAGE_TTL_MS, and at once after this process's commit. */
export function createCoverageReader(call: Call) {
  const read = new Map<string, { at: number; coverage: Promise<VectorCoverage> }>();
  const count = async (name: string, query?: OpenSearchQuery) =>
    (await call<{ count: number }>("POST", `/${name}/_count`, query ? { query } : undefined)).body.count;
  return {
    coverage(name: string, info: Pick<IndexInfo, "binaryVectors">): Promise<VectorCoverage> {
      const known = read.get(name);
      if (known && Date.now() - known.at < COVERAGE_TTL_MS) return known.coverage;
      const coverage = Promise.all([count(name), count(name, vectorPresence(info, true))]).then(
        ([chunks, withVectors]) => ({ chunks, withVectors }),
      );
      read.set(name, { at: Date.now(), coverage });
      coverage.catch(() => read.delete(name));
      return coverage;
    },
    /** whether some of the index's chunks have no vector yet */
    async partial(name: string, info: Pick<IndexInfo, "binaryVectors">): Promise<boolean> {
      const { chunks, withVectors } = await this.coverage(name, info);
      return withVectors < chunks;
    },
    forget(name: string): void {
      read.delete(name);
    },
  };
}

/** Up to `limit` chunks without a vector, by chunk id. */
export async function chunksLackingVectors(
  call: Call,
  name: string,
  info: Pick<IndexInfo, "binaryVectors">,
  limit: number,
): Promise<ChunkRecord[]> {
  const { body } = await call<{ hits: { hits: { _id: string; _source: ChunkDocument }[] } }>(
    "POST",
    `/${name}/_search`,
    {
      size: limit,
      query: vectorPresence(info, false),
      sort: [{ [FIELD.chunkId]: "asc" }],
      _source: WITHOUT_VECTORS,
      track_total_hits: false,
    },
  );
  return body.hits.hits.map((hit) => fromDocument(hit._id, hit._source));
}

/**
 * The hybrid BM25 side's cosine clause: cosineClause, or for an index some of whose chunks have no vector yet
 * (`partial`) one scored only where a vector is and matching every chunk (a filter clause that left out the chunks
 * without one would keep them out of the BM25 side too).
 */
export function cosineOfChunks(
  query: Float32Array,
  info: Pick<IndexInfo, "binaryVectors" | "vectorStorage">,
  name: string,
  partial: boolean,
): OpenSearchQuery {
  const clause = cosineClause(query, info.vectorStorage, name) as { script_score: Record<string, unknown> };
  if (!partial) return clause;
  const scored = { script_score: { ...clause.script_score, query: vectorPresence(info, true) } };
  return { bool: { should: [scored, vectorPresence(info, false)], minimum_should_match: 1 } };
}
