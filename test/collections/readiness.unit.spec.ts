// Which collections answer while the service ingests at start: the 503 a search gets, and the summary /readyz shows.
import { describe, expect, it } from "vitest";
import { createCollectionReadiness } from "../../src/domain/readiness.js";
import { Rejection } from "../../src/domain/rejection.js";
import { followCollectionIngestions } from "../../src/usecases/collections/manageCollections.js";

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
    expect(refused.message).toMatch(/collection "a" is not available: building its index failed/);
    // a customer reads it: nothing of the operator's routes or log
    expect(refused.message).not.toMatch(/admin|log/);
    expect(readiness.summary()).toEqual({ ready: ["b"], ingesting: [], failed: ["a"] });
    readiness.set("a", "ready");
    expect(() => readiness.assertSearchable(["a", "b"])).not.toThrow();
  });
});

describe("a request about to answer 503 asks whether the ingestion completed since the last look", () => {
  type Following = Parameters<typeof followCollectionIngestions>[0];
  const follow = (completed: () => boolean, reads: { count: number }) => {
    const readiness = createCollectionReadiness(["notes"]);
    readiness.set("notes", "ingesting");
    const catalog = {
      collections: [{ name: "notes" }],
      isSeeded: () => false,
      onChange: () => undefined,
    } as unknown as Following["catalog"];
    const ingestions = {
      hasCompleted: async () => (reads.count++, completed()),
      latest: async () => ({ state: "running" }),
    } as unknown as Following["ingestions"];
    // the periodic check is an hour away: only settle can confirm the ingestion within this test
    const following = followCollectionIngestions({ catalog, readiness, ingestions, intervalMs: 3_600_000 });
    return { readiness, following };
  };

  it("finds a completed ingestion at once, so the request is answered instead of refused", async () => {
    let done = false;
    const reads = { count: 0 };
    const { readiness, following } = follow(() => done, reads);
    await following.check();
    expect(readiness.stateOf("notes")).toBe("ingesting");
    done = true;
    await readiness.settle(["notes"]);
    expect(readiness.stateOf("notes")).toBe("ready");
    expect(() => readiness.assertSearchable(["notes"])).not.toThrow();
    following.stop();
  });

  it("shares one read among the requests waiting, reads at most every 200 ms, skips collections ready", async () => {
    const reads = { count: 0 };
    const { readiness, following } = follow(() => false, reads);
    await following.check();
    const before = reads.count;
    const started = Date.now();
    await Promise.all([1, 2, 3, 4, 5].map(() => readiness.settle(["notes"])));
    await readiness.settle(["notes"]);
    // each settle waits for a read that began after it was asked: the five share one, the sixth takes the next
    expect(reads.count - before).toBe(2);
    expect(Date.now() - started).toBeGreaterThanOrEqual(190);
    expect(() => readiness.assertSearchable(["notes"])).toThrow(Rejection);
    readiness.set("notes", "ready");
    await readiness.settle(["notes"]);
    expect(reads.count - before).toBe(2);
    following.stop();
  });

  it("leaves the states as they were when the read fails", async () => {
    const reads = { count: 0 };
    const { readiness, following } = follow(() => {
      throw new Error("store down");
    }, reads);
    await readiness.settle(["notes"]);
    expect(readiness.stateOf("notes")).toBe("ingesting");
    following.stop();
  });
});
