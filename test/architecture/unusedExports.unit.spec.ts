// Every export of src/, workflows/, activities/ and projections/ is imported by another file: an export nothing imports
// is dead code or an `export` its file does not need. `npx tsx scripts/unusedExports.ts` prints them, and the exports
// only test/ or bench/ import.
import { describe, expect, it } from "vitest";
import { REPO_ROOT } from "../../src/app/config.js";
import { unusedExports } from "../../scripts/unusedExports.js";

/** Unused exports still here, each with its reason. This list may only shrink. */
const ALLOWED_UNUSED = [
  // a declaration file states a JavaScript module's shape: its type is reached only through its export
  "src/embedding/encoderSession.d.mts EncoderSession",
];

/**
 * Exports that only test/ and bench/ import. Those kept are pure rules a unit test holds (parsers, scorers, the
 * domain's arithmetic), the seams a test drives a component through (a factory's options, an injectable clock or
 * transport) and the fixtures' shapes; a new one must be one of these. This number may only go down.
 */
const MOST_TEST_ONLY = 128;

describe("unused exports", () => {
  const found = unusedExports(REPO_ROOT);
  const key = (f: { file: string; name: string }) => `${f.file} ${f.name}`;

  it("every export outside the allow-list is imported by another file", () => {
    const unused = found.filter((f) => f.kind === "unused").map(key);
    expect(unused.filter((entry) => !ALLOWED_UNUSED.includes(entry))).toEqual([]);
  });

  it("the allow-list names only exports still unused (it shrinks as they go)", () => {
    const unused = new Set(found.filter((f) => f.kind === "unused").map(key));
    expect(ALLOWED_UNUSED.filter((entry) => !unused.has(entry))).toEqual([]);
  });

  it(`at most ${MOST_TEST_ONLY} exports only tests and benchmarks import`, () => {
    expect(found.filter((f) => f.kind === "test-only").length).toBeLessThanOrEqual(MOST_TEST_ONLY);
  });
});
