// The HTTP shell's settings as loadConfig reads them: trusted proxy hops, the operator limiter's numbers, CORS origins.
import { describe, expect, it } from "vitest";
import { loadConfig } from "../../src/app/config.js";

const load = (env: Record<string, string>) =>
  loadConfig({ DATA_DIR: "/nonexistent/litsearch", ADMIN_TOKEN: "config-test-token-0123456789", ...env });

describe("shell settings", () => {
  it("trusts no proxy and limits the operator API at 20 failed attempts and 600 requests a minute by default", () => {
    const config = load({});
    expect(config.trustProxyHops).toBe(0);
    expect(config.operatorLimits).toEqual({ failedAttemptsPerMinute: 20, requestsPerMinute: 600 });
  });

  it('reads TRUST_PROXY as a number of hops and refuses "true" (Koa would believe the client-written entry)', () => {
    expect(load({ TRUST_PROXY: "2" }).trustProxyHops).toBe(2);
    expect(load({ TRUST_PROXY: "0" }).trustProxyHops).toBe(0);
    for (const value of ["true", "yes", "-1", "1.5"])
      expect(() => load({ TRUST_PROXY: value }), value).toThrow(/TRUST_PROXY/);
  });

  it("reads the operator limits and refuses nonsense", () => {
    expect(load({ ADMIN_FAILED_AUTH_PER_MINUTE: "5", ADMIN_REQUESTS_PER_MINUTE: "100" }).operatorLimits).toEqual({
      failedAttemptsPerMinute: 5,
      requestsPerMinute: 100,
    });
    expect(() => load({ ADMIN_FAILED_AUTH_PER_MINUTE: "0" })).toThrow(/ADMIN_FAILED_AUTH_PER_MINUTE/);
    expect(() => load({ ADMIN_REQUESTS_PER_MINUTE: "lots" })).toThrow(/ADMIN_REQUESTS_PER_MINUTE/);
  });

  it("leaves CORS off unless origins are listed, and takes only bare origins", () => {
    expect(load({}).corsOrigins).toEqual([]);
    expect(load({ CORS_ORIGINS: "https://app.example.org, http://localhost:5173" }).corsOrigins).toEqual([
      "https://app.example.org",
      "http://localhost:5173",
    ]);
    expect(load({ CORS_ORIGINS: "*" }).corsOrigins).toEqual(["*"]);
    for (const value of ["https://app.example.org/", "app.example.org", "https://app.example.org/path"])
      expect(() => load({ CORS_ORIGINS: value }), value).toThrow(/CORS_ORIGINS/);
  });
});
