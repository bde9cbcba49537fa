// Which API key a request presents, from every Authorization and X-API-Key header it carries: one key, or a conflict.
import { describe, expect, it } from "vitest";
import { presentedKey } from "../../src/http/authentication.js";
import { authContextOf } from "../../src/usecases/auth/context.js";
import type { ApiKeyRecord, Organization } from "../../src/usecases/accounts/accounts.js";

const K1 = "sk_live_aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa";
const K2 = "sk_live_bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb";
const keyOf = (...raw: string[]) => presentedKey(raw);

describe("presentedKey", () => {
  it("reads Bearer in any case and whitespace, X-API-Key trimmed, and a bare Authorization value as the key", () => {
    expect(keyOf("Authorization", `Bearer ${K1}`)).toEqual({ key: K1 });
    expect(keyOf("authorization", ` bEaReR \t ${K1} `)).toEqual({ key: K1 });
    expect(keyOf("X-Api-Key", ` ${K1} `)).toEqual({ key: K1 });
    expect(keyOf("Authorization", K1)).toEqual({ key: K1 });
    expect(keyOf()).toEqual({ otherScheme: undefined });
  });

  it("the same key in several headers is that key; a Basic credential beside a key is ignored", () => {
    expect(keyOf("Authorization", `Bearer ${K1}`, "X-API-Key", K1, "Authorization", K1)).toEqual({ key: K1 });
    expect(keyOf("Authorization", "Basic dXNlcjpwYXNz", "X-API-Key", K1)).toEqual({ key: K1 });
    expect(keyOf("Authorization", "Basic dXNlcjpwYXNz")).toEqual({ otherScheme: "Basic dXNlcjpwYXNz" });
  });

  it("two different keys, in any pair of headers, are a conflict that names the headers and not the keys", () => {
    for (const raw of [
      ["Authorization", `Bearer ${K1}`, "X-API-Key", K2],
      ["Authorization", `Bearer ${K1}`, "Authorization", `Bearer ${K2}`],
      ["X-API-Key", K1, "X-API-Key", K2],
      ["Authorization", K1, "X-API-Key", K2],
    ]) {
      const got = keyOf(...raw);
      expect(got.key).toBeUndefined();
      expect(got.conflict).toMatch(/2 different API keys/);
      expect(got.conflict).not.toContain(K1);
    }
    expect(keyOf("Authorization", `Bearer ${K1}`, "Authorization", `Bearer ${K2}`).conflict).toContain(
      "2 Authorization headers",
    );
  });
});

describe("authContextOf", () => {
  const org = { billingMode: "trial" } as unknown as Organization;
  it("a test key is a sandbox caller whatever the organization's mode; a live key takes the organization's", () => {
    expect(authContextOf({ mode: "test" } as ApiKeyRecord, org).billingMode).toBe("sandbox");
    expect(authContextOf({ mode: "live" } as ApiKeyRecord, org).billingMode).toBe("trial");
  });
});
