// Which collections answer while the service ingests at start: the 503 a search gets, and the summary /readyz shows.
import { describe, expect, it } from "vitest";
import { createCollectionReadiness } from "../../src/domain/readiness.js";
import { Rejection } from "../../src/domain/rejection.js";

function refusal(run: () => void): Rejection {
  try {
    run();
  } catch (err) {
    if (err instanceof Rejection) return err;
    throw err;
  }
  throw new Error("expected a Rejection");
}

describe("collection readiness", () => {
  it("starts with every collection ready and lets them all be searched", () => {
    const readiness = createCollectionReadiness(["a", "b"]);
    expect(readiness.summary()).toEqual({ ready: ["a", "b"], ingesting: [], failed: [] });
    expect(() => readiness.assertSearchable(["a", "b"])).not.toThrow();
  });

  it("answers 503 naming the first collection still ingesting, all of them in the details, and a Retry-After", () => {
    const readiness = createCollectionReadiness(["a", "b", "c"]);
    readiness.set("b", "ingesting");
    readiness.set("c", "ingesting");
    expect(readiness.summary()).toEqual({ ready: ["a"], ingesting: ["b", "c"], failed: [] });
    expect(() => readiness.assertSearchable(["a"])).not.toThrow();
    const refused = refusal(() => readiness.assertSearchable(["a", "c", "b"]));
    expect(refused.code).toBe("SERVICE_UNAVAILABLE");
    expect(refused.message).toMatch(/^collection "c" is still being ingested/);
    expect(refused.message).toContain("GET /readyz");
    expect(refused.details).toEqual({ collections: ["c", "b"], retryAfterSeconds: 30 });
  });

  it("says so when a collection could not be ingested, and answers again once it is ready", () => {
    const readiness = createCollectionReadiness(["a", "b"]);
    readiness.set("a", "failed");
    const refused = refusal(() => readiness.assertSearchable(["a"]));
    expect(refused.code).toBe("SERVICE_UNAVAILABLE");
    expect(refused.message).toMatch(/collection "a" could not be ingested.*service log/);
    expect(readiness.summary()).toEqual({ ready: ["b"], ingesting: [], failed: ["a"] });
    readiness.set("a", "ready");
    expect(() => readiness.assertSearchable(["a", "b"])).not.toThrow();
  });
});
