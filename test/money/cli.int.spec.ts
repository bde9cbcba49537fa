// The operator CLI's money commands against its own embedded store: billing settings, prices, refunds, reconcile.
import { spawnSync } from "node:child_process";
import { describe, expect, it } from "vitest";
import { REPO_ROOT } from "../../src/app/config.js";
import { tempDirs } from "../support/tempDirs.js";

const tempDir = tempDirs();

function cli(dataDir: string, ...args: string[]) {
  const res = spawnSync(process.execPath, ["bin/litsearch.mjs", ...args], {
    cwd: REPO_ROOT,
    env: { ...process.env, DATA_DIR: dataDir, DATABASE_URL: "" },
    encoding: "utf8",
  });
  return { code: res.status, out: res.stdout, err: res.stderr };
}

describe("litsearch CLI: money commands", () => {
  it("sets billing settings and prices, refuses to refund what was never paid, reconciles with no discrepancy", () => {
    const dataDir = tempDir("litsearch-cli-money-");
    const created = cli(
      dataDir,
      "org",
      "create",
      "--name",
      "Finance lab",
      "--billing-mode",
      "trial",
      "--trial-queries",
      "5",
      "--init",
    );
    expect(created.code).toBe(0);
    const org = JSON.parse(created.out) as { id: string; billingMode: string; trialQueries: number };
    expect([org.billingMode, org.trialQueries]).toEqual(["trial", 5]);
    const billing = cli(
      dataDir,
      "org",
      "billing",
      org.id,
      "--billing-mode",
      "live",
      "--balance",
      "hidden",
      "--billing",
      "on",
    );
    expect(JSON.parse(billing.out)).toMatchObject({ billingMode: "live", hideBalance: true, billingEnabled: true });
    const price = cli(dataDir, "price", "set", org.id, "scifact", "0.045");
    expect(price.code).toBe(0);
    expect(JSON.parse(price.out).prices).toContainEqual({
      collection: "scifact",
      pricePer1000: "0.045",
      catalogPricePer1000: "0.030",
      overridden: true,
    });
    expect(cli(dataDir, "price", "set", org.id, "biomedical", "0.045").code).toBe(1);
    expect(JSON.parse(cli(dataDir, "credits", "add", org.id, "10.00").out)).toEqual({ balance: "10.000000" });
    // nothing was paid yet, so there is nothing to refund: a grant is a credit
    const refused = cli(dataDir, "refund", org.id, "0.50", "--reference", "goodwill");
    expect([refused.code, refused.out + refused.err]).toEqual([
      1,
      expect.stringContaining("has paid 0.000000 credits"),
    ]);
    expect(JSON.parse(cli(dataDir, "credits", "add", org.id, "0.50", "--reference", "goodwill").out)).toEqual({
      balance: "10.500000",
    });
    const rec = cli(dataDir, "reconcile");
    expect(rec.code).toBe(0);
    expect(rec.out).toMatch(/reconciled 1 organization\(s\): no discrepancy/);
    const [report] = JSON.parse(rec.out.slice(0, rec.out.lastIndexOf("]") + 1)) as {
      credits: string;
      refunds: string;
      closingBalance: string;
      ok: boolean;
    }[];
    expect(report).toMatchObject({ credits: "10.500000", refunds: "0.000000", closingBalance: "10.500000", ok: true });
    const replay = cli(dataDir, "replay");
    expect(replay.code).toBe(0);
    expect(replay.out).toMatch(/equal\s+price_overrides/);
  }, 400_000);
});
