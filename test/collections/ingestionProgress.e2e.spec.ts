// An operator follows an ingestion while it runs (real Temporal, PGlite, the embedded engine, the CLI in its own
// process): a 200-document ingestion runs in committed batches, and GET /admin/v1/ingestions/{id}, `ingestion show` and
// the operator's dashboard report the documents and chunks done so far, the rate and an estimated finish; the CLI
// finds the files it is named from the folder it was run from (as under `npm run cli`), and `webhook list` prints a
// table like the other lists (JSON with --json).
import { spawn } from "node:child_process";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { REPO_ROOT } from "../../src/app/config.js";
import {
  httpClient,
  operatorSteps,
  sliceDataRoot,
  startTestService,
  type TestService,
} from "../support/testService.js";
import { OPENALEX_SLICE, jsonl, plainCollection, writeCollectionsConfig } from "../support/operatorContent.js";

const DOCS = Array.from({ length: 200 }, (_, i) => ({
  id: `note-${i}`,
  title: `Field note ${i} on estuary salinity`,
  text: `Salinity in the estuary was measured at station ${i} during the spring tides and the neap tides alike.`,
}));

/** The CLI in its own process, run the way `npm run cli` runs it: in the project folder, the caller's in INIT_CWD. */
function cliFrom(callerDir: string, ...args: string[]): Promise<{ code: number | null; out: string; err: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, ["bin/litsearch.mjs", ...args], {
      cwd: REPO_ROOT,
      env: {
        ...process.env,
        DATABASE_URL: "",
        LITSEARCH_URL: "",
        ADMIN_TOKEN: "",
        INIT_CWD: callerDir,
        npm_lifecycle_event: "cli",
      },
    });
    let out = "";
    let err = "";
    child.stdout.on("data", (d: Buffer) => (out += d));
    child.stderr.on("data", (d: Buffer) => (err += d));
    child.on("close", (code) => resolve({ code, out, err }));
  });
}

describe("an ingestion followed while it runs", () => {
  let svc: TestService;
  let call: ReturnType<typeof httpClient>;
  let admin: string;
  let flags: string[];
  let callerDir: string;

  beforeAll(async () => {
    const dataRoot = await sliceDataRoot(10);
    svc = await startTestService({
      dataRoot,
      collectionsConfig: writeCollectionsConfig([OPENALEX_SLICE]),
      // each committed batch waits a little, so the ingestion is seen half-way
      env: { FAULT_INGEST_BATCH_DELAY_MS: "700", INGEST_PARALLELISM: "1", WEBHOOK_ALLOW_PRIVATE_URLS: "1" },
    });
    call = httpClient(svc.baseUrl);
    admin = svc.adminToken;
    flags = ["--url", svc.baseUrl, "--admin-token", admin];
    // the operator's own folder, not the project's: the definition and its file are found there
    callerDir = mkdtempSync(join(tmpdir(), "litsearch-operator-"));
    writeFileSync(join(callerDir, "notes.jsonl"), jsonl(DOCS));
    writeFileSync(
      join(callerDir, "reviews.json"),
      JSON.stringify(plainCollection("estuary-notes", "jsonl", ["notes.jsonl"], { retrieval: "sparse" })),
    );
  }, 600_000);

  afterAll(async () => {
    await svc?.close();
  });

  it("adds a collection from the caller's folder and reports its progress batch by batch", async () => {
    const added = await cliFrom(callerDir, "collection", "add", "reviews.json", ...flags);
    expect(added.code, added.err).toBe(0);
    const { ingestionId } = JSON.parse(added.out) as { ingestionId: string };
    const seen: { chunksIndexed: number; progress?: Record<string, unknown> }[] = [];
    let shown: { out: string; err: string } | undefined;
    for (;;) {
      const res = await call("GET", `/admin/v1/ingestions/${ingestionId}`, { admin });
      expect(res.status).toBe(200);
      if (res.body.state !== "running") {
        expect(res.body).toMatchObject({ state: "completed", documentsAdded: 200 });
        expect(res.body.progress).toBeUndefined();
        seen.push(res.body);
        break;
      }
      seen.push(res.body);
      if (!shown && res.body.chunksIndexed > 0)
        shown = await cliFrom(callerDir, "ingestion", "show", ingestionId, ...flags);
      await new Promise((r) => setTimeout(r, 150));
    }
    const final = seen.at(-1)!.chunksIndexed;
    const halfway = seen.filter((s) => s.progress && s.chunksIndexed > 0 && s.chunksIndexed < final);
    expect(halfway.length, JSON.stringify(seen.slice(0, 5))).toBeGreaterThan(0);
    expect(halfway[0]!.progress).toMatchObject({
      phase: "indexing",
      batches: 10,
      documentsTotal: 200,
      documentsDone: expect.any(Number),
      documentsPerSecond: expect.any(Number),
      chunksPerSecond: expect.any(Number),
      estimatedFinishAt: expect.stringMatching(/^\d{4}-\d\d-\d\dT/),
    });
    // the counts only go up
    const chunks = seen.map((s) => s.chunksIndexed);
    expect(chunks).toEqual([...chunks].sort((a, b) => a - b));
    expect(shown?.err).toMatch(/estuary-notes \(indexing\): \d+\/200 documents · \d+ chunks indexed · batch \d+\/10/);
    expect(shown?.err).toMatch(/done about \d{4}-/);
    expect(JSON.parse(shown!.out).progress.documentsTotal).toBe(200);
  }, 300_000);

  it("says where a file the caller names is not, rather than reading the project folder", async () => {
    const missing = await cliFrom(callerDir, "collection", "add", "no-such.json", ...flags);
    expect(missing.code).not.toBe(0);
    expect(missing.err).toContain("no-such.json");
  });

  it("prints webhook list as a table, and the API's JSON with --json", async () => {
    const { orgId, key } = await operatorSteps(call, admin).customer({ credits: "1.00" });
    const made = await call("POST", "/api/v1/webhooks", {
      key,
      body: { url: "http://127.0.0.1:9/litsearch", events: ["alert.matched", "balance.low"] },
    });
    expect(made.status, JSON.stringify(made.body)).toBe(201);
    const table = await cliFrom(callerDir, "webhook", "list", orgId, ...flags);
    expect(table.code, table.err).toBe(0);
    const [heading, row] = table.out.trim().split("\n");
    expect(heading).toMatch(/^ID\s+URL\s+EVENTS\s+STATE/);
    expect(row).toContain(made.body.id);
    expect(row).toContain("http://127.0.0.1:9/litsearch");
    expect(row).toContain("alert.matched,balance.low");
    const json = await cliFrom(callerDir, "webhook", "list", orgId, "--json", ...flags);
    expect(JSON.parse(json.out).data[0]).toMatchObject({ id: made.body.id });
  });
});
