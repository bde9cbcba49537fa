// An ingestion whose passages are embedded by a server that is killed mid-ingestion and started again: the ingestion
// waits, retries and completes, and its index holds exactly what an in-process ingestion of the same files holds (the
// same chunks, none lost or doubled, and the same dense ranking). The server is the scripted stand-in (faults only).
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, expect, it } from "vitest";
import { loadCollectionCatalog } from "../../src/app/collectionsFile.js";
import { cacheDirFrom, loadConfig, type Config } from "../../src/app/config.js";
import { openEmbedder, openIngestionActivityDeps, openMemoryEventStore } from "../../src/app/composition.js";
import { buildCollection } from "../support/buildCollection.js";
import type { PlainCollection } from "../../src/domain/collectionDefinitions.js";
import type { OnnxEmbedder } from "../../src/embedding/onnxEmbedder.js";
import { loadRetractedDois } from "../../src/ingest/retractions.js";
import { createEmbeddedEngine } from "../../src/retrieval/engines/embedded/embeddedEngine.js";
import type { SearchEngine } from "../../src/retrieval/port.js";
import { startEmbeddingStandIn, type EmbeddingStandIn } from "../support/embeddingStandIn.js";
import { sliceDataRoot } from "../support/testService.js";

let dataRoot: string;
let scratch: string;
let standIn: EmbeddingStandIn;
let queryEmbedder: OnnxEmbedder;
const engines: SearchEngine[] = [];

beforeAll(async () => {
  dataRoot = await sliceDataRoot(40);
  // without the demo's shipped vectors every passage goes to the embedder
  rmSync(join(dataRoot, "vectors"), { force: true });
  scratch = mkdtempSync(join(tmpdir(), "litsearch-remote-ingest-"));
  standIn = await startEmbeddingStandIn();
}, 120_000);

afterAll(async () => {
  await standIn?.close();
  for (const engine of engines) await engine.close();
  await queryEmbedder?.close();
  if (dataRoot) rmSync(dataRoot, { recursive: true, force: true });
  if (scratch) rmSync(scratch, { recursive: true, force: true });
});

const configWith = (name: string, env: Record<string, string>): Config =>
  loadConfig({
    DATA_DIR: join(scratch, name),
    DATA_ROOT: dataRoot,
    ADMIN_TOKEN: "remote-ingestion-token-0123456789",
    LITSEARCH_CACHE: cacheDirFrom(process.env),
    ...env,
  });

/** SciFact's slice ingested into a scratch embedded index, its passages embedded as `config` says. */
async function ingest(config: Config): Promise<{ engine: SearchEngine; chunks: number }> {
  const catalog = await loadCollectionCatalog(config.collectionsConfig);
  const scifact = catalog.resolveCollection("scifact") as PlainCollection;
  const engine = createEmbeddedEngine({ dir: join(config.dataDir, "index") });
  engines.push(engine);
  queryEmbedder ??= await openEmbedder(config);
  const db = await openMemoryEventStore();
  const deps = openIngestionActivityDeps(config, { db, engine, embedder: queryEmbedder, clock: () => new Date() });
  try {
    const report = await buildCollection(deps, {
      collection: scifact,
      retracted: await loadRetractedDois(config.dataRoot),
      fingerprintFile: join(config.dataDir, "fingerprints.json"),
      batchSize: 8,
    });
    return { engine, chunks: report.chunks };
  } finally {
    await deps.close();
    await db.close();
  }
}

it("survives the server's death mid-ingestion, ending with the index an in-process ingestion builds", async () => {
  const reference = await ingest(configWith("in-process", {}));

  // the server dies once it has embedded some passages, and is back two seconds later
  let killedAt = -1;
  const watcher = (async () => {
    for (;;) {
      const { texts } = await standIn.stats();
      if (texts >= 24) {
        killedAt = texts;
        await standIn.kill();
        await new Promise((r) => setTimeout(r, 2000));
        await standIn.restart();
        return;
      }
      await new Promise((r) => setTimeout(r, 100));
    }
  })();
  const remote = await ingest(
    configWith("remote", { EMBEDDING_URL: standIn.url, EMBEDDING_BATCH_SIZE: "4", EMBEDDING_RETRY_SECONDS: "120" }),
  );
  await watcher;
  expect(killedAt).toBeGreaterThan(0);
  expect(remote.chunks).toBe(reference.chunks);
  expect((await remote.engine.stats("scifact")).chunks).toBe((await reference.engine.stats("scifact")).chunks);

  for (const query of ["vitamin D and bone fractures", "statin therapy and muscle pain", "BRCA1 breast cancer risk"]) {
    const vector = await queryEmbedder.embedQuery(query);
    const search = (engine: SearchEngine) =>
      engine.search({ index: "scifact", mode: "dense", text: query, vector, limit: 10 });
    const [theirs, ours] = await Promise.all([search(remote.engine), search(reference.engine)]);
    expect(theirs.map((h) => h.id)).toEqual(ours.map((h) => h.id));
    theirs.forEach((hit, i) => expect(hit.score).toBeCloseTo(ours[i]!.score, 4));
  }
}, 600_000);
