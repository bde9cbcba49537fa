// The service's vectors are the same on every x86-64 CPU: the embedder's vectors for fixed queries and passages are
// held to reference vectors computed from the model's weights by onnx's numpy evaluator
// (test/fixtures/embedding/reference-vectors.json, scripts/reference-vectors.ts), at cosine >= 0.999 per text, on this
// CPU and on emulated ones without VNNI or AVX-512 (qemu-x86_64 -cpu Haswell: AVX2 and FMA) and without AVX at all
// (-cpu Nehalem: SSE4.2), where the int8 kernels of ONNX Runtime compute otherwise. The all-MiniLM int8 graph, with its
// reduced-range weights, keeps the published similarities on the emulated CPU too.
import { execFile } from "node:child_process";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createOnnxEmbedder, type OnnxEmbedder } from "../../src/embedding/onnxEmbedder.js";
import type { ModelManifest } from "../../src/embedding/modelManifest.js";
import type { EncoderSessionOptions } from "../../src/embedding/encoderSession.mjs";
import { loadProvisionedManifest, loadServiceModelManifest } from "./provisionedModel.js";
import { REFERENCE_TEXTS, REFERENCE_VECTORS_FILE, type ReferenceText } from "./referenceTexts.js";

const run = promisify(execFile);
const MIN_COSINE = 0.999;
/** qemu CPU models: AVX2 + FMA without AVX-512 or VNNI (the EPYC that drifted), and SSE4.2 without AVX */
const EMULATED_CPUS = ["Haswell-v4", "Nehalem"] as const;
/**
 * emulation runs 50 to 100 times slower (an Intel host's qemu more than an AMD one's: six texts ran past 240 s there on
 * 29 Nov): the shortest query and the shortest passage stand for the rest
 */
const EMULATED_PER_KIND = 1;

interface ReferenceFile {
  embedding: string;
  texts: (ReferenceText & { vector: number[] })[];
}

const reference = JSON.parse(readFileSync(REFERENCE_VECTORS_FILE, "utf8")) as ReferenceFile;
let manifest: ModelManifest;
let embedder: OnnxEmbedder;

function cosine(a: ArrayLike<number>, b: ArrayLike<number>): number {
  let dot = 0;
  let na = 0;
  let nb = 0;
  for (let i = 0; i < a.length; i++) {
    dot += a[i]! * b[i]!;
    na += a[i]! * a[i]!;
    nb += b[i]! * b[i]!;
  }
  return dot / Math.sqrt(na * nb);
}

/** The CPU's int8-relevant flags, printed beside the results (a failure elsewhere says where it ran). */
function cpuFlags(): string {
  const info = readFileSync("/proc/cpuinfo", "utf8");
  const model = /^model name\s*:\s*(.*)$/m.exec(info)?.[1] ?? "unknown CPU";
  const flags = new Set((/^flags\s*:\s*(.*)$/m.exec(info)?.[1] ?? "").split(/\s+/));
  return (
    `${model}: ` +
    `${["avx2", "avx512f", "avx512_vnni", "avx_vnni"].map((f) => `${f}=${flags.has(f) ? "yes" : "no"}`).join(" ")}`
  );
}

function inputOf(m: ModelManifest, text: ReferenceText): string {
  return (text.kind === "query" ? m.queryPrefix : "") + text.text;
}

/** Runs the embedder's session code on an emulated CPU, one text a run. */
async function encodeOnEmulatedCpu(cpu: string, session: EncoderSessionOptions, ids: number[][]): Promise<number[][]> {
  const child = run("qemu-x86_64", ["-cpu", cpu, process.execPath, join(import.meta.dirname, "encodeIds.mjs")], {
    maxBuffer: 64 << 20,
    timeout: 420_000,
  });
  child.child.stdin!.end(JSON.stringify({ session, ids }));
  const { stdout } = await child;
  return (JSON.parse(stdout) as { vectors: number[][] }).vectors;
}

async function qemuAvailable(): Promise<void> {
  await run("qemu-x86_64", ["--version"]).catch(() => {
    throw new Error("qemu-x86_64 is not installed: run npm run provision (it installs Debian qemu-user for this test)");
  });
}

beforeAll(async () => {
  manifest = await loadServiceModelManifest();
  embedder = await createOnnxEmbedder({ manifest, threads: 1 });
  console.log(`[reference vectors] ${cpuFlags()}`);
});

afterAll(async () => {
  await embedder?.close();
});

describe("the service embedder against the reference vectors", () => {
  it("is the embedding path the reference was computed for (on a model change: scripts/reference-vectors.ts)", () => {
    expect(embedder.modelName).toBe(reference.embedding);
    expect(reference.texts.map(({ kind, text }) => ({ kind, text }))).toEqual(REFERENCE_TEXTS);
  });

  it(`gives every text its reference vector at cosine >= ${MIN_COSINE} on this CPU`, async () => {
    const cosines: number[] = [];
    for (const text of reference.texts) {
      const vector =
        text.kind === "query" ? await embedder.embedQuery(text.text) : (await embedder.embedPassages([text.text]))[0]!;
      cosines.push(cosine(vector, text.vector));
    }
    console.log(`[reference vectors] native: min cosine ${Math.min(...cosines).toFixed(6)}`);
    for (const [i, c] of cosines.entries()) expect(c, reference.texts[i]!.text).toBeGreaterThanOrEqual(MIN_COSINE);
  });

  it(`gives every text its reference vector on emulated CPUs without VNNI (${EMULATED_CPUS.join(", ")})`, async () => {
    await qemuAvailable();
    const session: EncoderSessionOptions = {
      onnxPath: join(manifest.dir, manifest.onnx),
      name: manifest.name,
      dims: manifest.dims,
      pooling: manifest.pooling,
      padId: embedder.tokenizer.idOf("[PAD]") ?? 0,
      threads: 1,
    };
    const encoded = reference.texts.map((text) => ({
      text,
      ids: embedder.tokenizer.encode(inputOf(manifest, text), manifest.maxTokens).inputIds,
    }));
    const shortest = (kind: ReferenceText["kind"]) =>
      encoded
        .filter(({ text }) => text.kind === kind && text.text.length > 1)
        .sort((a, b) => a.ids.length - b.ids.length)
        .slice(0, EMULATED_PER_KIND);
    const texts = [...shortest("query"), ...shortest("passage")];
    for (const cpu of EMULATED_CPUS) {
      const vectors = await encodeOnEmulatedCpu(
        cpu,
        session,
        texts.map(({ ids }) => ids),
      );
      const cosines = vectors.map((v, i) => cosine(v, texts[i]!.text.vector));
      console.log(
        `[reference vectors] qemu -cpu ${cpu}: ${texts.length} texts, min cosine ${Math.min(...cosines).toFixed(6)}`,
      );
      for (const [i, c] of cosines.entries())
        expect(c, `${cpu}: ${texts[i]!.text.text}`).toBeGreaterThanOrEqual(MIN_COSINE);
    }
  }, 900_000);
});

describe("the all-MiniLM int8 graph (reduced-range weights)", () => {
  it("keeps the published similarities to within 0.02 on an emulated CPU without VNNI", async () => {
    await qemuAvailable();
    const minilm = await loadProvisionedManifest();
    const tokenizer = (await createOnnxEmbedder({ manifest: minilm, precision: "int8", threads: 1 })).tokenizer;
    const session: EncoderSessionOptions = {
      onnxPath: join(minilm.dir, minilm.onnxInt8!),
      name: minilm.name,
      dims: minilm.dims,
      pooling: minilm.pooling,
      padId: tokenizer.idOf("[PAD]") ?? 0,
      threads: 1,
    };
    const texts = ["The weather is lovely today.", "It's so sunny outside!", "He drove to the stadium."];
    const [weather, sunny, stadium] = await encodeOnEmulatedCpu(
      "Haswell-v4",
      session,
      texts.map((t) => tokenizer.encode(t, minilm.maxTokens).inputIds),
    );
    // sentence-transformers publishes 0.6660, 0.1046 and 0.1411 (fp32); full-range int8 weights gave 0.6405 on such a
    // CPU
    expect(Math.abs(cosine(weather!, sunny!) - 0.666)).toBeLessThan(0.02);
    expect(Math.abs(cosine(weather!, stadium!) - 0.1046)).toBeLessThan(0.02);
    expect(Math.abs(cosine(sunny!, stadium!) - 0.1411)).toBeLessThan(0.02);
  }, 300_000);
});
