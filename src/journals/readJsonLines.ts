// Streams the records of a JSON Lines file, gzip-compressed or not, one parsed value at a time.
import { createReadStream } from "node:fs";
import { createInterface } from "node:readline";
import { createGunzip } from "node:zlib";
import type { Readable } from "node:stream";

export async function* readJsonLines(path: string): AsyncGenerator<unknown> {
  const file = createReadStream(path);
  const text: Readable = path.endsWith(".gz") ? file.pipe(createGunzip()) : file;
  const lines = createInterface({ input: text, crlfDelay: Infinity });
  let lineNumber = 0;
  for await (const line of lines) {
    lineNumber += 1;
    if (line.trim().length === 0) continue;
    try {
      yield JSON.parse(line) as unknown;
    } catch (error) {
      throw new Error(`${path}:${lineNumber}: not JSON (${(error as Error).message})`, { cause: error });
    }
  }
}
