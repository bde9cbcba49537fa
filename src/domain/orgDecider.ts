// The organization's decider: decide(command, state) -> events, one pure function per command in the files of its
// family (credits and refunds: orgCredits.ts; charges: orgCharges.ts; settings: orgSettings.ts). State comes from the
// projections; the money rules the families share are in organization.ts.
import type { DomainEvent } from "./events.js";
import type { OrgCommand, OrgState } from "./organization.js";
import { chargeSearch, chargeToolCall, unlockResults } from "./orgCharges.js";
import { addCredits, createOrganization, issueRefund } from "./orgCredits.js";
import { changeBillingSettings, changeLimits, resumeBilling, setPriceOverride, suspendBilling } from "./orgSettings.js";
import { Rejection } from "./rejection.js";

export function decide(command: OrgCommand, state: OrgState | undefined): DomainEvent[] {
  if (command.type === "CreateOrganization") return createOrganization(command, state);
  if (!state) throw new Rejection("NOT_FOUND", "organization not found");
  switch (command.type) {
    case "AddCredits":
      return addCredits(command, state);
    case "IssueRefund":
      return issueRefund(command, state);
    case "ChargeSearch":
      return chargeSearch(command, state);
    case "UnlockResults":
      return unlockResults(command, state);
    case "ChargeToolCall":
      return chargeToolCall(command, state);
    case "ChangeLimits":
      return changeLimits(command, state);
    case "ChangeBillingSettings":
      return changeBillingSettings(command, state);
    case "SetPriceOverride":
      return setPriceOverride(command, state);
    case "SuspendBilling":
      return suspendBilling(command, state);
    case "ResumeBilling":
      return resumeBilling(command, state);
    default: {
      const unhandled: never = command;
      throw new Error(`unhandled command ${JSON.stringify(unhandled)}`);
    }
  }
}
