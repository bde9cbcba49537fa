// Where a webhook may be sent (server-side request forgery guard): https only; every address its name resolves to must
// be public; link-local and cloud metadata addresses never, whatever the configuration. The caller then connects to
// the very address checked here (no second lookup a rebinding name could answer differently). The only I/O is the
// name lookup, which is a dependency (tests give their own).
import { lookup as dnsLookup } from "node:dns/promises";
import { isIP } from "node:net";
import { Rejection } from "../../domain/rejection.js";

interface ResolvedAddress {
  address: string;
  family: 4 | 6;
}

/** Resolves a host name to every address it has (dns.lookup with all: true by default). */
export type HostLookup = (hostname: string) => Promise<ResolvedAddress[]>;

const systemLookup: HostLookup = async (hostname) =>
  (await dnsLookup(hostname, { all: true, verbatim: true })).map((a) => ({
    address: a.address,
    family: a.family === 6 ? 6 : 4,
  }));

interface UrlGuardOptions {
  /**
   * WEBHOOK_ALLOW_PRIVATE_URLS=1: loopback, private and plain-http receivers pass (tests, on-premise); metadata never
   */
  allowPrivate: boolean;
  lookup?: HostLookup;
}

/** A URL that passed, and the addresses it resolved to (each checked): connect to the first. */
export interface CheckedTarget {
  url: URL;
  addresses: ResolvedAddress[];
}

const MAX_WEBHOOK_URL_LENGTH = 2048;

/**
 * 'never': refused whatever the configuration; 'private': refused unless private receivers are allowed; null: public.
 */
type AddressClass = "never" | "private" | null;

type Range = [base: number, bits: number, cls: Exclude<AddressClass, null>];

const V4_RANGES: Range[] = [
  [v4("0.0.0.0"), 8, "never"], // "this network": 0.0.0.0 reaches the local host
  [v4("10.0.0.0"), 8, "private"],
  [v4("100.64.0.0"), 10, "private"], // carrier-grade NAT
  [v4("127.0.0.0"), 8, "private"], // loopback
  [v4("169.254.0.0"), 16, "never"], // link-local, cloud metadata (169.254.169.254)
  [v4("172.16.0.0"), 12, "private"],
  [v4("192.0.0.0"), 24, "never"], // IETF protocol assignments
  [v4("192.0.2.0"), 24, "never"], // documentation
  [v4("192.168.0.0"), 16, "private"],
  [v4("198.18.0.0"), 15, "never"], // benchmarking
  [v4("198.51.100.0"), 24, "never"],
  [v4("203.0.113.0"), 24, "never"],
  [v4("224.0.0.0"), 4, "never"], // multicast
  [v4("240.0.0.0"), 4, "never"], // reserved, broadcast
];

function v4(text: string): number {
  return text.split(".").reduce((n, part) => n * 256 + Number(part), 0);
}

/** The class of an IPv4 address in dotted form. */
function classifyV4(text: string): AddressClass {
  const n = v4(text);
  for (const [base, bits, cls] of V4_RANGES) {
    const size = 2 ** (32 - bits);
    if (n >= base && n < base + size) return cls;
  }
  return null;
}

/** The 8 hextets of an IPv6 address (with an embedded dotted IPv4 tail converted). */
function hextets(text: string): number[] {
  let t = text.toLowerCase().split("%")[0]!;
  const dotted = /(\d+\.\d+\.\d+\.\d+)$/.exec(t);
  if (dotted) {
    const n = v4(dotted[1]!);
    t = `${t.slice(0, -dotted[1]!.length)}${(n >>> 16).toString(16)}:${(n & 0xffff).toString(16)}`;
  }
  const [head, tail] = t.split("::") as [string, string | undefined];
  const left = head ? head.split(":") : [];
  const right = tail ? tail.split(":") : [];
  const missing = t.includes("::") ? 8 - left.length - right.length : 0;
  return [...left, ...Array<string>(missing).fill("0"), ...right].map((h) => parseInt(h, 16));
}

const embeddedV4 = (h: number[], at: number) => `${h[at]! >> 8}.${h[at]! & 255}.${h[at + 1]! >> 8}.${h[at + 1]! & 255}`;

function classifyV6(text: string): AddressClass {
  const h = hextets(text);
  const zeros = (from: number, to: number) => h.slice(from, to).every((x) => x === 0);
  if (zeros(0, 8)) return "never"; // ::
  if (zeros(0, 7) && h[7] === 1) return "private"; // ::1
  // the cloud metadata service's IPv6 address (AWS): never, even with private receivers allowed
  if (h[0] === 0xfd00 && h[1] === 0x0ec2 && zeros(2, 7) && h[7] === 0x254) return "never";
  // IPv4 inside IPv6: mapped (::ffff:a.b.c.d), compatible (::a.b.c.d), NAT64 (64:ff9b::a.b.c.d), 6to4 (2002:AB:CD::)
  if (zeros(0, 5) && h[5] === 0xffff) return classifyV4(embeddedV4(h, 6)) ?? null;
  if (zeros(0, 6)) return classifyV4(embeddedV4(h, 6)) ?? "never";
  // SIIT (::ffff:0:a.b.c.d)
  if (zeros(0, 4) && h[4] === 0xffff && h[5] === 0) return classifyV4(embeddedV4(h, 6)) ?? null;
  if (h[0] === 0x64 && h[1] === 0xff9b && zeros(2, 6)) return classifyV4(embeddedV4(h, 6));
  // NAT64's local-use prefix (64:ff9b:1::/48) carries an IPv4 address a local translator reaches: private at best
  if (h[0] === 0x64 && h[1] === 0xff9b && h[2] === 1) return classifyV4(embeddedV4(h, 6)) ?? "private";
  if (h[0] === 0x2002) return classifyV4(embeddedV4(h, 1));
  if (h[0] === 0x2001 && h[1] === 0) return "never"; // Teredo: a tunnel to an IPv4 address the prefix hides
  if ((h[0]! & 0xffc0) === 0xfe80) return "never"; // link-local
  if ((h[0]! & 0xffc0) === 0xfec0) return "never"; // site-local (deprecated)
  if ((h[0]! & 0xfe00) === 0xfc00) return "private"; // unique-local
  if ((h[0]! & 0xff00) === 0xff00) return "never"; // multicast
  if (h[0] === 0x2001 && h[1] === 0x0db8) return "never"; // documentation
  if (h[0] === 0x0100 && zeros(1, 4)) return "never"; // discard
  return null;
}

/** The class of an IP address (either family); anything that is not one is 'never'. */
export function classifyAddress(address: string): AddressClass {
  const family = isIP(address);
  if (family === 4) return classifyV4(address);
  if (family === 6) return classifyV6(address);
  return "never";
}

const refuse = (message: string) => new Rejection("VALIDATION_ERROR", message);

/** The URL's own problems (scheme, credentials, length), before any lookup. */
function parseWebhookUrl(raw: string, allowPrivate: boolean): URL {
  if (raw.length > MAX_WEBHOOK_URL_LENGTH) throw refuse(`url must be at most ${MAX_WEBHOOK_URL_LENGTH} characters`);
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw refuse("url must be an absolute https URL, such as https://example.org/webhooks");
  }
  if (url.protocol !== "https:" && !(allowPrivate && url.protocol === "http:"))
    throw refuse("url must use https (plain http is refused)");
  if (url.username || url.password)
    throw refuse("url must not carry a user name or password; authenticate deliveries by their signature");
  if (url.hash) throw refuse("url must not have a #fragment");
  return url;
}

/** Whether the URL names its host by an address (no name lookup to check it); its own problems are refused first. */
export function namesAnAddress(raw: string, allowPrivate: boolean): boolean {
  return isIP(parseWebhookUrl(raw, allowPrivate).hostname.replace(/^\[|\]$/g, "")) !== 0;
}

/**
 * Checks a receiver's URL and resolves its host: refused (VALIDATION_ERROR naming why) unless every address is allowed.
 * Run at registration and again before every attempt; the attempt connects to `addresses[0]`.
 */
export async function checkWebhookUrl(raw: string, options: UrlGuardOptions): Promise<CheckedTarget> {
  const url = parseWebhookUrl(raw, options.allowPrivate);
  const host = url.hostname.replace(/^\[|\]$/g, "");
  const family = isIP(host);
  let addresses: ResolvedAddress[];
  if (family !== 0) addresses = [{ address: host, family: family as 4 | 6 }];
  else {
    try {
      addresses = await (options.lookup ?? systemLookup)(host);
    } catch {
      throw refuse(`url's host ${host} does not resolve`);
    }
    if (addresses.length === 0) throw refuse(`url's host ${host} does not resolve`);
  }
  for (const { address } of addresses) {
    const cls = classifyAddress(address);
    if (cls === "never")
      throw refuse(
        `url resolves to ${address}, a link-local, metadata or reserved address, which webhooks never reach`,
      );
    if (cls === "private" && !options.allowPrivate)
      throw refuse(
        `url resolves to ${address}, a loopback or private address; webhooks reach public https receivers only`,
      );
  }
  return { url, addresses };
}
