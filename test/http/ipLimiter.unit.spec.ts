// The per-address limiter on its own: window arithmetic, Retry-After, bounded memory, and which address it counts.
import { describe, expect, it } from "vitest";
import type { Context } from "koa";
import { IpLimiter, clientAddress } from "../../src/http/ipLimiter.js";

function limiterAt(start: number, options: { limit: number; windowMs?: number; maxTracked?: number }) {
  let t = start;
  const limiter = new IpLimiter({
    limit: options.limit,
    windowMs: options.windowMs ?? 60_000,
    maxTracked: options.maxTracked,
    now: () => t,
  });
  return { limiter, advance: (ms: number) => (t += ms) };
}

describe("IpLimiter", () => {
  it("admits `limit` events per address and window, refuses the next with the seconds left in the window", () => {
    const { limiter, advance } = limiterAt(1_000_000, { limit: 3 });
    expect([limiter.take("a"), limiter.take("a"), limiter.take("a")]).toEqual([0, 0, 0]);
    advance(15_500);
    expect(limiter.take("a")).toBe(45);
    // another address has its own window
    expect(limiter.take("b")).toBe(0);
  });

  it("does not count refused events, and opens again when the window has passed", () => {
    const { limiter, advance } = limiterAt(0, { limit: 2 });
    limiter.take("a");
    limiter.take("a");
    for (let i = 0; i < 50; i++) expect(limiter.take("a")).toBeGreaterThan(0);
    advance(60_000);
    expect(limiter.retryAfterSeconds("a")).toBe(0);
    expect(limiter.take("a")).toBe(0);
    expect(limiter.take("a")).toBe(0);
    expect(limiter.take("a")).toBe(60);
  });

  it("record counts without asking, for callers that decide after the fact (a failed login)", () => {
    const { limiter } = limiterAt(0, { limit: 2 });
    limiter.record("a");
    expect(limiter.retryAfterSeconds("a")).toBe(0);
    limiter.record("a");
    expect(limiter.retryAfterSeconds("a")).toBe(60);
  });

  it("tracks at most maxTracked addresses: expired windows go first, then the oldest", () => {
    const { limiter, advance } = limiterAt(0, { limit: 1, maxTracked: 100 });
    for (let i = 0; i < 100; i++) limiter.take(`10.0.0.${i}`);
    expect(limiter.size).toBe(100);
    for (let i = 0; i < 1000; i++) limiter.take(`10.1.${i >> 8}.${i & 255}`);
    expect(limiter.size).toBe(100);
    // the newest are still counted
    expect(limiter.take("10.1.3.231")).toBeGreaterThan(0);
    advance(60_000);
    limiter.take("192.0.2.1");
    expect(limiter.size).toBe(1);
  });
});

describe("clientAddress", () => {
  const at = (ip: string) => clientAddress({ ip } as Context);

  it("counts IPv4 as is and IPv4-mapped IPv6 as IPv4", () => {
    expect(at("203.0.113.7")).toBe("203.0.113.7");
    expect(at("::ffff:203.0.113.7")).toBe("203.0.113.7");
  });

  it("counts IPv6 by its /64, so one subscriber cannot rotate through its own block", () => {
    expect(at("2001:db8:1:2:aaaa::1")).toBe("2001:db8:1:2::/64");
    expect(at("2001:db8:1:2:ffff:ffff:ffff:ffff")).toBe("2001:db8:1:2::/64");
    expect(at("2001:db8::1")).toBe("2001:db8:0:0::/64");
    expect(at("::1")).toBe("0:0:0:0::/64");
    expect(at("fe80::1%eth0")).toBe("fe80:0:0:0::/64");
    expect(at("2001:db8:1:3::1")).not.toBe(at("2001:db8:1:2::1"));
  });
});
