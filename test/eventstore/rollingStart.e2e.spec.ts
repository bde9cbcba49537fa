// Rolling starts and a paused database on the real service over PostgreSQL (Temporal, the embedded engine): processes
// starting against the live store during a burst of paid searches (the migration entry point every process runs,
// openEventStore, in a loop) cause no 500 and no failed start; PostgreSQL paused for 10 s (SIGSTOP) answers 503 in the
// envelope, never 500, and the service answers again once it resumes.
import { execFileSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { loadConfig } from "../../src/app/config.js";
import { openEventStore } from "../../src/app/composition.js";
import { sliceDataRoot, startWithCustomer, type httpClient, type TestService } from "../support/testService.js";
import { OPENALEX_SLICE, writeCollectionsConfig } from "../support/operatorContent.js";
import { createPostgresDatabase } from "../support/stores.js";

describe("rolling starts and a paused database (PostgreSQL)", () => {
  let svc: TestService;
  let call: ReturnType<typeof httpClient>;
  let key: string;
  let databaseUrl: string;

  beforeAll(async () => {
    databaseUrl = await createPostgresDatabase();
    ({ svc, call, key } = await startWithCustomer(
      {
        dataRoot: await sliceDataRoot(20),
        store: "postgres",
        databaseUrl,
        collectionsConfig: writeCollectionsConfig([OPENALEX_SLICE]),
      },
      "100.00",
    ));
  }, 600_000);

  afterAll(async () => {
    await svc?.close();
  });

  const search = () =>
    call("POST", "/api/v1/search/query", {
      key,
      body: { collection: "openalex-synergy", query: "pheochromocytoma outcomes", limit: 3 },
    });

  it("processes starting during a burst of paid searches: no 500, no failed start", async () => {
    const statuses: number[] = [];
    let searching = true;
    const burst = Array.from({ length: 6 }, async () => {
      while (searching) statuses.push((await search()).status);
    });
    const starts: string[] = [];
    // at least 12 starts, and on until the burst has made more than 12 searches (a loaded machine serves them slowly)
    for (let i = 0; i < 60 && (i < 12 || statuses.length <= 12); i++) {
      // what every API and worker process runs as it starts: open the store and migrate it
      const db = await openEventStore(loadConfig({ ...process.env, DATABASE_URL: databaseUrl, DATA_DIR: svc.dataDir }));
      await db.close();
      starts.push("started");
    }
    searching = false;
    await Promise.all(burst);
    expect(starts.length).toBeGreaterThanOrEqual(12);
    expect(statuses.length).toBeGreaterThan(12);
    expect(statuses.filter((s) => s !== 200)).toEqual([]);
  }, 180_000);

  it("PostgreSQL paused for 10 s: 503 in the envelope, never 500; the service answers again on resume", async () => {
    const [{ data_directory: dataDirectory }] = (await svc.runtime.db.query<{ data_directory: string }>(
      "SHOW data_directory",
    )) as [{ data_directory: string }];
    const postmaster = readFileSync(join(dataDirectory, "postmaster.pid"), "utf8").split("\n")[0]!.trim();
    const children = execFileSync("pgrep", ["-P", postmaster], { encoding: "utf8" }).split("\n").filter(Boolean);
    const pids = [postmaster, ...children];
    const answers: Promise<{ status: number; body: any }>[] = [];
    execFileSync("kill", ["-STOP", ...pids]);
    try {
      for (let i = 0; i < 20; i++) {
        answers.push(search());
        await new Promise((r) => setTimeout(r, 500));
      }
    } finally {
      execFileSync("kill", ["-CONT", ...pids]);
    }
    const settled = await Promise.all(answers);
    const statuses = settled.map((a) => a.status);
    expect(statuses.filter((s) => s !== 200 && s !== 503)).toEqual([]);
    expect(statuses).toContain(503);
    for (const a of settled.filter((x) => x.status === 503)) {
      expect(a.body.error.code).toBe("SERVICE_UNAVAILABLE");
      expect(a.body.error.requestId).toEqual(expect.any(String));
      expect(a.body.error.message).not.toMatch(/timeout exceeded|pg|ECONN/);
    }
    expect((await search()).status).toBe(200);
  }, 180_000);
});
