// Incremental ingestion on the real service (Temporal, PGlite, the embedding model; the embedded engine and
// OpenSearch): the first start builds a collection through the ingestion workflow; an upsert with changed, added and
// deleted documents is seen by search while unchanged ones are not re-embedded (texts counted through a wrapper around
// the real embedder); replace makes the collection exactly its files; the operator API's errors; replay stays equal.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  ENGINES,
  sliceDataRoot,
  startWithCustomer,
  untilIngested,
  type httpClient,
  type TestService,
} from "../support/testService.js";
import { plainCollection, writeCollectionsConfig, writeJsonl } from "../support/operatorContent.js";
import { loadConfig } from "../../src/app/config.js";
import { openIngestEmbedder } from "../../src/app/composition.js";
import type { Embedder } from "../../src/embedding/port.js";
import { runCli } from "../support/cliProcess.js";

const NOTE = (id: string, title: string, text: string) => ({
  id,
  title,
  text,
  journal: "Reef Field Notes",
  publication_date: "2024",
});
const V1 = [
  NOTE(
    "reef-1",
    "Coral bleaching on the northern reef",
    "Coral bleaching followed the marine heatwave; most reef flats lost their symbionts within weeks.",
  ),
  NOTE("reef-2", "Seagrass meadows and dugong grazing", "Dugongs graze seagrass meadows in rotation across the bay."),
  NOTE(
    "reef-3",
    "Mangrove roots as fish nurseries",
    "Juvenile snappers shelter among mangrove prop roots at high tide.",
  ),
];
/** reef-1 unchanged, reef-2 changed, reef-3 deleted, reef-4 new, reef-5 new and too short to index (excluded) */
const V2 = [
  V1[0],
  NOTE(
    "reef-2",
    "Seagrass meadows and dugong grazing",
    "Dugong herds abandoned the seagrass after the cyclone flattened the meadows.",
  ),
  { id: "reef-3", deleted: true },
  NOTE(
    "reef-4",
    "Crown-of-thorns starfish outbreaks",
    "Crown-of-thorns starfish outbreaks stripped the coral cover of the outer reef.",
  ),
  NOTE("reef-5", "A reef note whose title is long but whose text is not", "Reef."),
];

const cli = runCli;

function collectionsConfig(dataRoot: string): string {
  writeJsonl(dataRoot, "reef-v1.jsonl", V1);
  writeJsonl(dataRoot, "reef-v2.jsonl", V2);
  writeJsonl(dataRoot, "reef-v3.jsonl", [V1[0], V2[3]]);
  const reefs = (name: string, file: string) => plainCollection(name, "jsonl", [file], { description: "reef notes" });
  return writeCollectionsConfig(
    [reefs("reef-notes", "reef-v1.jsonl"), reefs("reef-other", "reef-v3.jsonl")],
    [{ name: "all-reefs", displayName: "All reefs", description: "both", members: ["reef-notes", "reef-other"] }],
  );
}

/** The real ingestion embedder, counting the texts it is given. */
function countingEmbedder(inner: Embedder, texts: string[]): Embedder {
  return {
    get modelName() {
      return inner.modelName;
    },
    get dims() {
      return inner.dims;
    },
    embedPassages: (batch, onEmbedded) => {
      texts.push(...batch);
      return inner.embedPassages(batch, onEmbedded);
    },
    embedQuery: (text) => inner.embedQuery(text),
    close: () => inner.close(),
  };
}

describe.each(ENGINES)("incremental ingestion on the %s engine", (engine) => {
  let svc: TestService;
  let call: ReturnType<typeof httpClient>;
  let key: string;
  const embedded: string[] = [];

  beforeAll(async () => {
    const dataRoot = await sliceDataRoot();
    const config = loadConfig({ ...process.env, DATA_ROOT: dataRoot });
    ({ svc, call, key } = await startWithCustomer(
      {
        dataRoot,
        collectionsConfig: collectionsConfig(dataRoot),
        engine,
        openPassageEmbedder: async () => countingEmbedder(await openIngestEmbedder(config), embedded),
        env: { INGEST_BATCH_SIZE: "2" },
      },
      "50.00",
    ));
  }, 600_000);

  afterAll(async () => {
    await svc?.close();
  });

  const titles = async (query: string) => {
    const res = await call("POST", "/api/v1/search/query", {
      key,
      body: { collection: "reef-notes", query, limit: 10 },
    });
    expect(res.status).toBe(200);
    return (res.body.results as { text: string; metadata: { title: string } }[]).map(
      (r) => `${r.metadata.title}: ${r.text}`,
    );
  };
  const ingest = (collection: string, body: unknown) =>
    call("POST", `/admin/v1/collections/${collection}/ingest`, { admin: svc.adminToken, body });
  const finished = (ingestionId: string) => untilIngested(call, svc.adminToken, ingestionId);

  it("built the collections of the first start through the workflow, with their counts", async () => {
    const latest = await svc.runtime.ingestions.latest("reef-notes");
    expect(latest).toMatchObject({
      collection: "reef-notes",
      mode: "replace",
      files: ["reef-v1.jsonl"],
      state: "completed",
      documentsRead: 3,
      documentsAdded: 3,
      documentsUpdated: 0,
      documentsDeleted: 0,
      documentsUnchanged: 0,
      documentsExcluded: 0,
      chunksIndexed: 3,
      error: null,
    });
    expect(await svc.runtime.ingestions.hasCompleted("reef-notes")).toBe(true);
    expect((await titles("mangrove prop roots")).join("\n")).toContain("Mangrove roots as fish nurseries");
  });

  it("upserts changed, added and deleted documents, seen by search, re-embedding no unchanged one", async () => {
    embedded.length = 0;
    const started = await ingest("reef-notes", { files: ["reef-v2.jsonl"], mode: "upsert" });
    expect(started.status).toBe(202);
    expect(started.body).toEqual({ ingestionId: expect.any(String) });
    const status = await finished(started.body.ingestionId);
    expect(status).toMatchObject({
      ingestionId: started.body.ingestionId,
      collection: "reef-notes",
      mode: "upsert",
      files: ["reef-v2.jsonl"],
      state: "completed",
      documentsRead: 5,
      documentsAdded: 1,
      documentsUpdated: 1,
      documentsDeleted: 1,
      documentsUnchanged: 1,
      documentsExcluded: 1,
      chunksIndexed: 2,
      error: null,
    });
    expect(Date.parse(status.finishedAt)).toBeGreaterThanOrEqual(Date.parse(status.startedAt));
    // only the changed and the new document were embedded
    expect(embedded).toHaveLength(2);
    expect(embedded.some((t) => t.includes("Coral bleaching followed"))).toBe(false);

    const changed = await titles("dugong herds abandoned the seagrass after the cyclone");
    expect(changed[0]).toContain("cyclone flattened the meadows");
    expect(changed.join("\n")).not.toContain("graze seagrass meadows in rotation");
    expect((await titles("juvenile snappers mangrove prop roots")).join("\n")).not.toContain("Mangrove roots");
    expect((await titles("crown-of-thorns starfish outbreaks"))[0]).toContain("Crown-of-thorns starfish outbreaks");
    expect((await titles("coral bleaching marine heatwave")).join("\n")).toContain(
      "Coral bleaching on the northern reef",
    );
    const collections = await call("GET", "/api/v1/search/collections", { key });
    expect(
      (collections.body.collections as { name: string; documentCount?: number }[]).find((c) => c.name === "reef-notes")
        ?.documentCount,
    ).toBe(3);
  });

  it("replaces: the collection becomes exactly the given files", async () => {
    embedded.length = 0;
    const started = await ingest("reef-notes", { files: ["reef-v3.jsonl"], mode: "replace" });
    expect(started.status).toBe(202);
    expect(await finished(started.body.ingestionId)).toMatchObject({
      state: "completed",
      mode: "replace",
      documentsRead: 2,
      documentsAdded: 0,
      documentsUpdated: 0,
      documentsDeleted: 1,
      documentsUnchanged: 2,
      chunksIndexed: 0,
    });
    expect(embedded).toHaveLength(0);
    expect((await titles("dugong seagrass meadows cyclone")).join("\n")).not.toContain("Seagrass meadows");
    expect((await titles("crown-of-thorns starfish")).join("\n")).toContain("Crown-of-thorns");
  });

  it("refuses what it cannot do with the one envelope, and starts nothing", async () => {
    const before = (await svc.runtime.ingestions.latest("reef-notes"))?.ingestionId;
    const missing = await ingest("reef-notes", { files: ["reef-v2.jsonl", "no-such.jsonl"], mode: "upsert" });
    expect(missing.status).toBe(422);
    expect(missing.body.error).toMatchObject({ code: "VALIDATION_ERROR", requestId: expect.any(String) });
    expect(missing.body.error.message).toContain('"no-such.jsonl"');
    expect((await ingest("no-such-collection", { files: ["reef-v2.jsonl"], mode: "upsert" })).body.error.code).toBe(
      "COLLECTION_NOT_FOUND",
    );
    const meta = await ingest("all-reefs", { files: ["reef-v2.jsonl"], mode: "upsert" });
    expect(meta.status).toBe(422);
    expect(meta.body.error.message).toContain("meta-collection");
    expect((await ingest("reef-notes", { files: ["reef-v2.jsonl"], mode: "merge" })).status).toBe(422);
    expect((await ingest("reef-notes", { files: [], mode: "upsert" })).status).toBe(422);
    expect(
      (
        await call("POST", "/admin/v1/collections/reef-notes/ingest", {
          key,
          body: { files: ["reef-v2.jsonl"], mode: "upsert" },
        })
      ).status,
    ).toBe(401);
    expect((await call("GET", "/admin/v1/ingestions/ing_nope", { admin: svc.adminToken })).status).toBe(404);
    expect((await svc.runtime.ingestions.latest("reef-notes"))?.ingestionId).toBe(before);

    // one ingestion of a collection at a time
    const first = await ingest("reef-notes", { files: ["reef-v3.jsonl"], mode: "upsert" });
    const second = await ingest("reef-notes", { files: ["reef-v3.jsonl"], mode: "upsert" });
    expect(first.status).toBe(202);
    expect(second.status).toBe(409);
    expect(second.body.error.message).toContain(first.body.ingestionId);
    expect(await finished(first.body.ingestionId)).toMatchObject({ state: "completed", documentsUnchanged: 2 });
  });

  it("is run from the CLI against the running service (collection ingest, ingestion show)", async () => {
    const flags = ["--url", svc.baseUrl, "--admin-token", svc.adminToken];
    const started = await cli(
      "collection",
      "ingest",
      "reef-notes",
      "--files",
      "reef-v3.jsonl",
      "--mode",
      "upsert",
      ...flags,
    );
    expect(started.err).toBe("");
    expect(started.code).toBe(0);
    const { ingestionId } = JSON.parse(started.out) as { ingestionId: string };
    await finished(ingestionId);
    const shown = await cli("ingestion", "show", ingestionId, ...flags);
    expect(shown.code).toBe(0);
    expect(JSON.parse(shown.out)).toMatchObject({
      ingestionId,
      collection: "reef-notes",
      mode: "upsert",
      state: "completed",
      documentsRead: 2,
      documentsUnchanged: 2,
    });
    // --wait follows it to its end with the progress line, and answers how it ended
    const waited = await cli(
      "collection",
      "ingest",
      "reef-notes",
      "--files",
      "reef-v3.jsonl",
      "--mode",
      "upsert",
      "--wait",
      ...flags,
    );
    expect(waited.code, waited.err).toBe(0);
    expect(JSON.parse(waited.out)).toMatchObject({
      collection: "reef-notes",
      state: "completed",
      documentsRead: 2,
      documentsUnchanged: 2,
    });
    expect(waited.err).toMatch(/^reef-notes: completed: 2 documents, 0 chunks indexed in \d/m);
    expect(waited.err).not.toMatch(/NaN|Infinity|\/0\b/);
    const bad = await cli("collection", "ingest", "reef-notes", "--files", "no-such.jsonl", ...flags);
    expect(bad.code).toBe(1);
    expect(bad.err).toContain("VALIDATION_ERROR");
    expect(bad.err).toContain('"no-such.jsonl"');
  });

  it("refuses to extend an index whose vectors another embedding path made, and rebuilds it on replace", async () => {
    const { engine: search, embedder } = svc.runtime;
    // as if an earlier version of the model had built it
    await search.deleteIndex("reef-other");
    await search.ensureIndex("reef-other", embedder.dims, "older-model@int8:000000000000");
    const upsert = await ingest("reef-other", { files: ["reef-v3.jsonl"], mode: "upsert" });
    expect(upsert.status).toBe(202);
    expect(await finished(upsert.body.ingestionId)).toMatchObject({
      state: "failed",
      error: expect.stringMatching(
        new RegExp(
          String.raw`made by older-model@int8:000000000000, and this process embeds with ` +
            String.raw`bge-small-en-v1\.5@fp32:[0-9a-f]{12}: ingest the collection again in replace mode`,
        ),
      ),
    });
    const query = (collection: string) =>
      call("POST", "/api/v1/search/query", { key, body: { collection, query: "crown-of-thorns starfish", limit: 3 } });
    // a hybrid search of it is refused too, naming both paths, and charges nothing
    const refused = await query("reef-other");
    expect(refused.status).toBe(503);
    expect(refused.body.error.message).toMatch(/older-model@int8:000000000000/);
    const replace = await ingest("reef-other", { files: ["reef-v3.jsonl"], mode: "replace" });
    expect(await finished(replace.body.ingestionId)).toMatchObject({ state: "completed", documentsAdded: 2 });
    expect(await search.embeddingOf("reef-other")).toBe(embedder.modelName);
    expect((await query("reef-other")).status).toBe(200);
  });

  it("replays the ingestion events into an equal read model", async () => {
    const replay = await call("POST", "/admin/v1/replay", { admin: svc.adminToken });
    expect(replay.status).toBe(200);
    expect(replay.body.equal).toBe(true);
    expect(
      (replay.body.tables as { table: string; rows: number }[]).find((t) => t.table === "ingestions")?.rows,
    ).toBeGreaterThanOrEqual(6);
  });
});
