// Who is calling: the authenticated key, its organization and the billing mode that applies to the request.
import type { ApiKeyRecord, Organization } from "../accounts/accounts.js";

export type EffectiveBillingMode = "live" | "trial" | "exempt" | "sandbox";

export interface AuthContext {
  key: ApiKeyRecord;
  org: Organization;
  /** sandbox for sk_test_ keys, else the organization's billing mode */
  billingMode: EffectiveBillingMode;
}
