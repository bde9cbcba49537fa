// An alert's query embedded once (alertVectors.ts), on PGlite and a real PostgreSQL server with the service's model:
// a process that never embedded the query gets the very vector the creating process made, from the store; another
// embedding path gets none; the table names queries only by their digest.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Db } from "../../src/eventstore/db.js";
import { createOnnxEmbedder, type OnnxEmbedder } from "../../src/embedding/onnxEmbedder.js";
import { embedQueryCached, knownQueryVector } from "../../src/retrieval/queryVectorCache.js";
import { keepAlertVectors, loadAlertVectors } from "../../src/usecases/alerts/alertVectors.js";
import type { Embedder } from "../../src/embedding/port.js";
import { freshStore, STORE_KINDS } from "../support/stores.js";
import { loadServiceModelManifest } from "../embedding/provisionedModel.js";

let creating: OnnxEmbedder;
let running: OnnxEmbedder;
beforeAll(async () => {
  const manifest = await loadServiceModelManifest();
  // two embedders: two processes' query caches
  creating = await createOnnxEmbedder({ manifest, batchSize: 8, threads: 1 });
  running = await createOnnxEmbedder({ manifest, batchSize: 8, threads: 1 });
});
afterAll(async () => {
  await creating?.close();
  await running?.close();
});

describe.each(STORE_KINDS)("alert query vectors on %s", (kind) => {
  let db: Db;
  beforeAll(async () => {
    db = await freshStore(kind);
  });
  afterAll(async () => {
    await db?.close();
  });

  it("hands a run the vector its alert's creation made, by embedding path, and stores no query's words", async () => {
    const query = `vitamin D supplementation and fracture risk (${kind})`;
    const other = `statins after myocardial infarction (${kind})`;
    const made = await embedQueryCached(creating, query);
    await keepAlertVectors(db, creating, [query, other]); // `other` was never embedded here: nothing stored for it
    expect(knownQueryVector(running, query)).toBeUndefined();

    expect(await loadAlertVectors(db, running, [query, other])).toEqual([other]);
    const loaded = knownQueryVector(running, query)!;
    expect(Array.from(loaded)).toEqual(Array.from(made));
    // the search's own path then takes it from the cache: the same vector the model makes
    expect(Array.from(await embedQueryCached(running, query))).toEqual(Array.from(await running.embedQuery(query)));

    const elsewhere: Embedder = Object.create(running, { modelName: { value: `${running.modelName}-other` } });
    expect(await loadAlertVectors(db, elsewhere, [query])).toEqual([query]);

    const rows = await db.query<{ query_sha256: string }>("SELECT query_sha256 FROM alert_query_vectors");
    expect(rows.length).toBeGreaterThan(0);
    expect(rows.every((r) => /^[0-9a-f]{64}$/.test(r.query_sha256))).toBe(true);
  });
});
