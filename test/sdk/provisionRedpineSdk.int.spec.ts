// scripts/provision-redpine-sdk.sh: leaves a provisioned venv alone, and rebuilds one that does not import the pinned
// SDK.
import { runProvisionScript } from "../support/provisionScript.js";
import { execFile } from "node:child_process";
import { existsSync } from "node:fs";
import { mkdir, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { promisify } from "node:util";
import { afterEach, describe, expect, it } from "vitest";
import { cacheDirFrom } from "../../src/app/config.js";

const run = promisify(execFile);
const script = resolve(import.meta.dirname, "../../scripts/provision-redpine-sdk.sh");
const temporaryCaches: string[] = [];

const provision = (cache: string) => runProvisionScript(script, cache, 300_000);

afterEach(async () => {
  for (const cache of temporaryCaches.splice(0)) await rm(cache, { recursive: true, force: true });
});

describe("scripts/provision-redpine-sdk.sh", () => {
  it("leaves the provisioned venv as it is", async () => {
    const cache = cacheDirFrom(process.env);
    if (!existsSync(join(cache, "venv-redpine-sdk", "bin", "python")))
      throw new Error(`no SDK venv in ${cache}: run bash scripts/setup.sh`);
    const stamp = await readFile(join(cache, "venv-redpine-sdk", ".litsearch-pins"), "utf8");
    const result = await provision(cache);
    expect(result.code, result.output).toBe(0);
    expect(result.output).toContain("already installed: redpine-sdk 0.1.9");
    expect(await readFile(join(cache, "venv-redpine-sdk", ".litsearch-pins"), "utf8")).toBe(stamp);
  });

  it("rebuilds a venv that does not import the pinned SDK (from PyPI), then leaves it alone", async () => {
    const cache = await mkdtemp(join(tmpdir(), "litsearch-sdk-provision-"));
    temporaryCaches.push(cache);
    await mkdir(join(cache, "venv-redpine-sdk", "bin"), { recursive: true });
    await writeFile(join(cache, "venv-redpine-sdk", ".litsearch-pins"), "redpine-sdk==0.1.8\n");
    const first = await provision(cache);
    expect(first.code, first.output).toBe(0);
    expect(first.output).toContain("creating");
    expect(first.output).toContain("installed: redpine-sdk 0.1.9");
    const { stdout } = await run(join(cache, "venv-redpine-sdk", "bin", "python"), [
      "-c",
      "import redpine, httpx; print(redpine.__version__, httpx.__version__)",
    ]);
    expect(stdout.trim()).toBe("0.1.9 0.28.1");
    const second = await provision(cache);
    expect(second.output).toContain("already installed: redpine-sdk 0.1.9");
  }, 300_000);
});
