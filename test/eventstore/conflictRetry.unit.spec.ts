import { describe, expect, it } from "vitest";
import { retryConflicts } from "../../src/eventstore/conflictRetry.js";
import { StreamVersionConflict } from "../../src/eventstore/eventStore.js";
import { Rejection } from "../../src/domain/rejection.js";

/** An append that loses to other writers `losses` times, then succeeds (or fails as told). */
function contended(losses: number, then: () => string = () => "appended") {
  let attempts = 0;
  const attempt = async () => {
    attempts += 1;
    if (attempts <= losses) throw new StreamVersionConflict("org-a", attempts);
    return then();
  };
  return { attempt, attempts: () => attempts };
}

describe("retrying write conflicts", () => {
  it("waits its turn through many conflicts (more than three) and succeeds", async () => {
    const writer = contended(12);
    await expect(retryConflicts(writer.attempt)).resolves.toBe("appended");
    expect(writer.attempts()).toBe(13);
  });

  it("passes any other error through at once: only a conflict is contention", async () => {
    const writer = contended(1, () => {
      throw new Error("connection refused");
    });
    await expect(retryConflicts(writer.attempt)).rejects.toThrow("connection refused");
    expect(writer.attempts()).toBe(2);
  });

  it("answers 503 saying the store is busy once the deadline passes", async () => {
    const writer = contended(Number.POSITIVE_INFINITY);
    const err = await retryConflicts(writer.attempt, 40).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(Rejection);
    expect((err as Rejection).code).toBe("SERVICE_UNAVAILABLE");
    expect((err as Rejection).message).toMatch(/busy/);
    expect(writer.attempts()).toBeGreaterThan(1);
  });
});
