// Whether an index holds exactly its input (the source files' hashes, the retraction list in force, the pipeline's
// inputs): a start skips such a collection, and records the input of every collection it built. The fingerprint file
// holds one entry per engine and index.
import type { PlainCollection } from "../domain/collectionDefinitions.js";
import { sourceFilePaths } from "../domain/collectionDefinitions.js";
import type { Embedder, Tokenizer } from "../embedding/port.js";
import type { SearchEngine } from "../retrieval/port.js";
import type { ChunkingOptions } from "./chunk.js";
import {
  fingerprintKey,
  hashCanonicalJson,
  hashFile,
  readStoredFingerprint,
  writeStoredFingerprint,
  type StoredFingerprint,
} from "./fingerprint.js";
import { pipelineInputs } from "./pipelineRules.js";

export interface IndexInputOptions {
  collection: PlainCollection;
  dataRoot: string;
  engine: Pick<SearchEngine, "kind" | "hasIndex">;
  embedder: Pick<Embedder, "modelName" | "dims">;
  tokenizer: Tokenizer;
  /** lower-case DOIs of retracted articles (see loadRetractedDois) */
  retracted: ReadonlySet<string>;
  /** JSON file holding the input fingerprint of every ingested index */
  fingerprintFile: string;
  /** build even when the index holds the same input */
  force?: boolean;
  chunking?: ChunkingOptions;
  /** figure root; collections with demoFigures get generated charts there */
  figureDir?: string;
}

/** Everything that decides an index's content; the price, description and display name are deliberately left out. */
async function inputFingerprint(options: IndexInputOptions): Promise<string> {
  const { collection } = options;
  const files = await Promise.all(
    sourceFilePaths(collection, options.dataRoot).map(async (path, position) => ({
      file: collection.source.files[position],
      sha256: await hashFile(path),
    })),
  );
  const base = pipelineInputs(options);
  return hashCanonicalJson({
    ...base,
    collection: { ...base.collection, source: collection.source },
    files,
    retracted: collection.excludeRetracted ? hashCanonicalJson([...options.retracted].sort()) : null,
  });
}

/** The input fingerprint, and what the fingerprint file holds for the index when the index holds exactly that input. */
export async function currentInput(
  options: IndexInputOptions,
): Promise<{ fingerprint: string; current: StoredFingerprint | null }> {
  const fingerprint = await inputFingerprint(options);
  const stored = await readStoredFingerprint(
    options.fingerprintFile,
    fingerprintKey(options.engine.kind, options.collection.name),
  );
  const current =
    stored?.fingerprint === fingerprint && (await options.engine.hasIndex(options.collection.name)) ? stored : null;
  return { fingerprint, current };
}

/** Whether the collection is to be built: forced, or its index is absent or built from other input. */
export async function needsIngest(options: IndexInputOptions): Promise<boolean> {
  return options.force === true || (await currentInput(options)).current === null;
}

/** Records that the index now holds this exact input (an ingestion of all its files completed). */
export async function recordIngestedInput(
  options: IndexInputOptions,
  built: { documents: number; chunks: number },
): Promise<string> {
  const fingerprint = await inputFingerprint(options);
  await writeStoredFingerprint(options.fingerprintFile, fingerprintKey(options.engine.kind, options.collection.name), {
    fingerprint,
    collection: options.collection.name,
    documents: built.documents,
    chunks: built.chunks,
    ingestedAt: new Date().toISOString(),
  });
  return fingerprint;
}

/** Forgets the index's input (before a build replaces it, so a build that stops half-way is not skipped). */
export async function forgetIngestedInput(options: IndexInputOptions): Promise<void> {
  await writeStoredFingerprint(
    options.fingerprintFile,
    fingerprintKey(options.engine.kind, options.collection.name),
    null,
  );
}
