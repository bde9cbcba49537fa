// The one guard for every file an operator names (a collection's source files, an ingestion's files, retraction lists,
// the figure images beside JATS files): a relative path whose real path, links resolved, stays inside the data root,
// naming a regular file (never a FIFO, device, socket or directory) no larger than a limit, opened without following a
// final link and checked on the opened descriptor. Its refusals name the file and a reason, never its content.
import { constants } from "node:fs";
import { open, realpath, type FileHandle } from "node:fs/promises";
import { isAbsolute, resolve, sep } from "node:path";

/** The largest source file an operator may name (a whole MEDLINE baseline file is about 200 MB gunzipped). */
const SOURCE_FILE_MAX_BYTES = 16 * 1024 ** 3;

/** A file an operator named that cannot be read, and why; the message names the file as given and never its content. */
export class OperatorFileError extends Error {
  constructor(
    readonly file: string,
    readonly reason: string,
  ) {
    super(`"${file}" cannot be read: ${reason}`);
    this.name = "OperatorFileError";
  }
}

/** What a stat says a non-regular file is, in words. */
function kindOf(st: {
  isDirectory(): boolean;
  isFIFO(): boolean;
  isCharacterDevice(): boolean;
  isBlockDevice(): boolean;
  isSocket(): boolean;
  isSymbolicLink(): boolean;
}): string {
  if (st.isDirectory()) return "a directory, not a file";
  if (st.isFIFO()) return "a FIFO (named pipe), not a regular file";
  if (st.isCharacterDevice() || st.isBlockDevice()) return "a device, not a regular file";
  if (st.isSocket()) return "a socket, not a regular file";
  if (st.isSymbolicLink()) return "a symbolic link";
  return "not a regular file";
}

const ERRNO_REASONS: Record<string, string> = {
  ENOENT: "no such file",
  ENOTDIR: "no such file",
  EACCES: "the server may not read it",
  EPERM: "the server may not read it",
  ELOOP: "a symbolic link (links are not followed)",
  ENAMETOOLONG: "the path is too long",
};

const reasonOf = (err: unknown): string =>
  ERRNO_REASONS[(err as NodeJS.ErrnoException).code ?? ""] ?? "it cannot be opened";

/**
 * The path's own problems, before the file system is asked: null when it is a relative path that stays below the root.
 */
export function operatorPathProblem(name: string): string | null {
  if (name.length === 0) return "an empty path";
  if (name.includes("\0")) return "the path holds a NUL byte";
  if (isAbsolute(name) || /^[a-zA-Z]:/.test(name) || name.startsWith("\\"))
    return "an absolute path; name the file relative to the data root (DATA_ROOT)";
  if (name.split(/[\\/]/).includes("..")) return 'the path leaves the data root ("..")';
  return null;
}

/** Whether `path` (a real path) lies inside `root` (a real path). */
const inside = (root: string, path: string): boolean =>
  path === root || path.startsWith(root.endsWith(sep) ? root : root + sep);

/**
 * Opens a file the operator named, relative to `dataRoot`, for reading: every rule of the guard, checked on the opened
 * descriptor. The caller closes the handle. Throws OperatorFileError naming the file as given.
 */
async function openOperatorFile(
  dataRoot: string,
  name: string,
  maxBytes = SOURCE_FILE_MAX_BYTES,
): Promise<{ handle: FileHandle; path: string; size: number }> {
  const problem = operatorPathProblem(name);
  if (problem) throw new OperatorFileError(name, problem);
  let root: string;
  try {
    root = await realpath(dataRoot);
  } catch {
    throw new OperatorFileError(name, "the data root (DATA_ROOT) does not exist on the server");
  }
  let real: string;
  try {
    real = await realpath(resolve(root, name));
  } catch (err) {
    throw new OperatorFileError(name, reasonOf(err));
  }
  if (!inside(root, real)) throw new OperatorFileError(name, "a link to a file outside the data root (DATA_ROOT)");
  const handle = await openRegularFile(real, maxBytes).catch((err: unknown) => {
    throw err instanceof OperatorFileError
      ? new OperatorFileError(name, err.reason)
      : new OperatorFileError(name, reasonOf(err));
  });
  return { ...handle, path: real };
}

/** Checks a file the operator named (every rule of openOperatorFile) and answers its real path. */
export async function checkOperatorFile(
  dataRoot: string,
  name: string,
  maxBytes = SOURCE_FILE_MAX_BYTES,
): Promise<string> {
  const { handle, path } = await openOperatorFile(dataRoot, name, maxBytes);
  await handle.close();
  return path;
}

/**
 * Opens `path` without following a final link and without waiting on a FIFO's writer (O_NOFOLLOW | O_NONBLOCK), then
 * checks on the descriptor that it is a regular file within `maxBytes`. The caller closes the handle.
 */
export async function openRegularFile(
  path: string,
  maxBytes = SOURCE_FILE_MAX_BYTES,
): Promise<{ handle: FileHandle; path: string; size: number }> {
  const handle = await open(path, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
  try {
    const st = await handle.stat();
    if (!st.isFile()) throw new OperatorFileError(path, kindOf(st));
    if (st.size > maxBytes) throw new OperatorFileError(path, `${st.size} bytes, over the ${maxBytes}-byte limit`);
    return { handle, path, size: st.size };
  } catch (err) {
    await handle.close();
    throw err;
  }
}
