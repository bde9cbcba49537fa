// A worker killed mid-ingestion (the scaled shape: PostgreSQL, OpenSearch, `npm run worker` processes): the API process
// takes no batches; a worker process that pauses after each batch's engine commit, before the batch is recorded, is
// killed with SIGKILL; another one resumes the run, which ends with exact counts and no duplicate chunk.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { httpClient, sliceDataRoot, untilIngested, type TestService } from "../support/testService.js";
import { startScaledService, type ScaledService } from "../support/scaledService.js";
import { plainCollection, writeCollectionsConfig, writeJsonl } from "../support/operatorContent.js";
import { ingestionWorkflowId } from "../../workflows/ingestionTypes.js";
import { chunkId } from "../../src/ingest/chunk.js";

const COLLECTION = "crash-notes";
const note = (n: number, text = `Field survey ${n} counted ${n * 7} parrotfish grazing on reef transect ${n}.`) => ({
  id: `note-${n}`,
  title: `Survey ${n}`,
  text,
});

describe("an ingestion whose worker is killed", () => {
  let svc: TestService;
  let dataRoot: string;
  let call: ReturnType<typeof httpClient>;
  let scaled: ScaledService | undefined;
  const spawnWorker = (faults: Record<string, string> = {}) => scaled!.spawnWorker(faults);

  beforeAll(async () => {
    dataRoot = await sliceDataRoot();
    writeJsonl(dataRoot, "crash-v1.jsonl", [note(0), note(1), note(2)]);
    // note-0 unchanged, note-1 changed, note-2 deleted, note-3 .. note-39 new: 40 records, 10 batches of 4
    writeJsonl(dataRoot, "crash-v2.jsonl", [
      note(0),
      note(1, "Field survey 1 was repeated after the storm: no parrotfish left on transect 1."),
      { id: "note-2", deleted: true },
      ...Array.from({ length: 37 }, (_, k) => note(k + 3)),
    ]);
    const collections = writeCollectionsConfig([
      plainCollection(COLLECTION, "jsonl", ["crash-v1.jsonl"], {
        displayName: "Crash notes",
        retrieval: "sparse",
        scanFilterable: false,
      }),
    ]);
    // the API process runs no worker: every batch is a worker process's
    scaled = await startScaledService({
      dataRoot,
      opensearch: true,
      collectionsConfig: collections,
      env: { INGEST_BATCH_SIZE: "4", INGEST_PARALLELISM: "1" },
    });
    svc = scaled.svc;
    call = httpClient(svc.baseUrl);
  }, 600_000);

  afterAll(async () => {
    await scaled?.close();
  });

  const status = async (ingestionId: string) =>
    (await call("GET", `/admin/v1/ingestions/${ingestionId}`, { admin: svc.adminToken })).body;
  const finished = (ingestionId: string) => untilIngested(call, svc.adminToken, ingestionId);

  it("resumes on another worker with exact counts and no duplicate chunk", async () => {
    const first = spawnWorker();
    const replaced = await call("POST", `/admin/v1/collections/${COLLECTION}/ingest`, {
      admin: svc.adminToken,
      body: { files: ["crash-v1.jsonl"], mode: "replace" },
    });
    expect(replaced.status).toBe(202);
    // the first start built the collection from the same file, through the same pipeline: nothing changed
    expect(await finished(replaced.body.ingestionId)).toMatchObject({
      state: "completed",
      documentsRead: 3,
      documentsUnchanged: 3,
    });
    first.kill("SIGKILL");
    await new Promise((r) => first.once("exit", r));

    // each batch pauses 1.5 s between its engine commit and its record: the kill lands there or between batches
    const faulty = spawnWorker({ FAULT_INGEST_BATCH_DELAY_MS: "1500" });
    const started = await call("POST", `/admin/v1/collections/${COLLECTION}/ingest`, {
      admin: svc.adminToken,
      body: { files: ["crash-v2.jsonl"], mode: "upsert" },
    });
    expect(started.status).toBe(202);
    const { ingestionId } = started.body as { ingestionId: string };
    for (let i = 0; i < 2400; i++) {
      const s = await status(ingestionId);
      if (s.documentsAdded >= 8) break;
      await new Promise((r) => setTimeout(r, 50));
    }
    const midway = await status(ingestionId);
    expect(midway.state).toBe("running");
    faulty.kill("SIGKILL");
    await new Promise((r) => faulty.once("exit", r));
    spawnWorker();

    const done = await finished(ingestionId);
    expect(done).toMatchObject({
      state: "completed",
      documentsRead: 40,
      documentsAdded: 37,
      documentsUpdated: 1,
      documentsDeleted: 1,
      documentsUnchanged: 1,
      chunksIndexed: 38,
      error: null,
    });
    // one chunk per document: note-0, note-1 and the 37 new ones, none twice, none of note-2
    expect((await svc.runtime.engine.stats(COLLECTION)).chunks).toBe(39);
    const found = await svc.runtime.engine.getChunks(
      COLLECTION,
      ["note-1", "note-2"].map((id) => chunkId(COLLECTION, id, 0)),
    );
    expect(found.map((c) => c.text)).toEqual([
      "Field survey 1 was repeated after the storm: no parrotfish left on transect 1.",
    ]);
    // every batch recorded once (and the read count), though one ran again
    const [rows] = await svc.runtime.db.query<{ n: string }>(
      "SELECT count(*) AS n FROM ingest_batches WHERE ingestion_id = $1",
      [ingestionId],
    );
    expect(Number(rows!.n)).toBe(11);
    const history = await svc.runtime.temporal.client.workflow
      .getHandle(ingestionWorkflowId(ingestionId))
      .fetchHistory();
    // the batch the kill interrupted ran again (its started event records the attempt that completed)
    expect(history.events!.some((e) => (e.activityTaskStartedEventAttributes?.attempt ?? 1) >= 2)).toBe(true);
    const replay = await call("POST", "/admin/v1/replay", { admin: svc.adminToken });
    expect(replay.body.equal).toBe(true);
  }, 300_000);
});
