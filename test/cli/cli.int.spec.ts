// The operator CLI against its own embedded store (no server running): the same operations as the admin API, and a
// store that does not exist created only on --init.
import { spawnSync } from "node:child_process";
import { existsSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { REPO_ROOT } from "../../src/app/config.js";
import { tempDirs } from "../support/tempDirs.js";

const tempDir = tempDirs();

function cli(dataDir: string, ...args: string[]) {
  const env: NodeJS.ProcessEnv = { ...process.env, DATA_DIR: dataDir, DATABASE_URL: "" };
  delete env.LITSEARCH_URL;
  delete env.ADMIN_TOKEN;
  const res = spawnSync(process.execPath, ["bin/litsearch.mjs", ...args], { cwd: REPO_ROOT, env, encoding: "utf8" });
  return { code: res.status, out: res.stdout, err: res.stderr };
}

describe("litsearch CLI", () => {
  it("creates an organization, credits it, keys it, shows the ledger as CSV, replays and verifies", () => {
    const dataDir = tempDir("litsearch-cli-");
    const org = cli(dataDir, "org", "create", "--name", "CLI lab", "--daily", "7", "--init");
    expect(org.code).toBe(0);
    const { id, limits } = JSON.parse(org.out) as { id: string; limits: { daily: number } };
    expect(limits.daily).toBe(7);
    expect(JSON.parse(cli(dataDir, "credits", "add", id, "12.50").out)).toEqual({ balance: "12.500000" });
    const key = JSON.parse(cli(dataDir, "key", "create", id, "--mode", "live", "--collections", "scifact").out) as {
      key: string;
    };
    expect(key.key).toMatch(/^sk_live_/);
    const typo = cli(dataDir, "key", "create", id, "--mode", "live", "--collections", "scifacts");
    expect([typo.code, typo.err.trim()]).toEqual([
      1,
      expect.stringContaining(
        'VALIDATION_ERROR: collections: no collection is named "scifacts". Did you mean "scifact"?',
      ),
    ]);
    cli(dataDir, "org", "create", "--name", "Another lab");
    const listed = JSON.parse(cli(dataDir, "org", "list", "--json").out) as {
      organizations: { id: string; name: string; balance: string; activeKeys: number }[];
      total: number;
    };
    expect(listed.total).toBe(2);
    expect(listed.organizations.map((o) => o.name)).toEqual(["Another lab", "CLI lab"]);
    expect(listed.organizations[1]).toMatchObject({ id, balance: "12.500000", activeKeys: 1, billingMode: "live" });
    expect(
      JSON.parse(cli(dataDir, "org", "list", "cli", "--json").out).organizations.map((o: { id: string }) => o.id),
    ).toEqual([id]);
    // a person reads a table: one heading line, one line per organization, and the count
    const table = cli(dataDir, "org", "list").out.trim().split("\n");
    expect(table[0]).toMatch(/^ID +NAME +BILLING +BALANCE +STATE +KEYS +MEMBERS$/);
    expect(table.slice(1, 3).map((line) => line.split(/ {2,}/)[1])).toEqual(["Another lab", "CLI lab"]);
    expect(table[3]).toBe("2 of 2 organization(s)");
    const csv = cli(dataDir, "ledger", id, "--csv").out.trim().split("\n");
    expect(csv[0]).toBe("time,type,amount,balance_after,key_id,query_id,reference,request_id");
    expect(csv[1]).toMatch(/,credit,12\.500000,12\.500000,,,operator credit,$/);
    const bad = cli(dataDir, "credits", "add", id, "lots");
    expect(bad.code).toBe(1);
    expect(bad.err).toMatch(/VALIDATION_ERROR/);
    const replay = cli(dataDir, "replay");
    expect(replay.code).toBe(0);
    expect(replay.out).toMatch(/equal\s+balances/);
    expect(cli(dataDir, "verify").code).toBe(0);
  }, 400_000);
});

describe("litsearch CLI without a store", () => {
  it("refuses to create one unless told (--init), naming where it looked and what to do, and writes nothing", () => {
    const dataDir = join(tempDir("litsearch-cli-none-"), "data");
    for (const args of [
      ["org", "create", "--name", "Lost lab"],
      ["org", "list"],
      ["credits", "add", "org_x", "1.00"],
    ]) {
      const refused = cli(dataDir, ...args);
      expect(refused.code).toBe(1);
      expect(refused.err).toContain(`no litsearch store at ${join(dataDir, "pglite")}`);
      expect(refused.err).toContain("--url URL --admin-token TOKEN");
      expect(refused.err).toContain("--init");
    }
    expect(existsSync(dataDir)).toBe(false);
    const created = cli(dataDir, "org", "create", "--name", "Found lab", "--init");
    expect(created.code, created.err).toBe(0);
    expect(readdirSync(dataDir)).toContain("pglite");
    expect(JSON.parse(cli(dataDir, "org", "list", "--json").out).total).toBe(1);
  }, 300_000);
});
