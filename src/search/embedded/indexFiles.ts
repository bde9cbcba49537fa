// On-disk form of an embedded index under `dir/<index>/`: a manifest naming one generation of data files
// (chunks as NDJSON, vectors as raw Float32, lengths, terms, postings). A commit writes a new generation
// beside the old one and then renames the manifest over, so a crash leaves either the old or the new index.
// The collection's inventory, when one was put, is a file of the generation like the others, so it changes with the
// chunks it describes and never on its own.
import { open, readFile, readdir, rename, rm, mkdir, stat } from 'node:fs/promises';
import { join } from 'node:path';
import type { CollectionInventory } from '../../catalogue/inventory.js';
import type { ChunkMetadata } from '../port.js';
import { createVectorMatrix } from './denseKernel.js';
import { assembleSegment, type IndexSegment, type StoredChunk } from './indexSegment.js';

export const INDEX_FORMAT_VERSION = 1;
const MANIFEST = 'manifest.json';

interface IndexManifest {
  formatVersion: number;
  generation: number;
  dims: number;
  chunkCount: number;
  termCount: number;
  postingCount: number;
  /** what the BM25 field holds and how it was analyzed; a change needs a re-index */
  sparseField: 'metadata.title + text, OpenSearch english analyzer';
  /** `inventory` is absent in generations committed without one (and in every one written before inventories) */
  files: { chunks: string; vectors: string; docs: string; terms: string; postings: string; inventory?: string };
}

interface StoredChunkLine {
  id: string;
  text: string;
  tokens: number;
  metadata: ChunkMetadata;
  fp: string;
}

export async function indexExistsOnDisk(indexDir: string): Promise<boolean> {
  return (await manifestStamp(indexDir)) !== undefined;
}

/**
 * Identity of the committed manifest (a commit renames a new file over it, so inode and mtime change):
 * lets a process notice that another process committed a newer generation. Undefined when there is none.
 */
export async function manifestStamp(indexDir: string): Promise<string | undefined> {
  try {
    const info = await stat(join(indexDir, MANIFEST));
    return `${info.ino}:${info.mtimeMs}:${info.size}`;
  } catch {
    return undefined;
  }
}

/** Writes `parts` to `path` (via a temporary name) and flushes it to disk. */
async function writeFileDurably(path: string, parts: Iterable<Uint8Array | string>): Promise<void> {
  const temporary = `${path}.tmp-${process.pid}`;
  const handle = await open(temporary, 'w');
  try {
    for (const part of parts) await handle.writeFile(part);
    await handle.sync();
  } finally {
    await handle.close();
  }
  await rename(temporary, path);
}

function bytesOf(array: Float32Array | Uint32Array | Uint8Array): Uint8Array {
  return new Uint8Array(array.buffer, array.byteOffset, array.byteLength);
}

function* chunkLines(chunks: readonly StoredChunk[]): Generator<string> {
  const batch: string[] = [];
  for (const chunk of chunks) {
    const line: StoredChunkLine = {
      id: chunk.id,
      text: chunk.text,
      tokens: chunk.tokens,
      metadata: chunk.metadata,
      fp: chunk.fingerprint,
    };
    batch.push(JSON.stringify(line));
    if (batch.length === 2_000) {
      yield batch.join('\n') + '\n';
      batch.length = 0;
    }
  }
  if (batch.length > 0) yield batch.join('\n') + '\n';
}

/** Writes the segment (and the inventory, if any) as the next generation and switches the manifest to it; returns that generation. */
export async function writeIndexGeneration(
  indexDir: string,
  segment: IndexSegment,
  previousGeneration: number,
  inventory?: CollectionInventory,
): Promise<{ generation: number; stamp: string | undefined }> {
  await mkdir(indexDir, { recursive: true });
  const generation = previousGeneration + 1;
  const prefix = `g${generation}`;
  const files: IndexManifest['files'] = {
    chunks: `${prefix}.chunks.ndjson`,
    vectors: `${prefix}.vectors.f32`,
    docs: `${prefix}.docs.bin`,
    terms: `${prefix}.terms.json`,
    postings: `${prefix}.postings.bin`,
    ...(inventory ? { inventory: `${prefix}.inventory.json` } : {}),
  };
  await writeFileDurably(join(indexDir, files.chunks), chunkLines(segment.chunks));
  await writeFileDurably(join(indexDir, files.vectors), [bytesOf(segment.matrix.vectors)]);
  await writeFileDurably(join(indexDir, files.docs), [bytesOf(segment.lengths), bytesOf(segment.hasVector)]);
  await writeFileDurably(join(indexDir, files.terms), [JSON.stringify(segment.terms)]);
  await writeFileDurably(join(indexDir, files.postings), [
    bytesOf(segment.postingStarts),
    bytesOf(segment.postingDocs),
    bytesOf(segment.postingFreqs),
  ]);
  if (files.inventory) await writeFileDurably(join(indexDir, files.inventory), [JSON.stringify(inventory)]);
  const manifest: IndexManifest = {
    formatVersion: INDEX_FORMAT_VERSION,
    generation,
    dims: segment.dims,
    chunkCount: segment.chunks.length,
    termCount: segment.terms.length,
    postingCount: segment.postingDocs.length,
    sparseField: 'metadata.title + text, OpenSearch english analyzer',
    files,
  };
  await writeFileDurably(join(indexDir, MANIFEST), [JSON.stringify(manifest, null, 2)]);
  // make the renames themselves durable
  const directory = await open(indexDir, 'r');
  try {
    await directory.sync();
  } finally {
    await directory.close();
  }

  // Older generations and abandoned temporaries are no longer referenced.
  const current = new Set<string>([MANIFEST, ...Object.values(files).filter((name) => name !== undefined)]);
  for (const name of await readdir(indexDir)) {
    if (!current.has(name)) await rm(join(indexDir, name), { force: true });
  }
  return { generation, stamp: await manifestStamp(indexDir) };
}

/** A typed view of `count` elements at `byteOffset`, copied when the offset is not aligned for the type. */
function typedSlice<T extends Uint32Array>(
  create: (buffer: ArrayBuffer, byteOffset: number, length: number) => T,
  allocate: (length: number) => T,
  bytes: Buffer,
  byteOffset: number,
  count: number,
  elementSize: number,
): T {
  const absolute = bytes.byteOffset + byteOffset;
  if (absolute % elementSize === 0) return create(bytes.buffer as ArrayBuffer, absolute, count);
  const copy = allocate(count);
  new Uint8Array(copy.buffer).set(bytes.subarray(byteOffset, byteOffset + count * elementSize));
  return copy;
}

const uint32Slice = (bytes: Buffer, byteOffset: number, count: number) =>
  typedSlice((b, o, l) => new Uint32Array(b, o, l), (l) => new Uint32Array(l), bytes, byteOffset, count, 4);

function expectSize(file: string, bytes: Buffer, expected: number): void {
  if (bytes.length !== expected) {
    throw new Error(`embedded index file ${file} has ${bytes.length} bytes, expected ${expected}`);
  }
}

function parseChunkLines(bytes: Buffer): StoredChunk[] {
  const chunks: StoredChunk[] = [];
  let start = 0;
  while (start < bytes.length) {
    let end = bytes.indexOf(0x0a, start);
    if (end < 0) end = bytes.length;
    if (end > start) {
      const line = JSON.parse(bytes.toString('utf8', start, end)) as StoredChunkLine;
      chunks.push({ id: line.id, text: line.text, tokens: line.tokens, metadata: line.metadata, fingerprint: line.fp });
    }
    start = end + 1;
  }
  return chunks;
}

/** Reads the committed generation; the caller checked that a manifest exists. */
export async function readIndexGeneration(
  indexDir: string,
): Promise<{ segment: IndexSegment; generation: number; stamp: string | undefined; inventory: CollectionInventory | undefined }> {
  const stamp = await manifestStamp(indexDir);
  const manifest = JSON.parse(await readFile(join(indexDir, MANIFEST), 'utf8')) as IndexManifest;
  if (manifest.formatVersion !== INDEX_FORMAT_VERSION) {
    throw new Error(
      `embedded index ${indexDir} has format version ${manifest.formatVersion}; this build reads ${INDEX_FORMAT_VERSION} (re-index it)`,
    );
  }
  const { dims, chunkCount, termCount, postingCount, files } = manifest;
  // read with the rest of the generation: a later commit by another process deletes this generation's files
  const [chunkBytes, vectorBytes, docBytes, termText, postingBytes, inventoryText] = await Promise.all([
    readFile(join(indexDir, files.chunks)),
    readFile(join(indexDir, files.vectors)),
    readFile(join(indexDir, files.docs)),
    readFile(join(indexDir, files.terms), 'utf8'),
    readFile(join(indexDir, files.postings)),
    files.inventory ? readFile(join(indexDir, files.inventory), 'utf8') : undefined,
  ]);
  const chunks = parseChunkLines(chunkBytes);
  if (chunks.length !== chunkCount) throw new Error(`embedded index ${indexDir}: ${chunks.length} chunks, manifest says ${chunkCount}`);
  expectSize(files.vectors, vectorBytes, chunkCount * dims * 4);
  expectSize(files.docs, docBytes, chunkCount * 5);
  expectSize(files.postings, postingBytes, (termCount + 1) * 4 + postingCount * 8);
  const terms = JSON.parse(termText) as string[];
  if (terms.length !== termCount) throw new Error(`embedded index ${indexDir}: ${terms.length} terms, manifest says ${termCount}`);

  const matrix = createVectorMatrix(chunkCount, dims);
  bytesOf(matrix.vectors).set(vectorBytes);
  const segment = assembleSegment({
    dims,
    chunks,
    matrix,
    lengths: uint32Slice(docBytes, 0, chunkCount),
    hasVector: new Uint8Array(docBytes.subarray(chunkCount * 4, chunkCount * 5)),
    terms,
    postingStarts: uint32Slice(postingBytes, 0, termCount + 1),
    postingDocs: uint32Slice(postingBytes, (termCount + 1) * 4, postingCount),
    postingFreqs: uint32Slice(postingBytes, (termCount + 1) * 4 + postingCount * 4, postingCount),
  });
  const inventory = inventoryText === undefined ? undefined : (JSON.parse(inventoryText) as CollectionInventory);
  return { segment, generation: manifest.generation, stamp, inventory };
}

/** Bytes the committed index takes on disk. */
export async function indexBytesOnDisk(indexDir: string): Promise<number> {
  let total = 0;
  try {
    for (const name of await readdir(indexDir)) total += (await stat(join(indexDir, name))).size;
  } catch {
    return 0;
  }
  return total;
}
