// The search deadline's rule: an engine's answer within the deadline passes, a later one is given up on with the
// deadline's error and Retry-After, and no timer outlives the race.
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import {
  deadlineRetryAfterSeconds,
  SearchDeadlineError,
  withinDeadline,
  withSearchDeadline,
} from "../../src/retrieval/searchDeadline.js";
import type { SearchEngine, SearchHit } from "../../src/retrieval/port.js";

beforeEach(() => {
  vi.useFakeTimers();
});
afterEach(() => {
  vi.useRealTimers();
});

const late = () => new Error("late");

describe("withinDeadline", () => {
  it("answers with the work when it settles first, and clears its timer", async () => {
    await expect(withinDeadline(Promise.resolve(7), 1000, late)).resolves.toBe(7);
    expect(vi.getTimerCount()).toBe(0);
  });

  it("passes the work's own failure through", async () => {
    await expect(withinDeadline(Promise.reject(new Error("refused")), 1000, late)).rejects.toThrow("refused");
    expect(vi.getTimerCount()).toBe(0);
  });

  it("fails with the deadline's error once the deadline passes", async () => {
    const raced = withinDeadline(new Promise<number>(() => undefined), 1000, late);
    const outcome = expect(raced).rejects.toThrow("late");
    await vi.advanceTimersByTimeAsync(999);
    await vi.advanceTimersByTimeAsync(1);
    await outcome;
    expect(vi.getTimerCount()).toBe(0);
  });

  it("refuses a deadline that is not a positive number", () => {
    expect(() => withinDeadline(Promise.resolve(1), 0, late)).toThrow(RangeError);
    expect(() => withinDeadline(Promise.resolve(1), Number.NaN, late)).toThrow(RangeError);
  });
});

describe("deadlineRetryAfterSeconds", () => {
  it("is the deadline in whole seconds, rounded up, at least one", () => {
    expect(deadlineRetryAfterSeconds(5000)).toBe(5);
    expect(deadlineRetryAfterSeconds(1500)).toBe(2);
    expect(deadlineRetryAfterSeconds(200)).toBe(1);
  });
});

describe("withSearchDeadline", () => {
  const hit = { id: "a", score: 1 } as unknown as SearchHit;
  const engineAnswering = (answer: Promise<SearchHit[]>) =>
    ({ kind: "opensearch", search: () => answer, ping: async () => true }) as unknown as SearchEngine;
  const request = { index: "scifact", mode: "sparse", text: "q", limit: 10 } as const;

  it("gives up on a search past the deadline with a SearchDeadlineError naming the index and deadline", async () => {
    const engine = withSearchDeadline(engineAnswering(new Promise(() => undefined)), 2500);
    const searched = engine.search(request);
    const outcome = expect(searched).rejects.toSatisfy(
      (err) => err instanceof SearchDeadlineError && err.index === "scifact" && err.deadlineMs === 2500,
    );
    await vi.advanceTimersByTimeAsync(2500);
    await outcome;
  });

  it("leaves a search within the deadline and the engine's other calls as they are", async () => {
    const engine = withSearchDeadline(engineAnswering(Promise.resolve([hit])), 2500);
    await expect(engine.search(request)).resolves.toEqual([hit]);
    expect(engine.kind).toBe("opensearch");
    await expect(engine.ping()).resolves.toBe(true);
  });
});
