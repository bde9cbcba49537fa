// Reads source data files line by line or whole, gunzipping ".gz" files through zlib streams.
import { createReadStream } from 'node:fs';
import { createInterface } from 'node:readline';
import type { Readable } from 'node:stream';
import { createGunzip } from 'node:zlib';

function openTextStream(path: string): Readable {
  const file = createReadStream(path);
  if (!path.endsWith('.gz')) return file;
  const gunzip = createGunzip();
  file.on('error', (error) => gunzip.destroy(error));
  return file.pipe(gunzip);
}

/** Non-empty lines of a text file (CRLF tolerated), gunzipped when the name ends in ".gz". */
export async function* readLines(path: string): AsyncGenerator<string> {
  const lines = createInterface({ input: openTextStream(path), crlfDelay: Infinity });
  for await (const line of lines) {
    if (line.trim() !== '') yield line;
  }
}

/** The whole text of a file, gunzipped when the name ends in ".gz". */
export async function readText(path: string): Promise<string> {
  const parts: Buffer[] = [];
  for await (const part of openTextStream(path)) parts.push(part as Buffer);
  return Buffer.concat(parts).toString('utf8');
}

/** JSON values of a JSON-lines file; a malformed line fails with its file and line number. */
export async function* readJsonLines(path: string): AsyncGenerator<unknown> {
  let lineNumber = 0;
  for await (const line of readLines(path)) {
    lineNumber += 1;
    try {
      yield JSON.parse(line) as unknown;
    } catch (error) {
      throw new Error(`${path}:${lineNumber}: not valid JSON (${(error as Error).message})`);
    }
  }
}
