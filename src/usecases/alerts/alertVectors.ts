// An alert's query embedded once: a new alert's search embeds it, the vector is stored by the embedding path that
// made it, and the runs after an ingestion (thousands of them at once) load it instead of running the model for each.
import { createHash } from "node:crypto";
import type { Queryable } from "../../eventstore/db.js";
import type { Embedder } from "../../embedding/port.js";
import { knownQueryVector, rememberQueryVector } from "../../retrieval/queryVectorCache.js";

/** A query's name in the table: its digest, so the table holds no customer's words (a deleted alert leaves none). */
const digestOf = (query: string) => createHash("sha256").update(query).digest("hex");

/**
 * Stores the vectors this process's embedder holds for these queries (those it embedded: a search of a sparse
 * collection embeds nothing), once per embedding path and query. Best effort: a run without one embeds its query.
 */
export async function keepAlertVectors(db: Queryable, embedder: Embedder, queries: string[]): Promise<void> {
  const known = [...new Set(queries)].flatMap((q) => {
    const vector = knownQueryVector(embedder, q);
    return vector ? [{ q, vector }] : [];
  });
  if (known.length === 0) return;
  await db.query(
    `INSERT INTO alert_query_vectors (model, query_sha256, vector)
       SELECT $1, q, v FROM unnest($2::text[], $3::bytea[]) AS t(q, v) ON CONFLICT DO NOTHING`,
    [
      embedder.modelName,
      known.map((k) => digestOf(k.q)),
      known.map((k) => Buffer.from(k.vector.buffer, k.vector.byteOffset, k.vector.byteLength)),
    ],
  );
}

/**
 * Hands the embedder's query cache the stored vectors of these queries made by its own embedding path, so their
 * searches skip the model; returns the queries that had none.
 */
export async function loadAlertVectors(db: Queryable, embedder: Embedder, queries: string[]): Promise<string[]> {
  const wanted = [...new Set(queries)].filter((q) => !knownQueryVector(embedder, q));
  if (wanted.length === 0) return [];
  const byDigest = new Map(wanted.map((q) => [digestOf(q), q]));
  const rows = await db.query<{ digest: string; vector: Uint8Array }>(
    `SELECT query_sha256 AS digest, vector FROM alert_query_vectors WHERE model = $1 AND query_sha256 = ANY($2)`,
    [embedder.modelName, [...byDigest.keys()]],
  );
  const found = new Set<string>();
  for (const r of rows) {
    const query = byDigest.get(r.digest);
    if (query === undefined || r.vector.byteLength !== embedder.dims * 4) continue;
    // a copy: the driver's buffer may be a view into a larger one, not aligned for floats
    rememberQueryVector(embedder, query, new Float32Array(new Uint8Array(r.vector).buffer));
    found.add(query);
  }
  return wanted.filter((q) => !found.has(q));
}
