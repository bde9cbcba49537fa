// The pure rules of webhooks: signatures the Standard Webhooks library accepts, derived secrets, the rotation's grace,
// the retry schedule's parsing, when an endpoint is disabled, and when a balance crossed its threshold.
import { describe, expect, it } from "vitest";
import { Webhook } from "standardwebhooks";
import {
  endpointSecret,
  parseRetrySchedule,
  shouldDisable,
  signedHeaders,
  signingVersions,
} from "../../src/domain/webhooks.js";
import { noticesOf } from "../../src/domain/accountNotices.js";

const MASTER = "a".repeat(64);

describe("signing", () => {
  it("signs so the standardwebhooks library verifies, and a changed body does not", () => {
    const secret = endpointSecret(MASTER, "we_abc", 1);
    const body = JSON.stringify({ type: "webhook.test", timestamp: "2026-11-28T10:00:00.000Z", data: { n: 1 } });
    const now = Math.floor(Date.now() / 1000);
    const headers = signedHeaders([secret], "msg_0123456789", now, body);
    expect(new Webhook(secret).verify(body, headers)).toEqual(JSON.parse(body));
    expect(() => new Webhook(secret).verify(body.replace('"n":1', '"n":2'), headers)).toThrow();
    expect(() => new Webhook(endpointSecret(MASTER, "we_other", 1)).verify(body, headers)).toThrow();
  });

  it("derives a distinct secret per endpoint, version and master key", () => {
    const secrets = new Set([
      endpointSecret(MASTER, "we_a", 1),
      endpointSecret(MASTER, "we_a", 2),
      endpointSecret(MASTER, "we_b", 1),
      endpointSecret("b".repeat(64), "we_a", 1),
    ]);
    expect(secrets.size).toBe(4);
    expect(endpointSecret(MASTER, "we_a", 1)).toBe(endpointSecret(MASTER, "we_a", 1));
  });

  it("signs with the previous secret too only during its grace after a rotation", () => {
    const now = new Date("2026-11-28T10:00:00Z");
    expect(signingVersions({ secretVersion: 1, previousSecretExpiresAt: null }, now)).toEqual([1]);
    expect(signingVersions({ secretVersion: 3, previousSecretExpiresAt: "2026-11-29T09:00:00Z" }, now)).toEqual([3, 2]);
    expect(signingVersions({ secretVersion: 3, previousSecretExpiresAt: "2026-11-28T09:59:59Z" }, now)).toEqual([3]);
  });
});

describe("the retry schedule", () => {
  it("defaults to Stripe-like waits over about three days (at least 24 hours)", () => {
    const schedule = parseRetrySchedule(undefined);
    expect(schedule.slice(0, 5)).toEqual([300, 1800, 7200, 18000, 36000]);
    expect(schedule.reduce((a, b) => a + b, 0)).toBeGreaterThanOrEqual(24 * 3600);
    expect(parseRetrySchedule(" ")).toEqual(schedule);
  });

  it("reads comma-separated seconds and refuses anything else", () => {
    expect(parseRetrySchedule("1, 2,0.5")).toEqual([1, 2, 0.5]);
    for (const bad of ["1,,2", "-1", "0", "soon", Array(51).fill("1").join(",")])
      expect(() => parseRetrySchedule(bad)).toThrow(/WEBHOOK_RETRY_SECONDS/);
  });
});

describe("disabling and notices", () => {
  it("disables an endpoint failing at least as long as configured, never one that answers", () => {
    const now = new Date("2026-11-28T10:00:00Z");
    expect(shouldDisable(null, now, 1000)).toBe(false);
    expect(shouldDisable("2026-11-25T10:00:00Z", now, 3 * 24 * 3600 * 1000)).toBe(true);
    expect(shouldDisable("2026-11-25T10:00:01Z", now, 3 * 24 * 3600 * 1000)).toBe(false);
  });

  it("tells a balance crossing below the threshold once: not above it, not already below", () => {
    const crossing = (balanceAfter: bigint, amount: bigint) =>
      noticesOf(
        [{ position: 1, type: "SearchCharged", keyId: null }],
        new Map([[1, { orgId: "org_a", amount, balanceAfter, threshold: 5_000_000n }]]),
        new Map(),
      ).length === 1;
    expect(crossing(4_000_000n, -2_000_000n)).toBe(true);
    expect(crossing(5_000_000n, -1n)).toBe(false);
    expect(crossing(4_000_000n, -500_000n)).toBe(false);
    expect(crossing(4_999_999n, -1n)).toBe(true);
  });

  it("reads a batch of events into its notices in the log's order, a capped key's once", () => {
    const line = (balanceAfter: bigint, amount: bigint) => ({
      orgId: "org_a",
      amount,
      balanceAfter,
      threshold: 5_000_000n,
    });
    const events = [
      { position: 10, type: "SearchCharged", keyId: "key_a" },
      { position: 11, type: "SearchCharged", keyId: "key_a" },
      { position: 12, type: "ApiKeySpendingCapChanged", keyId: "key_b" },
      { position: 13, type: "SearchCharged", keyId: "key_c" },
    ];
    // 10 crosses, 11 was already below; key_a and key_b at their caps, key_c under it; 12's position has no crossing
    const ledger = new Map([
      [10, line(4_000_000n, -2_000_000n)],
      [11, line(3_000_000n, -1_000_000n)],
      [12, line(1_000_000n, -9_000_000n)],
    ]);
    const keys = new Map([
      ["key_a", { orgId: "org_a", spent: 2_000_000n, cap: 2_000_000n }],
      ["key_b", { orgId: "org_b", spent: 3_000_000n, cap: 1_000_000n }],
      ["key_c", { orgId: "org_a", spent: 1n, cap: 2n }],
    ]);
    expect(noticesOf(events, ledger, keys).map((n) => [n.type, n.source])).toEqual([
      ["balance.low", "balance-low:org_a:10"],
      ["key.budget_exhausted", "key-budget:key_a:2000000"],
      ["key.budget_exhausted", "key-budget:key_b:1000000"],
    ]);
    expect(noticesOf(events, ledger, keys)[0]!.data).toEqual({ balance: "4.000000", threshold: "5.000000" });
    expect(noticesOf(events, new Map(), new Map())).toEqual([]);
  });
});
