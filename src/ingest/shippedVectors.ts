// Precomputed passage vectors shipped with the demo data (demo-data/vectors/), so a first start loads them instead of
// embedding: a file of (embedding-input fingerprint, float16 vector) pairs under a header that says how they were made.
// A passage embedder wrapped by withShippedVectors answers a text it finds there from the file and embeds only the
// rest.
import { createHash } from "node:crypto";
import { readFile, writeFile, rename } from "node:fs/promises";
import type { Embedder } from "../embedding/port.js";

/** How the vectors of a file were made; a file is used only when every field matches the running pipeline. */
export interface ShippedVectorsHeader {
  /** the embedding path (Embedder.modelName), e.g. bge-small-en-v1.5@fp32:afc83b99beef */
  embedding: string;
  dims: number;
  /** the chunker and record-building versions the texts came from (src/ingest/chunk.ts, pipelineRules.ts) */
  chunker: number;
  pipeline: number;
  /** word pieces of title and chunk embedded together */
  inputTokens: number;
  count: number;
}

const MAGIC = Buffer.from("LSVEC1\n", "latin1");
/** bytes of a text's fingerprint: the first 16 of its SHA-256 (collision odds ~1e-29 for a million texts) */
const KEY_BYTES = 16;

/** The fingerprint a vector is filed under: the embedder's input text, hashed. */
export function vectorKey(text: string): string {
  return createHash("sha256")
    .update(text, "utf8")
    .digest("hex")
    .slice(0, KEY_BYTES * 2);
}

/** float32 -> IEEE 754 half (round to nearest even); unit-vector components are far from its limits */
function toHalf(value: number): number {
  const f32 = new Float32Array([value]);
  const bits = new Uint32Array(f32.buffer)[0]!;
  const sign = (bits >>> 16) & 0x8000;
  const exponent = ((bits >>> 23) & 0xff) - 127 + 15;
  let mantissa = bits & 0x7fffff;
  if (exponent <= 0) {
    if (exponent < -10) return sign;
    mantissa |= 0x800000;
    const shift = 14 - exponent;
    const half = mantissa >>> shift;
    const rest = mantissa & ((1 << shift) - 1);
    const midpoint = 1 << (shift - 1);
    return sign | (half + (rest > midpoint || (rest === midpoint && half & 1) ? 1 : 0));
  }
  if (exponent >= 31) return sign | 0x7c00;
  const half = (exponent << 10) | (mantissa >>> 13);
  const rest = mantissa & 0x1fff;
  return sign | (half + (rest > 0x1000 || (rest === 0x1000 && half & 1) ? 1 : 0));
}

function fromHalf(half: number): number {
  const sign = half & 0x8000 ? -1 : 1;
  const exponent = (half >>> 10) & 0x1f;
  const mantissa = half & 0x3ff;
  if (exponent === 0) return sign * mantissa * 2 ** -24;
  if (exponent === 31) return mantissa ? NaN : sign * Infinity;
  return sign * (1 + mantissa / 1024) * 2 ** (exponent - 15);
}

export interface ShippedVectors {
  readonly header: ShippedVectorsHeader;
  /** the vector filed under `key` (a unit vector again after the float16 rounding), or undefined */
  get(key: string): Float32Array | undefined;
  keys(): IterableIterator<string>;
}

/** Writes the vectors (by key) atomically, keys sorted so the same vectors make the same bytes. */
export async function writeShippedVectors(
  path: string,
  header: Omit<ShippedVectorsHeader, "count">,
  vectors: ReadonlyMap<string, Float32Array>,
): Promise<void> {
  const keys = [...vectors.keys()].sort();
  const headerBytes = Buffer.from(JSON.stringify({ ...header, count: keys.length }), "utf8");
  const length = Buffer.alloc(4);
  length.writeUInt32LE(headerBytes.length);
  const keyBytes = Buffer.alloc(keys.length * KEY_BYTES);
  const halves = new Uint16Array(keys.length * header.dims);
  keys.forEach((key, row) => {
    keyBytes.write(key, row * KEY_BYTES, KEY_BYTES, "hex");
    const vector = vectors.get(key)!;
    if (vector.length !== header.dims)
      throw new Error(`vector ${key} has ${vector.length} dims, the header says ${header.dims}`);
    for (let k = 0; k < header.dims; k++) halves[row * header.dims + k] = toHalf(vector[k]!);
  });
  await writeFile(`${path}.tmp`, Buffer.concat([MAGIC, length, headerBytes, keyBytes, Buffer.from(halves.buffer)]));
  await rename(`${path}.tmp`, path);
}

/** Reads a file written by writeShippedVectors; null when there is none at `path`. */
export async function readShippedVectors(path: string): Promise<ShippedVectors | null> {
  const bytes = await readFile(path).catch((err: NodeJS.ErrnoException) => {
    if (err.code === "ENOENT") return null;
    throw err;
  });
  if (!bytes) return null;
  if (!bytes.subarray(0, MAGIC.length).equals(MAGIC)) throw new Error(`${path} is not a shipped-vectors file`);
  const damaged = () =>
    new Error(
      `${path} is truncated or damaged (its size does not match its header): rebuild it with npx tsx ` +
        "scripts/demo-vectors.ts",
    );
  const headerLength = bytes.length >= MAGIC.length + 4 ? bytes.readUInt32LE(MAGIC.length) : Infinity;
  const start = MAGIC.length + 4;
  if (start + headerLength > bytes.length) throw damaged();
  let header: ShippedVectorsHeader;
  try {
    header = JSON.parse(bytes.subarray(start, start + headerLength).toString("utf8")) as ShippedVectorsHeader;
  } catch {
    throw damaged();
  }
  const keysAt = start + headerLength;
  const vectorsAt = keysAt + header.count * KEY_BYTES;
  if (bytes.length !== vectorsAt + header.count * header.dims * 2) throw damaged();
  const rows = new Map<string, number>();
  for (let row = 0; row < header.count; row++)
    rows.set(bytes.toString("hex", keysAt + row * KEY_BYTES, keysAt + (row + 1) * KEY_BYTES), row);
  return {
    header,
    keys: () => rows.keys(),
    get(key) {
      const row = rows.get(key);
      if (row === undefined) return undefined;
      const vector = new Float32Array(header.dims);
      let norm = 0;
      for (let k = 0; k < header.dims; k++) {
        const value = fromHalf(bytes.readUInt16LE(vectorsAt + (row * header.dims + k) * 2));
        vector[k] = value;
        norm += value * value;
      }
      const scale = 1 / Math.max(Math.sqrt(norm), 1e-12);
      for (let k = 0; k < header.dims; k++) vector[k]! *= scale;
      return vector;
    },
  };
}

/** Why a file's vectors cannot stand for the running pipeline's, or null when they can. */
export function staleReason(
  header: ShippedVectorsHeader,
  expected: Omit<ShippedVectorsHeader, "count">,
): string | null {
  for (const field of ["embedding", "dims", "chunker", "pipeline", "inputTokens"] as const) {
    if (header[field] !== expected[field])
      return `they were made with ${field} ${header[field]}, the pipeline now uses ${expected[field]}`;
  }
  return null;
}

/**
 * The passage embedder, answering from the shipped vectors what they hold (by the text's fingerprint) and embedding
 * the rest with `inner`; `onShipped` hears how many texts of each call the file answered. Queries always go to inner.
 */
export function withShippedVectors(
  inner: Embedder,
  shipped: ShippedVectors,
  onShipped?: (count: number) => void,
): Embedder {
  return {
    get modelName() {
      return inner.modelName;
    },
    get dims() {
      return inner.dims;
    },
    async embedPassages(texts, onEmbedded) {
      const vectors = texts.map((text) => shipped.get(vectorKey(text)));
      const missing = vectors.flatMap((vector, i) => (vector ? [] : [i]));
      const found = texts.length - missing.length;
      if (found > 0) onShipped?.(found);
      onEmbedded?.(found);
      if (missing.length > 0) {
        const fresh = await inner.embedPassages(
          missing.map((i) => texts[i]!),
          onEmbedded ? (done) => onEmbedded(found + done) : undefined,
        );
        missing.forEach((i, k) => (vectors[i] = fresh[k]));
      }
      return vectors as Float32Array[];
    },
    embedQuery: (text) => inner.embedQuery(text),
    close: () => inner.close(),
  };
}
