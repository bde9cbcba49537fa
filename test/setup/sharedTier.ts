// The shared tier (*.shared.spec.ts): the few tests whose purpose is to compare what the repository ships with the
// originals in ../shared (the public data beside the clone, where the workplace and CI put it). Every other test reads
// demo-data/ or test/fixtures/. `npm test` runs the tier where ../shared exists and says loudly that it left it out
// where it does not; LITSEARCH_SHARED_TIER=required (.ci/run, npm run test:shared) makes a missing ../shared an error.
import { existsSync } from "node:fs";
import { resolve } from "node:path";
import { fileURLToPath } from "node:url";

/** The vitest project (vitest.config.ts) of the *.shared.spec.ts files; it starts no component. */
export const SHARED_PROJECT = "shared";
export const SHARED_FILES = "test/**/*.shared.spec.ts";
/** ../shared beside the repository. */
export const SHARED_ROOT = resolve(fileURLToPath(new URL("../../../shared", import.meta.url)));

export type SharedTierPlan = { run: true } | { run: false; note: string };

/** Whether this run includes the shared tier; throws when it is required and ../shared is missing. */
export function sharedTierPlan(env: NodeJS.ProcessEnv, sharedExists = existsSync(SHARED_ROOT)): SharedTierPlan {
  const required = env.LITSEARCH_SHARED_TIER === "required";
  if (sharedExists) return { run: true };
  if (required)
    throw new Error(
      `LITSEARCH_SHARED_TIER=required, but ${SHARED_ROOT} is missing: the shared tier (${SHARED_FILES}) compares ` +
        "the shipped data with its originals there and cannot run without them",
    );
  return {
    run: false,
    note:
      `[shared tier] LEFT OUT: ${SHARED_ROOT} is missing, so ${SHARED_FILES} (the shipped data against its ` +
      "originals) did not run. Put ../shared beside the clone, or run them where it is (CI always does).",
  };
}
