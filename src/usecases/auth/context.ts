// Who is calling: the authenticated key, its organization and the billing mode that applies to the request.
import type { ApiKeyRecord, Organization } from "../accounts/accounts.js";

type EffectiveBillingMode = "live" | "trial" | "exempt" | "sandbox";

export interface AuthContext {
  key: ApiKeyRecord;
  org: Organization;
  /** sandbox for sk_test_ keys, else the organization's billing mode */
  billingMode: EffectiveBillingMode;
}

/** The caller a key is: sandbox for a test key whatever the organization's mode, else the organization's mode. */
export function authContextOf(key: ApiKeyRecord, org: Organization): AuthContext {
  return { key, org, billingMode: key.mode === "test" ? "sandbox" : org.billingMode };
}
