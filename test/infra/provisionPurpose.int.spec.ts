// scripts/provision.sh --for service (what `npm run up` passes) installs what the embedded shape runs and nothing only
// the tests or the scaled shape use, into an empty cache; it keeps another run's manifest entries; a wrong purpose is
// refused. (The full `--for tests` run is the one every test run starts with.)
import { mkdtemp, readFile, readdir, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { cacheDirFrom } from "../../src/app/config.js";
import { runProvisionScript } from "../support/provisionScript.js";

const script = resolve(import.meta.dirname, "../../scripts/provision.sh");
const caches: string[] = [];
afterAll(async () => {
  for (const cache of caches) await rm(cache, { recursive: true, force: true });
});

describe("scripts/provision.sh --for", () => {
  it("service: the Temporal CLI and the service model only, keeping the manifest of earlier runs", async () => {
    const cache = await mkdtemp(join(tmpdir(), "litsearch-provision-service-"));
    caches.push(cache);
    // an earlier run's entry (another purpose) stays
    await writeFile(
      join(cache, "components.json"),
      JSON.stringify({ chromium: { executablePath: "/usr/bin/chromium", version: "1" } }),
    );
    const run = await runProvisionScript(
      script,
      cache,
      300_000,
      { LITSEARCH_ONNX_VENV: join(cacheDirFrom(process.env), "venv-onnx-export") },
      ["--for", "service"],
    );
    expect(run.code, run.output).toBe(0);
    expect(run.output).toContain("(for: service)");
    const manifest = JSON.parse(await readFile(join(cache, "components.json"), "utf8")) as Record<string, unknown>;
    expect(Object.keys(manifest).sort()).toEqual(["chromium", "temporalCli", "temporalCliVersion"]);
    expect(JSON.parse(await readFile(join(cache, "bge-small.json"), "utf8"))).toMatchObject({
      name: "bge-small-en-v1.5",
      onnx: "model.dequantized.onnx",
    });
    const installed = await readdir(cache);
    const testsOnly = ["opensearch", "temporal-test-server", "m2", "model.json", "venv-redpine-sdk", "llama-server"];
    for (const name of [...testsOnly, "llama-server.json", "venv-llama-server"])
      expect(installed, name).not.toContain(name);
    expect(run.output).not.toMatch(/opensearch|postgresql|chromium|qemu|redpine|llama/i);
  }, 320_000);

  it("refuses a purpose it does not know, naming the ones it does", async () => {
    const run = await runProvisionScript(script, join(tmpdir(), "litsearch-unused-cache"), 10_000, {}, [
      "--for",
      "everything",
    ]);
    expect(run.code).toBe(2);
    expect(run.output).toMatch(/--for takes service, scaled or tests, not everything/);
  });
});
