// Where the CLI finds the files a command names: the caller's folder (under `npm run cli` npm runs the command in the
// project folder and names the caller's in INIT_CWD), and, when the command runs on this data directory's own store,
// the data root's name for each local file, refused when the file lies outside the data root once links are resolved.
import { existsSync, realpathSync, statSync } from "node:fs";
import { isAbsolute, relative, resolve, sep } from "node:path";

/** The folder the operator ran the command from: INIT_CWD under an npm script, else the process's own. */
export function callerDirOf(env: NodeJS.ProcessEnv, cwd: string): string {
  return env.npm_lifecycle_event && env.INIT_CWD ? env.INIT_CWD : cwd;
}

/** A path the operator typed, against the caller's folder. */
export const callerPath = (callerDir: string, file: string): string => resolve(callerDir, file);

/**
 * The names the server reads `files` by, for a command on this data directory's store: a file that exists from the
 * caller's folder is named relative to the data root (links resolved, so a link cannot lead out of it) and one outside
 * it is refused, naming the fix; a name that is no local file is the data root's own and passes unchanged.
 */
export function dataRootNames(files: readonly string[], callerDir: string, dataRoot: string): string[] {
  const root = existsSync(dataRoot) ? realpathSync(dataRoot) : resolve(dataRoot);
  return files.map((file) => {
    const local = callerPath(callerDir, file);
    if (!existsSync(local) || !statSync(local).isFile()) return file;
    const real = realpathSync(local);
    const inside = relative(root, real);
    if (inside === "" || inside.startsWith(`..${sep}`) || inside === ".." || isAbsolute(inside))
      throw new Error(
        `${file}: resolves to ${real}, outside the data root ${root} (DATA_ROOT); copy it under the data root, or ` +
          "send it to a running server with --url URL --admin-token TOKEN (it is uploaded)",
      );
    return inside.split(sep).join("/");
  });
}
