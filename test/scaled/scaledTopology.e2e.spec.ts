// The scale-out shape as `npm run up -- --scaled` starts it (src/app/main.ts --scaled): its own PostgreSQL server,
// Temporal dev server and OpenSearch node with k-NN, two API processes without a worker, one worker process. Billing
// goes through both API processes and every unlock runs on the separate worker; balances are exact to the micro-credit,
// each unlock is charged once, and replaying the event log rebuilds the same projections.
import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import { chmodSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import pg from "pg";
import { Client, Connection } from "@temporalio/client";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { REPO_ROOT } from "../../src/app/config.js";
import { parseCredits } from "../../src/domain/money.js";
import { taskQueuePollers } from "../../src/app/scaledTopology.js";
import { httpClient, sliceDataRoot } from "../support/testService.js";

const ADMIN = "scaled-admin-token-0123456789";

interface Started {
  child: ChildProcess;
  apis: string[];
  databaseUrl: string;
  temporalAddress: string;
  workerIdentity: string;
  output: () => string;
}

let dataDir: string;
let started: Started | undefined;

/** `npm start -- --scaled` (what `npm run up -- --scaled` runs after setup), on a fresh data directory. */
async function startScaled(): Promise<Started> {
  const dataRoot = await sliceDataRoot();
  const env = {
    ...process.env,
    DATA_DIR: dataDir,
    DATA_ROOT: dataRoot,
    PORT: "0",
    HOST: "127.0.0.1",
    ADMIN_TOKEN: ADMIN,
    DATABASE_URL: "",
    TEMPORAL_ADDRESS: "",
    OPENSEARCH_URL: "",
    LOG_LEVEL: "info",
  };
  const child = spawn(process.execPath, ["--import", "tsx", "src/app/main.ts", "--scaled"], {
    cwd: REPO_ROOT,
    env,
    stdio: ["ignore", "pipe", "pipe"],
  });
  let out = "";
  child.stdout!.on("data", (d) => (out += d));
  child.stderr!.on("data", (d) => (out += d));
  const deadline = Date.now() + 600_000;
  while (Date.now() < deadline) {
    if (out.includes("Ctrl-C stops everything")) {
      const apis = [...out.matchAll(/^\s+api-\d+: (http:\/\/\S+)$/gm)].map((m) => m[1]!);
      const components = /PostgreSQL (postgres:\/\/\S+), Temporal (\S+), OpenSearch (\S+)\./.exec(out);
      const worker = /worker 1 polling task queue \S+ as (\S+)/.exec(out);
      if (!components || !worker) throw new Error(`unexpected banner:\n${out}`);
      return {
        child,
        apis,
        databaseUrl: components[1]!,
        temporalAddress: components[2]!,
        workerIdentity: worker[1]!,
        output: () => out,
      };
    }
    if (child.exitCode !== null) throw new Error(`the scaled launcher exited early (${child.exitCode}):\n${out}`);
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
  child.kill("SIGKILL");
  throw new Error(`the scaled shape did not start in time:\n${out}`);
}

function processesUnder(dir: string): string[] {
  return spawnSync("pgrep", ["-af", dir], { encoding: "utf8" })
    .stdout.split("\n")
    .filter((line) => line.trim() && !line.includes("pgrep"));
}

beforeAll(async () => {
  dataDir = mkdtempSync(join(tmpdir(), "litsearch-scaled-"));
  // PostgreSQL runs as its own account when we are root: it must be able to enter the data directory
  chmodSync(dataDir, 0o755);
  started = await startScaled();
}, 660_000);

afterAll(async () => {
  if (started && started.child.exitCode === null) {
    started.child.kill("SIGKILL");
    await new Promise((resolve) => setTimeout(resolve, 2000));
  }
  rmSync(dataDir, { recursive: true, force: true });
}, 120_000);

describe("npm run up -- --scaled", () => {
  it("serves from two API processes, no worker inside them, one worker process on the task queue", async () => {
    const s = started!;
    expect(s.apis).toHaveLength(2);
    for (const url of s.apis) {
      const ready = await fetch(`${url}/readyz`);
      expect(ready.status).toBe(200);
      expect(((await ready.json()) as { details?: { searchKnn?: string } }).details?.searchKnn).toBe("lucene-hnsw");
    }
    // the only poller is the worker process: the API processes run WORKER_MODE=separate
    expect(await taskQueuePollers(s.temporalAddress, "default")).toEqual([s.workerIdentity]);
  });

  it("bills via both API processes, unlocks on the worker: exact balances, one charge per unlock, replay", async () => {
    const s = started!;
    const [a, b] = s.apis.map((url) => httpClient(url));
    const org = await a!("POST", "/admin/v1/organizations", { admin: ADMIN, body: { name: "Scaled lab" } });
    expect(org.status).toBe(201);
    const orgId = org.body.id as string;
    expect(
      (await b!("POST", `/admin/v1/organizations/${orgId}/credits`, { admin: ADMIN, body: { amount: "5.00" } })).status,
    ).toBe(200);
    const key = (await b!("POST", `/admin/v1/organizations/${orgId}/keys`, { admin: ADMIN, body: { mode: "live" } }))
      .body.key as string;
    let expected = parseCredits("5.00")!;

    // searches alternate between the two processes; each charge is what its X-Query-Cost says
    const queries = [
      "vitamin D and bone fractures",
      "statins and memory loss",
      "aspirin and cancer risk",
      "sleep deprivation and obesity",
    ];
    for (const [i, query] of queries.entries()) {
      const res = await [a, b][i % 2]!("POST", "/api/v1/search/query", {
        key,
        body: { collection: "scifact", query, limit: 3 },
      });
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      expected -= parseCredits(res.headers.get("x-query-cost")!)!;
      expect(parseCredits(res.headers.get("x-credits-remaining")!)).toBe(expected);
    }

    // a preview on one process, unlocks of different rows on each, and a repeat that pays nothing
    const preview = await a!("POST", "/api/v1/search/preview", {
      key,
      body: { collection: "scifact", query: "vitamin D and bone fractures", limit: 6 },
    });
    expect(preview.status).toBe(200);
    const ids = (preview.body.results as Array<{ id: string }>).map((row) => row.id);
    expect(ids.length).toBeGreaterThanOrEqual(4);
    const unlocks = [
      await b!("POST", "/api/v1/search/unlock", {
        key,
        body: { queryId: preview.body.queryId, resultIds: ids.slice(0, 2) },
      }),
      await a!("POST", "/api/v1/search/unlock", {
        key,
        body: { queryId: preview.body.queryId, resultIds: ids.slice(2, 4) },
      }),
      await a!("POST", "/api/v1/search/unlock", {
        key,
        body: { queryId: preview.body.queryId, resultIds: ids.slice(0, 2) },
      }),
    ];
    for (const res of unlocks) expect(res.status, JSON.stringify(res.body)).toBe(200);
    // a repeat unlocks nothing new: costCharged null, X-Query-Cost zero
    const paid = unlocks.map((res) => (res.body.costCharged === null ? 0n : parseCredits(res.body.costCharged)!));
    expect(paid[0]).toBeGreaterThan(0n);
    expect(paid[1]).toBeGreaterThan(0n);
    expect([unlocks[2]!.body.costCharged, unlocks[2]!.headers.get("x-query-cost")]).toEqual([null, "0.000000"]);
    expected -= paid[0]! + paid[1]!;

    for (const call of [a!, b!])
      expect(
        parseCredits((await call("GET", `/admin/v1/organizations/${orgId}/balance`, { admin: ADMIN })).body.balance),
      ).toBe(expected);

    const db = new pg.Client({ connectionString: s.databaseUrl });
    await db.connect();
    try {
      const events = async (type: string) =>
        (
          await db.query(`SELECT data FROM events WHERE stream_id = $1 AND type = $2 ORDER BY position`, [
            `org-${orgId}`,
            type,
          ])
        ).rows.map((row) => row.data as Record<string, any>);
      expect(await events("SearchCharged")).toHaveLength(queries.length);
      const unlocked = await events("ResultsUnlocked");
      // one charge per unlock that unlocked rows, for exactly what the response said
      expect(unlocked.map((e) => BigInt(e.amountMicros))).toEqual([paid[0], paid[1]]);
      expect(unlocked.map((e) => [...e.resultIds].sort())).toEqual([ids.slice(0, 2).sort(), ids.slice(2, 4).sort()]);
      const credits = (await events("CreditsAdded")).reduce((sum, e) => sum + BigInt(e.amountMicros), 0n);
      const charged = [...(await events("SearchCharged")), ...unlocked].reduce(
        (sum, e) => sum + BigInt(e.amountMicros),
        0n,
      );
      expect(credits - charged).toBe(expected);

      // every workflow task of every unlock completed on the worker process, none on an API process
      const connection = await Connection.connect({ address: s.temporalAddress });
      try {
        const client = new Client({ connection, namespace: "default" });
        for (const event of unlocked) {
          // the charge's key is the run that made it: workflowId/runId
          const [workflowId, runId] = String(event.workflowId).split("/");
          const history = await client.workflow.getHandle(workflowId!, runId).fetchHistory();
          const identities = new Set(
            (history.events ?? []).flatMap((e) =>
              e.workflowTaskCompletedEventAttributes?.identity ? [e.workflowTaskCompletedEventAttributes.identity] : [],
            ),
          );
          expect([...identities], event.workflowId).toEqual([s.workerIdentity]);
        }
      } finally {
        await connection.close();
      }
    } finally {
      await db.end();
    }

    // the projections rebuilt from position 0 equal the live ones (either process can run it)
    const replay = await b!("POST", "/admin/v1/replay", { admin: ADMIN });
    expect(replay.status, JSON.stringify(replay.body)).toBe(200);
    expect(replay.body.equal).toBe(true);
  }, 300_000);

  it("stops every process and component on SIGINT", async () => {
    const s = started!;
    const exited = new Promise<number | null>((resolve) => s.child.once("exit", (code) => resolve(code)));
    s.child.kill("SIGINT");
    expect(await exited).toBe(0);
    const deadline = Date.now() + 60_000;
    while (processesUnder(dataDir).length > 0 && Date.now() < deadline)
      await new Promise((resolve) => setTimeout(resolve, 500));
    // the components (their command lines name the data directory) and the API processes are gone
    expect(processesUnder(dataDir)).toEqual([]);
    for (const url of s.apis) await expect(fetch(`${url}/healthz`)).rejects.toThrow();
  }, 120_000);
});
