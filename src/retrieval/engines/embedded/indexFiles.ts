// On-disk form of an embedded index under `dir/<index>/`: a manifest naming one generation of data files
// (chunks as NDJSON and vectors as raw Float32 in row files, lengths, terms, postings). A commit writes a new
// generation beside the old one and then renames the manifest over, so a crash leaves either the old or the new index.
// Chunk and vector rows are written once: a generation adds a row file holding only the chunks it added or changed, and
// maps each of its ordinals to a row of the files it lists (`rows`), so a commit of 1% changes writes 1% of the rows
// (plus the ordinal-indexed lengths, terms and postings); when dead rows or row files pile up, a commit writes all live
// rows into one file again. The collection's inventory, when one was put, is a file of the generation like the others,
// so it changes with the chunks it describes and never on its own.
import { open, readFile, readdir, rename, rm, mkdir, stat, writeFile } from "node:fs/promises";
import { join } from "node:path";
import type { CollectionInventory } from "../../../domain/inventory.js";
import type { ChunkMetadata } from "../../port.js";
import { createVectorMatrix } from "./denseKernel.js";
import { assembleSegment, type IndexSegment, type StoredChunk } from "./indexSegment.js";

/** 2: row files and a row map (version 1, one chunk and one vector file per generation, is still read) */
const INDEX_FORMAT_VERSION = 2;
const READABLE_FORMAT_VERSIONS: readonly number[] = [1, 2];
const MANIFEST = "manifest.json";
/** a commit rewrites all live rows into one file when the files hold more than this many rows per live chunk... */
const MAX_ROWS_PER_CHUNK = 1.25;
/** ...or when the index has this many row files */
const MAX_ROW_FILES = 12;

/** Rows written by one generation: chunk lines and, in the same order, vectors (dims floats each, zero when none). */
interface RowFile {
  chunks: string;
  vectors: string;
  count: number;
}

/** Where the committed chunks are on disk: the row files in order, and the row (across them) of each ordinal. */
export interface RowLayout {
  files: readonly RowFile[];
  rowOf: Uint32Array;
}

interface IndexManifest {
  formatVersion: number;
  generation: number;
  dims: number;
  chunkCount: number;
  termCount: number;
  postingCount: number;
  /** what the BM25 field holds and how it was analyzed; a change needs a re-index */
  sparseField: "metadata.title + text, OpenSearch english analyzer";
  /**
   * `inventory` is absent in generations committed without one (and in every one written before inventories);
   * `chunks` and `vectors` only in version 1 (its one row file), `rowOf` (Uint32 per ordinal) since version 2
   */
  files: {
    chunks?: string;
    vectors?: string;
    rowOf?: string;
    docs: string;
    terms: string;
    postings: string;
    inventory?: string;
  };
  /** since version 2 */
  rowFiles?: RowFile[];
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
  const handle = await open(temporary, "w");
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
      yield batch.join("\n") + "\n";
      batch.length = 0;
    }
  }
  if (batch.length > 0) yield batch.join("\n") + "\n";
}

/** The rows of `ordinals` of the segment: their chunk lines, and their vectors in one buffer. */
async function writeRowFile(
  indexDir: string,
  prefix: string,
  segment: IndexSegment,
  ordinals: readonly number[] | undefined,
): Promise<RowFile> {
  const file: RowFile = {
    chunks: `${prefix}.chunks.ndjson`,
    vectors: `${prefix}.vectors.f32`,
    count: ordinals?.length ?? segment.chunks.length,
  };
  if (!ordinals) {
    await writeFileDurably(join(indexDir, file.chunks), chunkLines(segment.chunks));
    await writeFileDurably(join(indexDir, file.vectors), [bytesOf(segment.matrix.vectors)]);
    return file;
  }
  const dims = segment.dims;
  const vectors = new Float32Array(ordinals.length * dims);
  ordinals.forEach((ordinal, row) =>
    vectors.set(segment.matrix.vectors.subarray(ordinal * dims, (ordinal + 1) * dims), row * dims),
  );
  await writeFileDurably(join(indexDir, file.chunks), chunkLines(ordinals.map((ordinal) => segment.chunks[ordinal])));
  await writeFileDurably(join(indexDir, file.vectors), [bytesOf(vectors)]);
  return file;
}

/**
 * Writes the segment (and the inventory, if any) as the next generation and switches the manifest to it; returns that
 * generation and its row layout. `previous` is the committed generation's layout and `keptRows`, per ordinal of the
 * segment, the row of `previous` that already holds its chunk unchanged, or -1: only the other chunks are written as
 * rows (all of them when there is no previous layout, or when its files are due to be compacted).
 */
export async function writeIndexGeneration(
  indexDir: string,
  segment: IndexSegment,
  previousGeneration: number,
  inventory?: CollectionInventory,
  previous?: { layout: RowLayout; keptRows: Int32Array },
): Promise<{ generation: number; stamp: string | undefined; layout: RowLayout }> {
  await mkdir(indexDir, { recursive: true });
  const generation = previousGeneration + 1;
  const prefix = `g${generation}`;
  const chunkCount = segment.chunks.length;
  const newOrdinals: number[] = [];
  if (previous)
    for (let ordinal = 0; ordinal < chunkCount; ordinal++)
      if (previous.keptRows[ordinal] < 0) newOrdinals.push(ordinal);
  const previousRows = previous ? previous.layout.files.reduce((total, file) => total + file.count, 0) : 0;
  const compact =
    !previous ||
    previousRows + newOrdinals.length > Math.max(chunkCount * MAX_ROWS_PER_CHUNK, chunkCount + 1_000) ||
    previous.layout.files.filter((file) => file.count > 0).length + (newOrdinals.length > 0 ? 1 : 0) > MAX_ROW_FILES;
  let layout: RowLayout;
  if (compact) {
    layout = {
      files: [await writeRowFile(indexDir, prefix, segment, undefined)],
      rowOf: Uint32Array.from({ length: chunkCount }, (_, ordinal) => ordinal),
    };
  } else {
    const kept = previous as { layout: RowLayout; keptRows: Int32Array };
    // an empty row file (the first generation of a new index) holds nothing to keep
    const files = kept.layout.files.filter((file) => file.count > 0);
    if (newOrdinals.length > 0) files.push(await writeRowFile(indexDir, prefix, segment, newOrdinals));
    const rowOf = new Uint32Array(chunkCount);
    let added = previousRows;
    for (let ordinal = 0; ordinal < chunkCount; ordinal++)
      rowOf[ordinal] = kept.keptRows[ordinal] >= 0 ? kept.keptRows[ordinal] : added++;
    layout = { files, rowOf };
  }
  const files: IndexManifest["files"] = {
    rowOf: `${prefix}.rows.u32`,
    docs: `${prefix}.docs.bin`,
    terms: `${prefix}.terms.json`,
    postings: `${prefix}.postings.bin`,
    ...(inventory ? { inventory: `${prefix}.inventory.json` } : {}),
  };
  await writeFileDurably(join(indexDir, files.rowOf as string), [bytesOf(layout.rowOf)]);
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
    sparseField: "metadata.title + text, OpenSearch english analyzer",
    files,
    rowFiles: [...layout.files],
  };
  await writeFileDurably(join(indexDir, MANIFEST), [JSON.stringify(manifest, null, 2)]);
  // make the renames themselves durable
  const directory = await open(indexDir, "r");
  try {
    await directory.sync();
  } finally {
    await directory.close();
  }

  // Older generations and abandoned temporaries are no longer referenced.
  const current = new Set<string>([
    MANIFEST,
    EMBEDDING_FILE,
    ...Object.values(files).filter((name) => name !== undefined),
    ...layout.files.flatMap((file) => [file.chunks, file.vectors]),
  ]);
  for (const name of await readdir(indexDir)) {
    if (!current.has(name)) await rm(join(indexDir, name), { force: true });
  }
  return { generation, stamp: await manifestStamp(indexDir), layout };
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
  typedSlice(
    (b, o, l) => new Uint32Array(b, o, l),
    (l) => new Uint32Array(l),
    bytes,
    byteOffset,
    count,
    4,
  );

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
      const line = JSON.parse(bytes.toString("utf8", start, end)) as StoredChunkLine;
      chunks.push({ id: line.id, text: line.text, tokens: line.tokens, metadata: line.metadata, fingerprint: line.fp });
    }
    start = end + 1;
  }
  return chunks;
}

/** Reads the committed generation; the caller checked that a manifest exists. */
export async function readIndexGeneration(indexDir: string): Promise<{
  segment: IndexSegment;
  generation: number;
  stamp: string | undefined;
  inventory: CollectionInventory | undefined;
  layout: RowLayout;
}> {
  const stamp = await manifestStamp(indexDir);
  const manifest = JSON.parse(await readFile(join(indexDir, MANIFEST), "utf8")) as IndexManifest;
  if (!READABLE_FORMAT_VERSIONS.includes(manifest.formatVersion)) {
    throw new Error(
      `embedded index ${indexDir} has format version ${manifest.formatVersion}; this build reads ` +
        `${READABLE_FORMAT_VERSIONS.join(" and ")} (re-index it)`,
    );
  }
  const { dims, chunkCount, termCount, postingCount, files } = manifest;
  const rowFiles: RowFile[] = manifest.rowFiles ?? [
    { chunks: files.chunks as string, vectors: files.vectors as string, count: chunkCount },
  ];
  // read with the rest of the generation: a later commit by another process deletes files it no longer lists
  const [rowBytes, docBytes, termText, postingBytes, inventoryText, rowOfBytes] = await Promise.all([
    Promise.all(
      rowFiles.map((file) =>
        Promise.all([readFile(join(indexDir, file.chunks)), readFile(join(indexDir, file.vectors))]),
      ),
    ),
    readFile(join(indexDir, files.docs)),
    readFile(join(indexDir, files.terms), "utf8"),
    readFile(join(indexDir, files.postings)),
    files.inventory ? readFile(join(indexDir, files.inventory), "utf8") : undefined,
    files.rowOf ? readFile(join(indexDir, files.rowOf)) : undefined,
  ]);
  const rows: StoredChunk[] = [];
  rowFiles.forEach((file, index) => {
    const [chunkBytes, vectorBytes] = rowBytes[index];
    const parsed = parseChunkLines(chunkBytes);
    if (parsed.length !== file.count)
      throw new Error(
        `embedded index ${indexDir}: ${file.chunks} holds ${parsed.length} chunks, manifest says ${file.count}`,
      );
    expectSize(file.vectors, vectorBytes, file.count * dims * 4);
    for (const chunk of parsed) rows.push(chunk);
  });
  let rowOf: Uint32Array;
  if (rowOfBytes) {
    expectSize(files.rowOf as string, rowOfBytes, chunkCount * 4);
    rowOf = Uint32Array.from(uint32Slice(rowOfBytes, 0, chunkCount));
  } else {
    rowOf = Uint32Array.from({ length: chunkCount }, (_, ordinal) => ordinal);
  }
  const chunks: StoredChunk[] = new Array(chunkCount);
  const matrix = createVectorMatrix(chunkCount, dims);
  const vectorRows = rowFiles.flatMap((_, index) => {
    const bytes = rowBytes[index][1];
    return Array.from({ length: rowFiles[index].count }, (__, row) => ({ bytes, offset: row * dims * 4 }));
  });
  const target = bytesOf(matrix.vectors);
  for (let ordinal = 0; ordinal < chunkCount; ordinal++) {
    const row = rowOf[ordinal];
    if (row >= rows.length)
      throw new Error(`embedded index ${indexDir}: ordinal ${ordinal} maps to row ${row} of ${rows.length}`);
    chunks[ordinal] = rows[row];
    const { bytes, offset } = vectorRows[row];
    target.set(bytes.subarray(offset, offset + dims * 4), ordinal * dims * 4);
  }
  expectSize(files.docs, docBytes, chunkCount * 5);
  expectSize(files.postings, postingBytes, (termCount + 1) * 4 + postingCount * 8);
  const terms = JSON.parse(termText) as string[];
  if (terms.length !== termCount)
    throw new Error(`embedded index ${indexDir}: ${terms.length} terms, manifest says ${termCount}`);

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
  return { segment, generation: manifest.generation, stamp, inventory, layout: { files: rowFiles, rowOf } };
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

/** Beside the generations: the embedding path of the index's vectors, written once when the index is created. */
const EMBEDDING_FILE = "embedding.json";

export async function writeIndexEmbedding(indexDir: string, embedding: string): Promise<void> {
  await writeFile(join(indexDir, `${EMBEDDING_FILE}.tmp`), `${JSON.stringify({ embedding })}\n`);
  await rename(join(indexDir, `${EMBEDDING_FILE}.tmp`), join(indexDir, EMBEDDING_FILE));
}

/** The embedding path recorded with the index; null when it recorded none. */
export async function readIndexEmbedding(indexDir: string): Promise<string | null> {
  const text = await readFile(join(indexDir, EMBEDDING_FILE), "utf8").catch(() => null);
  return text ? ((JSON.parse(text) as { embedding?: string }).embedding ?? null) : null;
}
