// The embedding model files as tests and benchmarks reach them: all-MiniLM-L6-v2's manifest (the model the embedder's
// own tests and bench:embedding run; the service embeds with bge-small-en-v1.5) and an audit of a manifest's hashes.
import { createHash } from "node:crypto";
import { createReadStream } from "node:fs";
import { join } from "node:path";
import type { ModelManifest } from "../../src/embedding/modelManifest.js";

/**
 * Where provisioning writes model.json in the cache directory (config.cacheDir): all-MiniLM-L6-v2, exported and
 * quantized by scripts/provision-model.sh. The service embedded with it until bge-small-en-v1.5 (below) replaced it;
 * the embedder's own tests and bench:embedding still run it, as the model whose fp32 and int8 graphs we build.
 */
export function modelManifestPath(cacheDir: string): string {
  return join(cacheDir, "model.json");
}

/**
 * Re-hashes the model files against the manifest's pinned SHA-256 values (for audits; provisioning already verified
 * them).
 */
export async function verifyModelFiles(manifest: ModelManifest): Promise<void> {
  for (const [file, expected] of Object.entries(manifest.sha256)) {
    const hash = createHash("sha256");
    for await (const chunk of createReadStream(join(manifest.dir, file))) hash.update(chunk as Buffer);
    const actual = hash.digest("hex");
    if (actual !== expected) {
      throw new Error(
        `embedding model file ${file} has SHA-256 ${actual}, manifest pins ${expected}: re-run npm run provision`,
      );
    }
  }
}
