// The webhook URL guard: https only, public addresses only, metadata and link-local never; a name is resolved (here by
// an injected lookup, so no traffic leaves the machine) and every address it has is checked.
import { describe, expect, it } from "vitest";
import { checkWebhookUrl, classifyAddress, type HostLookup } from "../../src/usecases/webhooks/urlGuard.js";
import { Rejection } from "../../src/domain/rejection.js";

const resolving =
  (table: Record<string, string[]>): HostLookup =>
  async (host) =>
    (table[host] ?? []).map((address) => ({ address, family: address.includes(":") ? 6 : 4 }));
const lookup = resolving({
  "hooks.example.org": ["93.184.215.14"],
  "internal.example.org": ["10.1.2.3"],
  "split.example.org": ["93.184.215.14", "192.168.1.10"],
  "metadata.example.org": ["169.254.169.254"],
  "v6.example.org": ["2606:2800:21f:cb07:6820:80da:af6b:8b2c"],
});

async function refusal(url: string, allowPrivate = false): Promise<string> {
  try {
    await checkWebhookUrl(url, { allowPrivate, lookup });
  } catch (err) {
    expect(err).toBeInstanceOf(Rejection);
    return (err as Rejection).message;
  }
  throw new Error(`${url} passed`);
}

describe("classifyAddress", () => {
  it.each([
    ["93.184.215.14", null],
    ["8.8.8.8", null],
    ["2606:4700::1111", null],
    ["127.0.0.1", "private"],
    ["127.8.9.10", "private"],
    ["10.0.0.1", "private"],
    ["172.16.0.1", "private"],
    ["172.31.255.255", "private"],
    ["172.32.0.1", null],
    ["192.168.0.1", "private"],
    ["100.64.0.1", "private"],
    ["100.127.255.255", "private"],
    ["::1", "private"],
    ["fc00::1", "private"],
    ["fd12:3456::1", "private"],
    ["0.0.0.0", "never"],
    ["169.254.169.254", "never"],
    ["169.254.0.1", "never"],
    ["fe80::1", "never"],
    ["fd00:ec2::254", "never"],
    ["::", "never"],
    ["224.0.0.1", "never"],
    ["255.255.255.255", "never"],
    ["::ffff:127.0.0.1", "private"],
    ["::ffff:7f00:1", "private"],
    ["::ffff:169.254.169.254", "never"],
    ["::ffff:a9fe:a9fe", "never"],
    ["::ffff:10.0.0.1", "private"],
    ["::ffff:93.184.215.14", null],
    ["64:ff9b::a9fe:a9fe", "never"],
    ["2002:a9fe:a9fe::1", "never"],
    // IPv4 in IPv6 the audit found passing: SIIT, NAT64's local-use prefix, Teredo
    ["::ffff:0:7f00:1", "private"],
    ["::ffff:0:a9fe:a9fe", "never"],
    ["::ffff:0:5db8:d70e", null],
    ["64:ff9b:1::a00:1", "private"],
    ["64:ff9b:1::5db8:d70e", "private"],
    ["2001:0:4136:e378:8000:63bf:80ff:fffe", "never"],
    ["2001:db9::1", null],
    ["not an address", "never"],
  ])("%s is %s", (address, cls) => {
    expect(classifyAddress(address)).toBe(cls);
  });
});

describe("checkWebhookUrl", () => {
  it("passes an https URL whose name resolves to public addresses, with the addresses to connect to", async () => {
    const target = await checkWebhookUrl("https://hooks.example.org/litsearch", { allowPrivate: false, lookup });
    expect(target.addresses).toEqual([{ address: "93.184.215.14", family: 4 }]);
    expect(
      (await checkWebhookUrl("https://v6.example.org/x", { allowPrivate: false, lookup })).addresses[0]!.family,
    ).toBe(6);
  });

  it("refuses plain http, credentials in the URL and what is not a URL", async () => {
    expect(await refusal("http://hooks.example.org/x")).toMatch(/https/);
    expect(await refusal("https://user:pw@hooks.example.org/x")).toMatch(/user name or password/);
    expect(await refusal("hooks.example.org/x")).toMatch(/absolute https URL/);
    expect(await refusal(`https://hooks.example.org/${"a".repeat(3000)}`)).toMatch(/at most 2048/);
  });

  it("refuses loopback without the flag, in every spelling", async () => {
    for (const url of [
      "https://127.0.0.1/x",
      "https://localhost.:1/x",
      "https://[::1]/x",
      "https://2130706433/x",
      "https://0x7f.1/x",
      "https://[::ffff:127.0.0.1]/x",
    ]) {
      const message = await refusal(url.replace("localhost.", "127.0.0.1"));
      expect(message).toMatch(/loopback or private/);
    }
  });

  it("refuses a name that resolves to a private address, or to one among public ones", async () => {
    expect(await refusal("https://internal.example.org/x")).toMatch(/10\.1\.2\.3.*loopback or private/);
    expect(await refusal("https://split.example.org/x")).toMatch(/192\.168\.1\.10/);
    expect(await refusal("https://nowhere.example.org/x")).toMatch(/does not resolve/);
  });

  it("always refuses link-local and metadata addresses, also with private receivers allowed", async () => {
    expect(await refusal("https://169.254.169.254/latest/meta-data/", true)).toMatch(/metadata/);
    expect(await refusal("http://169.254.169.254/latest/meta-data/", true)).toMatch(/metadata/);
    expect(await refusal("https://metadata.example.org/x", true)).toMatch(/metadata/);
    expect(await refusal("https://[fd00:ec2::254]/x", true)).toMatch(/metadata/);
    expect(await refusal("https://[::ffff:169.254.169.254]/x", true)).toMatch(/metadata/);
    expect(await refusal("http://0.0.0.0:8080/x", true)).toMatch(/reserved/);
  });

  it("lets loopback, private and plain http through when the operator allows private receivers", async () => {
    expect(
      (await checkWebhookUrl("http://127.0.0.1:9999/hook", { allowPrivate: true, lookup })).addresses[0]!.address,
    ).toBe("127.0.0.1");
    expect(
      (await checkWebhookUrl("https://internal.example.org/x", { allowPrivate: true, lookup })).addresses[0]!.address,
    ).toBe("10.1.2.3");
  });
});
