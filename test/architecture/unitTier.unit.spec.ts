// The unit tier's guard (test/setup/pureUnit.ts) is installed: a unit test that reaches for ../shared or starts a
// process fails, saying to use a fixture or the integration tier.
import { execFileSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { REPO_ROOT } from "../../src/app/config.js";

describe("the unit tier is pure", () => {
  it("refuses to read a file of ../shared, synchronously or not", async () => {
    const shared = join(REPO_ROOT, "..", "shared", "data", "scifact", "corpus.jsonl");
    expect(() => readFileSync(shared)).toThrow(/a unit test reads no file of \.\.\/shared/);
    await expect(readFile(shared)).rejects.toThrow(/test\/fixtures/);
  });

  it("refuses to start a process", () => {
    expect(() => execFileSync("node", ["--version"])).toThrow(/a unit test starts no process/);
  });
});
