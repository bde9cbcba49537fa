// Operator use case: content uploaded over the operator API (PUT /admin/v1/uploads/{name}) into the data root's
// uploads/ folder, so a collection definition or an ingestion can name it (`uploads/<name>`) wherever the operator
// runs. The body is streamed to a temporary file beside its destination, counted against the size limit and hashed
// as it arrives, then renamed into place at once: a reader never sees half a file, and a refused or broken upload
// leaves nothing behind.
import { createHash, randomBytes } from "node:crypto";
import { mkdir, open, rename, rm, stat } from "node:fs/promises";
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

export interface Uploads {
  /** Streams `body` into uploads/<name> (replacing an earlier upload of the name); refused past `maxBytes`. */
  store(name: string, body: AsyncIterable<Uint8Array>, declaredBytes?: number): Promise<StoredUpload>;
  maxBytes: number;
}

export function createUploads(deps: { dataRoot: string; maxBytes: number }): Uploads {
  const tooLarge = () =>
    new Rejection(
      "VALIDATION_ERROR",
      `the upload is larger than the ${deps.maxBytes}-byte limit (UPLOAD_MAX_MB); nothing was stored`,
      { field: "body" },
    );
  return {
    maxBytes: deps.maxBytes,
    async store(name, body, declaredBytes) {
      const problem = uploadNameProblem(name);
      if (problem) throw new Rejection("VALIDATION_ERROR", `"${name.slice(0, 140)}": ${problem}`, { field: "name" });
      if (declaredBytes !== undefined && declaredBytes > deps.maxBytes) throw tooLarge();
      const dir = join(deps.dataRoot, UPLOAD_DIR);
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
