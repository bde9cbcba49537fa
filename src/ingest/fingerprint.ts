// Input fingerprints of ingested indexes, kept in a small JSON file so re-ingesting unchanged input is skipped.
import { createHash } from "node:crypto";
import { createReadStream } from "node:fs";
import { mkdir, readFile, rename, writeFile } from "node:fs/promises";
import { dirname } from "node:path";
import { z } from "zod";

const storedFingerprint = z.object({
  fingerprint: z.string(),
  collection: z.string(),
  documents: z.number().int(),
  chunks: z.number().int(),
  ingestedAt: z.string(),
  /** written by builds before the one pipeline (what decided a chunk's vector); read and ignored */
  vectors: z.string().optional(),
});

const fingerprintStore = z.object({
  version: z.literal(1),
  indexes: z.record(z.string(), storedFingerprint),
});

export type StoredFingerprint = z.infer<typeof storedFingerprint>;
type FingerprintStore = z.infer<typeof fingerprintStore>;

/** SHA-256 of a file's bytes, streamed. */
export async function hashFile(path: string): Promise<string> {
  const hash = createHash("sha256");
  for await (const part of createReadStream(path)) hash.update(part as Buffer);
  return hash.digest("hex");
}

/** SHA-256 of a value's JSON with object keys sorted, so key order never changes the fingerprint. */
export function hashCanonicalJson(value: unknown): string {
  const canonical = JSON.stringify(value, (_key, inner: unknown) =>
    inner && typeof inner === "object" && !Array.isArray(inner)
      ? Object.fromEntries(
          Object.entries(inner as Record<string, unknown>).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)),
        )
      : inner,
  );
  return createHash("sha256").update(canonical).digest("hex");
}

async function readStore(path: string): Promise<FingerprintStore> {
  let text: string;
  try {
    text = await readFile(path, "utf8");
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return { version: 1, indexes: {} };
    throw error;
  }
  const parsed = fingerprintStore.safeParse(JSON.parse(text));
  // an unreadable store only costs a re-ingestion, so start afresh rather than fail
  return parsed.success ? parsed.data : { version: 1, indexes: {} };
}

/** Key of one index in the store: the same index name on two engines is two entries. */
export function fingerprintKey(engineKind: string, index: string): string {
  return `${engineKind}/${index}`;
}

export async function readStoredFingerprint(path: string, key: string): Promise<StoredFingerprint | null> {
  return (await readStore(path)).indexes[key] ?? null;
}

export async function writeStoredFingerprint(
  path: string,
  key: string,
  entry: StoredFingerprint | null,
): Promise<void> {
  const store = await readStore(path);
  if (entry) store.indexes[key] = entry;
  else delete store.indexes[key];
  await mkdir(dirname(path), { recursive: true });
  const temporary = `${path}.${process.pid}.tmp`;
  await writeFile(temporary, `${JSON.stringify(store, null, 2)}\n`);
  await rename(temporary, path);
}
