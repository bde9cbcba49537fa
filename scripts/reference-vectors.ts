// Writes test/fixtures/embedding/reference-vectors.json: the service model's vectors for a fixed set of queries and
// passages, computed by onnx's reference evaluator (numpy, none of ONNX Runtime's kernels) from the model's weights,
// so test/embedding/referenceVectors.int.spec.ts can hold the embedder to them on any CPU. Run after a model change:
//   npx tsx scripts/reference-vectors.ts
import { execFileSync } from "node:child_process";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { cacheDirFrom } from "../src/app/config.js";
import { embeddingModelManifestPath, loadModelManifest } from "../src/embedding/modelManifest.js";
import { embeddingModelName } from "../src/embedding/onnxEmbedder.js";
import { loadModelTokenizer } from "../src/embedding/wordpieceTokenizer.js";
import { REFERENCE_TEXTS, REFERENCE_VECTORS_FILE } from "../test/embedding/referenceTexts.js";

const cacheDir = cacheDirFrom(process.env);
const manifest = await loadModelManifest(embeddingModelManifestPath(cacheDir));
const tokenizer = await loadModelTokenizer(manifest);
const inputs = REFERENCE_TEXTS.map(({ kind, text }) => (kind === "query" ? manifest.queryPrefix : "") + text);
const ids = inputs.map((text) => tokenizer.encode(text, manifest.maxTokens).inputIds);
const python = join(cacheDir, "venv-onnx-export", "bin", "python");
const script = join(import.meta.dirname, "python", "reference_vectors.py");
const output = execFileSync(python, [script, join(manifest.dir, manifest.onnx), manifest.pooling], {
  input: JSON.stringify({ ids }),
  maxBuffer: 64 << 20,
});
const { vectors } = JSON.parse(output.toString()) as { vectors: number[][] };
// one text a line, so a changed vector reads as a changed line
const lines = REFERENCE_TEXTS.map((t, i) =>
  JSON.stringify({ ...t, vector: vectors[i]!.map((x) => Math.round(x * 1e7) / 1e7) }),
);
const header = {
  embedding: embeddingModelName(manifest, "fp32"),
  computedBy: "onnx.reference.ReferenceEvaluator (numpy): the float32 graph, pooled and normalized in float64",
};
writeFileSync(REFERENCE_VECTORS_FILE, `${JSON.stringify(header).slice(0, -1)},\n"texts":[\n${lines.join(",\n")}\n]}\n`);
console.log(`wrote ${REFERENCE_TEXTS.length} reference vectors to ${REFERENCE_VECTORS_FILE}`);
