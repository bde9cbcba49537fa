// Operator use case: content uploaded over the operator API (PUT /admin/v1/uploads/{name}) into the data root's
// uploads/ folder, so a collection definition or an ingestion can name it (`uploads/<name>`) wherever the operator
// runs. The body is streamed to a temporary file beside its destination, counted against the size limit and hashed
// as it arrives, then renamed into place at once: a reader never sees half a file, and a refused or broken upload
// leaves nothing behind. Uploads are listed and deleted by name, never by a path.
import { createHash, randomBytes } from "node:crypto";
import { lstat, mkdir, open, readdir, rename, rm, stat } from "node:fs/promises";
import { join } from "node:path";
import { Rejection } from "../../domain/rejection.js";

/** The folder under the data root uploads go to; definitions and ingestions name a file as `uploads/<name>`. */
const UPLOAD_DIR = "uploads";

/** A file name: letters, digits, `.`, `_`, `-`; starts with a letter or digit; at most 128 characters. */
const UPLOAD_NAME = /^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$/;

/** Why `name` cannot name an upload, or null when it can. */
function uploadNameProblem(name: string): string | null {
  if (!UPLOAD_NAME.test(name))
    return 'an upload name is 1 to 128 letters, digits, ".", "_" or "-", starting with a letter or digit (no folders)';
  if (name.includes("..")) return 'an upload name holds no ".."';
  return null;
}

export interface StoredUpload {
  name: string;
  /** what a collection definition or an ingestion names: relative to the data root */
  file: string;
  bytes: number;
  /** hex SHA-256 of the bytes stored */
  sha256: string;
  /** false when an earlier upload of the name was replaced */
  created: boolean;
}

/** An upload as the folder holds it. */
export interface UploadEntry {
  name: string;
  file: string;
  bytes: number;
  /** when it was last stored (ISO 8601) */
  storedAt: string;
}

export interface Uploads {
  /** Streams `body` into uploads/<name> (replacing an earlier upload of the name); refused past `maxBytes`. */
  store(name: string, body: AsyncIterable<Uint8Array>, declaredBytes?: number): Promise<StoredUpload>;
  /** Every upload, by name: the regular files of the folder (no partial upload, link or folder). */
  list(): Promise<UploadEntry[]>;
  /** The upload of this name, or null. */
  get(name: string): Promise<UploadEntry | null>;
  /** Deletes the upload of this name; 404 when there is none. */
  remove(name: string): Promise<UploadEntry>;
  maxBytes: number;
}

export function createUploads(deps: { dataRoot: string; maxBytes: number }): Uploads {
  const tooLarge = () =>
    new Rejection(
      "VALIDATION_ERROR",
      `the upload is larger than the ${deps.maxBytes}-byte limit (UPLOAD_MAX_MB); nothing was stored`,
      { field: "body" },
    );
  const dir = join(deps.dataRoot, UPLOAD_DIR);
  const assertName = (name: string) => {
    const problem = uploadNameProblem(name);
    if (problem) throw new Rejection("VALIDATION_ERROR", `"${name.slice(0, 140)}": ${problem}`, { field: "name" });
  };
  /** The entry of a name the folder holds as a regular file (a link or a folder is no upload), or null. */
  const entryOf = async (name: string): Promise<UploadEntry | null> => {
    const found = await lstat(join(dir, name)).catch(() => null);
    if (!found?.isFile()) return null;
    return { name, file: `${UPLOAD_DIR}/${name}`, bytes: found.size, storedAt: found.mtime.toISOString() };
  };
  const get = async (name: string) => {
    assertName(name);
    return entryOf(name);
  };
  return {
    maxBytes: deps.maxBytes,
    async list() {
      const names = await readdir(dir).catch(() => [] as string[]);
      const entries = await Promise.all(
        names
          .filter((n) => uploadNameProblem(n) === null)
          .sort()
          .map(entryOf),
      );
      return entries.filter((e): e is UploadEntry => e !== null);
    },
    get,
    async remove(name) {
      const entry = await get(name);
      if (!entry) throw new Rejection("NOT_FOUND", `no upload named "${name}"`);
      await rm(join(dir, name));
      return entry;
    },
    async store(name, body, declaredBytes) {
      assertName(name);
      if (declaredBytes !== undefined && declaredBytes > deps.maxBytes) throw tooLarge();
      await mkdir(dir, { recursive: true });
      const destination = join(dir, name);
      const existed = await stat(destination).then(
        () => true,
        () => false,
      );
      // a hidden name no upload can take (names start with a letter or digit), created exclusively
      const partial = join(dir, `.${name}.${randomBytes(6).toString("hex")}.part`);
      const file = await open(partial, "wx", 0o640);
      const hash = createHash("sha256");
      let bytes = 0;
      try {
        for await (const chunk of body) {
          bytes += chunk.length;
          if (bytes > deps.maxBytes) throw tooLarge();
          hash.update(chunk);
          await file.write(chunk);
        }
        await file.sync();
        await file.close();
        await rename(partial, destination);
      } catch (err) {
        await file.close().catch(() => undefined);
        await rm(partial, { force: true });
        throw err;
      }
      return { name, file: `${UPLOAD_DIR}/${name}`, bytes, sha256: hash.digest("hex"), created: !existed };
    },
  };
}
