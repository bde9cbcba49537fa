// Content fingerprint of a chunk (text, token count, metadata, vector bytes): both engines skip an upsert whose
// fingerprint is unchanged, which makes re-indexing the same input a no-op.
import { createHash } from "node:crypto";
import type { ChunkRecord } from "./port.js";

/** JSON with object keys sorted, so equal metadata gives equal text whatever its key order. */
function canonicalJson(value: unknown): string {
  if (value === null || typeof value !== "object") return JSON.stringify(value) ?? "null";
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(",")}]`;
  const entries = Object.entries(value as Record<string, unknown>)
    .filter(([, entry]) => entry !== undefined)
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  return `{${entries.map(([key, entry]) => `${JSON.stringify(key)}:${canonicalJson(entry)}`).join(",")}}`;
}

export function chunkFingerprint(chunk: ChunkRecord): string {
  const hash = createHash("sha256");
  hash.update(canonicalJson({ id: chunk.id, text: chunk.text, tokens: chunk.tokens, metadata: chunk.metadata }));
  if (chunk.vector) {
    hash.update("\u0000vector");
    hash.update(new Uint8Array(chunk.vector.buffer, chunk.vector.byteOffset, chunk.vector.byteLength));
  }
  return hash.digest("base64url");
}
