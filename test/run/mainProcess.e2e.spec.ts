// `npm start` as an operator runs it: embedded defaults, its own Temporal dev server, Ctrl-C, restart with data kept.
import { spawnSync, type ChildProcess } from "node:child_process";
import { afterAll, describe, expect, it } from "vitest";
import { sliceDataRoot } from "../support/testService.js";
import { startMain } from "../support/mainProcess.js";
import { tempDirs } from "../support/tempDirs.js";

const tempDir = tempDirs();

function processesUnder(dataDir: string): string[] {
  const res = spawnSync("pgrep", ["-af", dataDir], { encoding: "utf8" });
  return res.stdout.split("\n").filter((l) => l.trim() && !l.includes("pgrep"));
}

const children: ChildProcess[] = [];
afterAll(() => {
  for (const c of children) if (c.exitCode === null) c.kill("SIGKILL");
});

describe("the run command", () => {
  it("starts on embedded defaults, prints URL and token, stops on Ctrl-C, keeps data across a restart", async () => {
    const dataDir = tempDir("litsearch-main-");
    const dataRoot = await sliceDataRoot(40);
    const first = await startMain(dataDir, dataRoot);
    children.push(first.child);
    expect(first.output()).toContain("$BASE/api/v1/search/query");
    // it listens before the demo collections are built, says so, and builds them behind the listener
    expect(first.output()).toContain(
      "Still ingesting (first start), in this order: openalex-synergy, openalex-open-access, scifact, clinical-digest.",
    );
    expect((await fetch(`${first.url}/readyz`)).status).toBe(200);
    const collections = async () =>
      (
        (await (await fetch(`${first.url}/readyz`)).json()) as {
          details: { collections: { ready: string[]; ingesting: string[] } };
        }
      ).details.collections;
    const deadline = Date.now() + 300_000;
    while ((await collections()).ingesting.length > 0 && Date.now() < deadline)
      await new Promise((r) => setTimeout(r, 500));
    expect(await collections()).toEqual({
      ready: ["openalex-synergy", "openalex-open-access", "scifact", "clinical-digest"],
      ingesting: [],
      failed: [],
    });
    const auth = { Authorization: `Bearer ${first.token}`, "Content-Type": "application/json" };
    const org = (await (
      await fetch(`${first.url}/admin/v1/organizations`, {
        method: "POST",
        headers: auth,
        body: JSON.stringify({ name: "Persistent" }),
      })
    ).json()) as { id: string };
    await fetch(`${first.url}/admin/v1/organizations/${org.id}/credits`, {
      method: "POST",
      headers: auth,
      body: JSON.stringify({ amount: "3.25" }),
    });
    // the Temporal dev server runs as a child, with its SQLite file in the data directory
    expect(processesUnder(dataDir).some((l) => l.includes("temporal"))).toBe(true);

    first.child.kill("SIGINT");
    const code = await new Promise<number | null>((r) => first.child.once("exit", r));
    expect(code).toBe(0);
    await new Promise((r) => setTimeout(r, 1000));
    expect(processesUnder(dataDir)).toEqual([]);

    const second = await startMain(dataDir, dataRoot);
    children.push(second.child);
    expect(second.token).toBe(first.token);
    // everything was built on the first start: nothing to ingest, every collection ready at once
    expect(second.output()).not.toContain("Still ingesting");
    const balance = (await (
      await fetch(`${second.url}/admin/v1/organizations/${org.id}/balance`, { headers: auth })
    ).json()) as { balance: string };
    expect(balance).toEqual({ balance: "3.250000" });
    second.child.kill("SIGTERM");
    expect(await new Promise((r) => second.child.once("exit", r))).toBe(0);
  }, 600_000);
});
