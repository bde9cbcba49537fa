// One key, one answer: what a repeat of an Idempotency-Key gets while the first request runs and after, for every
// operation that takes a key, and the errors that say so (the right operation's name, Retry-After, the fix).
import { describe, expect, it } from "vitest";
import { keyInProgress, keyRunGone, keyRunUnknown, repeatOfKey, type KeyedRun } from "../../src/domain/idempotency.js";
import { toApiError } from "../../src/wire/errors.js";

const RUNS: KeyedRun[] = ["running", "ended", "unknown"];

describe("repeatOfKey", () => {
  it("replays a stored answer however the run stands (stored and ended between two reads included)", () => {
    for (const run of RUNS) expect(repeatOfKey({ answerStored: true, run })).toBe("replay");
  });

  it("is in progress while the run goes on, gone only once it ended without an answer", () => {
    expect(repeatOfKey({ answerStored: false, run: "running" })).toBe("in_progress");
    expect(repeatOfKey({ answerStored: false, run: "ended" })).toBe("gone");
  });

  it("never calls a run it could not ask gone: unavailable, safe to retry with the same key", () => {
    expect(repeatOfKey({ answerStored: false, run: "unknown" })).toBe("unavailable");
  });
});

describe("the answers of a repeat", () => {
  it("409 names the operation asked about and says when to retry, with the same key", () => {
    for (const [operation, phrase, seconds] of [
      ["preview", "a preview with this Idempotency-Key is still running", 1],
      ["assisted search", "an assisted search with this Idempotency-Key is still running", 2],
    ] as const) {
      const err = toApiError(keyInProgress(operation))!;
      expect([err.status, err.code]).toEqual([409, "IDEMPOTENCY_KEY_IN_PROGRESS"]);
      expect(err.message).toContain(phrase);
      expect(err.message).toContain("same key");
      expect(err.message).toContain(`retry with the same key in ${seconds} s`);
      expect(err.headers).toEqual({ "Retry-After": String(seconds) });
      expect(err.details).toBeUndefined();
    }
    expect(toApiError(keyInProgress("assisted search"))!.message).not.toContain("preview");
  });

  it("410 only for a run that ended without an answer: it names the run and says nothing was charged", () => {
    const err = toApiError(keyRunGone("assisted search", "q-1"))!;
    expect([err.status, err.code]).toEqual([410, "CACHED_RESULT_EXPIRED"]);
    expect(err.message).toMatch(/^the assisted search q-1 .* ended without an answer, and nothing was charged/);
    expect(err.message).toContain("new key");
  });

  it("503 when the run could not be asked: retry with the same key, never a new one", () => {
    const err = toApiError(keyRunUnknown("assisted search"))!;
    expect([err.status, err.code, err.headers?.["Retry-After"]]).toEqual([503, "SERVICE_UNAVAILABLE", "5"]);
    expect(err.message).toContain("same key");
    expect(err.message).not.toContain("new key");
  });
});
