// Per-client-address limiter (fixed window, bounded memory) for routes open to guessing: the operator API and every
// dashboard route (also keyed by account for failed sign-ins).
import { isIPv6 } from "node:net";
import type { Context } from "koa";

interface IpLimiterOptions {
  /** events admitted per address in one window */
  limit: number;
  windowMs: number;
  /** milliseconds since the epoch, from the service clock */
  now: () => number;
  /** addresses tracked at most; a new one first drops expired windows, then the oldest */
  maxTracked?: number;
}

interface Window {
  startedAt: number;
  count: number;
}

export class IpLimiter {
  // insertion order is window start order (a restarted window is re-inserted), so expired windows are at the front
  private readonly windows = new Map<string, Window>();
  private readonly maxTracked: number;

  constructor(private readonly options: IpLimiterOptions) {
    if (!(options.limit >= 1) || !(options.windowMs >= 1))
      throw new Error("IpLimiter needs a limit and a window of at least 1");
    this.maxTracked = options.maxTracked ?? 10_000;
  }

  /** Seconds until `address` is admitted again; 0 while it is under the limit. */
  retryAfterSeconds(address: string): number {
    const now = this.options.now();
    const window = this.windows.get(address);
    if (!window || this.expired(window, now) || window.count < this.options.limit) return 0;
    return Math.max(1, Math.ceil((window.startedAt + this.options.windowMs - now) / 1000));
  }

  /** Counts one event for `address`. */
  record(address: string): void {
    const now = this.options.now();
    const window = this.windows.get(address);
    if (window && !this.expired(window, now)) {
      window.count += 1;
      return;
    }
    this.windows.delete(address);
    this.makeRoom(now);
    this.windows.set(address, { startedAt: now, count: 1 });
  }

  /** Admits and counts the event (0), or refuses it uncounted with the seconds to wait. */
  take(address: string): number {
    const wait = this.retryAfterSeconds(address);
    if (wait === 0) this.record(address);
    return wait;
  }

  /** How many addresses are tracked now. */
  get size(): number {
    return this.windows.size;
  }

  private expired(window: Window, now: number): boolean {
    return now - window.startedAt >= this.options.windowMs;
  }

  private makeRoom(now: number): void {
    for (const [address, window] of this.windows) {
      if (this.windows.size < this.maxTracked && !this.expired(window, now)) return;
      // expired, or the map is full: the oldest window goes (an attacker with that many addresses is not slowed per
      // address anyway)
      this.windows.delete(address);
    }
  }
}

/** The address a limiter counts: Koa's ctx.ip (the socket, or the trusted X-Forwarded-For hop when app.proxy is set),
 * an IPv4-mapped IPv6 address as IPv4, and other IPv6 addresses by their /64, the block one subscriber usually holds.
 */
export function clientAddress(ctx: Context): string {
  const ip = ctx.ip;
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(ip);
  if (mapped) return mapped[1]!;
  return isIPv6(ip.split("%")[0]!) ? ipv6Block64(ip) : ip;
}

function ipv6Block64(ip: string): string {
  const groupsOf = (part: string | undefined) =>
    part ? part.split(":").flatMap((g) => (g.includes(".") ? ["0", "0"] : [g])) : [];
  const [head, tail] = ip.split("%")[0]!.split("::");
  const before = groupsOf(head);
  const after = groupsOf(tail);
  const groups =
    tail === undefined ? before : [...before, ...Array<string>(8 - before.length - after.length).fill("0"), ...after];
  return `${groups
    .slice(0, 4)
    .map((g) => parseInt(g, 16).toString(16))
    .join(":")}::/64`;
}

/** The limiter's answer, the spec's bare form: 429 `{error: <string>}`, Retry-After, no rate-limit headers. */
export function refuseTooManyRequests(
  ctx: Context,
  retryAfterSeconds: number,
  what = "too many requests from this address",
): void {
  ctx.status = 429;
  ctx.set("Retry-After", String(retryAfterSeconds));
  ctx.body = { error: `${what}; retry after ${retryAfterSeconds} seconds` };
}
