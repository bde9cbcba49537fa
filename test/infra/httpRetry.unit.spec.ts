// The retry rule of the clients of operators' servers: which statuses are tried again, which ask for less at once,
// how Retry-After reads, and the jittered doubling schedule that never waits less than the server asked.
import { describe, expect, it } from "vitest";
import { isRetryableStatus, isThrottleStatus, retryAfterMs, retryDelayMs } from "../../src/infra/httpRetry.js";

const policy = { baseMs: 250, maxMs: 15_000, retryAfterCapMs: 60_000 };
const full = () => 0.999_999_9;
const none = () => 0;

describe("isRetryableStatus and isThrottleStatus", () => {
  it("retries 429 and every 5xx, never a 4xx the request itself caused", () => {
    expect([429, 500, 502, 503, 504].every(isRetryableStatus)).toBe(true);
    expect([400, 401, 404, 413, 422].some(isRetryableStatus)).toBe(false);
  });
  it("reads 429 and 503 as a server asking for less at once", () => {
    expect([429, 503].every(isThrottleStatus)).toBe(true);
    expect([500, 502, 504].some(isThrottleStatus)).toBe(false);
  });
});

describe("retryAfterMs", () => {
  const now = Date.parse("2026-11-29T12:00:00Z");
  it("reads delta-seconds and HTTP dates, and nothing else", () => {
    expect(retryAfterMs("3", now)).toBe(3000);
    expect(retryAfterMs("Sun, 29 Nov 2026 12:00:10 GMT", now)).toBe(10_000);
    expect(retryAfterMs("Sun, 29 Nov 2026 11:00:00 GMT", now)).toBe(0);
    expect(retryAfterMs(null, now)).toBeUndefined();
    expect(retryAfterMs("soon", now)).toBeUndefined();
  });
});

describe("retryDelayMs", () => {
  it("doubles from baseMs per retry up to maxMs, jittered between half and all of it", () => {
    expect([2, 3, 4, 5].map((n) => retryDelayMs(n, policy, undefined, full))).toEqual([250, 500, 1000, 2000]);
    expect([2, 3, 4, 5].map((n) => retryDelayMs(n, policy, undefined, none))).toEqual([125, 250, 500, 1000]);
    expect(retryDelayMs(20, policy, undefined, full)).toBe(15_000);
  });
  it("never waits less than the server's Retry-After, up to its cap", () => {
    expect(retryDelayMs(2, policy, 5000, full)).toBe(5000);
    expect(retryDelayMs(8, policy, 1000, full)).toBe(15_000);
    expect(retryDelayMs(2, policy, 3_600_000, full)).toBe(60_000);
  });
  it("refuses an attempt number that is not a retry", () => {
    expect(() => retryDelayMs(1, policy)).toThrow(RangeError);
  });
});
