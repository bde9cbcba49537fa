// Temporary folders of a test file, removed after its tests (passed or failed), so a run leaves none behind in the
// temp folder. KEEP_TEST_DATA=1 keeps them for debugging.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll } from "vitest";

/** Set to 1 to keep the folders tests make (a service's PGlite and index, data slices, a CLI's store) for debugging. */
export const KEEP_TEST_DATA = process.env.KEEP_TEST_DATA === "1";

/** Removes `dir` and all it holds, unless KEEP_TEST_DATA=1; never throws (a removal must not hide a test's failure). */
export function removeTempDir(dir: string): void {
  if (KEEP_TEST_DATA) return;
  try {
    rmSync(dir, { recursive: true, force: true, maxRetries: 3 });
  } catch (error) {
    // the run's teardown names what is left; the test's own verdict stands
    console.warn(`could not remove ${dir}: ${error instanceof Error ? error.message : String(error)}`);
  }
}

/**
 * Called at the top of a test file (or of a support module the file loads): registers the removal after its tests
 * and returns what makes a folder there, named `prefix` plus six random characters. Register it before the hooks that
 * stop what runs in those folders: after-hooks run in reverse order, so the folders go last.
 */
export function tempDirs(): (prefix: string) => string {
  const made: string[] = [];
  afterAll(() => {
    for (const dir of made.splice(0)) removeTempDir(dir);
  });
  return (prefix) => {
    const dir = mkdtempSync(join(tmpdir(), prefix));
    made.push(dir);
    return dir;
  };
}
