// Which chunks of an OpenSearch index have a vector yet (a collection ingested with its vectors deferred gets them
// from the vector backfill): the coverage searches and /readyz report, and the chunks the backfill embeds next.
import type { OpenSearchQuery } from "../../../filters/compileToOpenSearch.js";
import type { ChunkRecord, VectorCoverage } from "../../port.js";
import { fromDocument, WITHOUT_VECTORS, type ChunkDocument, type IndexInfo } from "./chunkDocuments.js";
import { cosineClause } from "./denseScoring.js";
import { FIELD } from "./indexMapping.js";
import type { Call } from "./transport.js";

/** The field a chunk has exactly when it has a vector (the binary doc values where the index keeps them). */
function presenceField(info: Pick<IndexInfo, "binaryVectors">): string {
  return info.binaryVectors ? FIELD.vectorBinary : FIELD.vectorKnn;
}

/** The chunks with a vector (`has`) or without one. */
export function vectorPresence(info: Pick<IndexInfo, "binaryVectors">, has: boolean): OpenSearchQuery {
  const exists = { exists: { field: presenceField(info) } };
  return has ? exists : { bool: { must_not: [exists] } };
}

/**
 * How long an index's coverage as last read stands before it is read again behind the search that finds it stale:
 * while part of it lacks vectors (another process's backfill grows it), and while every chunk has one (only another
 * process's ingestion with its vectors deferred shrinks it; this process's commits read it again themselves).
 */
const PARTIAL_COVERAGE_TTL_MS = 2_000;
const WHOLE_COVERAGE_TTL_MS = 30_000;

/**
 * Coverage per index name, kept in the process: a commit of changed chunks reads it again before it returns (the
 * ingestion and the backfill write the state), and a search answers from what is kept without a request, reading it
 * again behind itself once it is stale; only an index's first search in the process waits for its two counts.
 */
export function createCoverageReader(call: Call) {
  // kept with the index's info: an index deleted and created again (new info) is read afresh
  const known = new Map<string, { at: number; coverage: VectorCoverage; info: object }>();
  const reading = new Map<string, Promise<VectorCoverage>>();
  const count = async (name: string, query?: OpenSearchQuery) =>
    (await call<{ count: number }>("POST", `/${name}/_count`, query ? { query } : undefined)).body.count;
  const read = (name: string, info: Pick<IndexInfo, "binaryVectors">): Promise<VectorCoverage> => {
    const pending: Promise<VectorCoverage> = Promise.all([count(name), count(name, vectorPresence(info, true))])
      .then(([chunks, withVectors]) => {
        // a read that an index's deletion overtook keeps nothing
        if (reading.get(name) === pending) known.set(name, { at: Date.now(), coverage: { chunks, withVectors }, info });
        return { chunks, withVectors };
      })
      .finally(() => {
        if (reading.get(name) === pending) reading.delete(name);
      });
    reading.set(name, pending);
    return pending;
  };
  return {
    coverage(name: string, info: Pick<IndexInfo, "binaryVectors">): Promise<VectorCoverage> {
      const kept = known.get(name);
      if (!kept || kept.info !== info) return reading.get(name) ?? read(name, info);
      const { chunks, withVectors } = kept.coverage;
      const ttl = withVectors < chunks ? PARTIAL_COVERAGE_TTL_MS : WHOLE_COVERAGE_TTL_MS;
      if (Date.now() - kept.at >= ttl && !reading.has(name)) void read(name, info).catch(() => undefined);
      return Promise.resolve(kept.coverage);
    },
    /**
     * The coverage as kept, without waiting: undefined while none is (a read starts behind the caller), for a caller
     * with a choice that is right either way and only cheaper when it knows (a BM25 search's source filter)
     */
    known(name: string, info: Pick<IndexInfo, "binaryVectors">): VectorCoverage | undefined {
      const kept = known.get(name);
      // coverage decides whether to read: none kept, none under way, or what is kept gone stale
      void this.coverage(name, info).catch(() => undefined);
      return kept && kept.info === info ? kept.coverage : undefined;
    },
    /** whether some of the index's chunks have no vector yet */
    async partial(name: string, info: Pick<IndexInfo, "binaryVectors">): Promise<boolean> {
      const { chunks, withVectors } = await this.coverage(name, info);
      return withVectors < chunks;
    },
    /** after this process's commit of changed chunks: the coverage as committed, read before the commit returns */
    async refresh(name: string, info: Pick<IndexInfo, "binaryVectors">): Promise<void> {
      known.delete(name);
      await read(name, info);
    },
    forget(name: string): void {
      known.delete(name);
      reading.delete(name);
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
