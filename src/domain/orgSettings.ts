// The organization decider's settings commands: limits, billing settings, price overrides, suspending and resuming
// billing. A change to what already holds records nothing. Pure.
import type { DomainEvent } from "./events.js";
import type { OrgCommandOf, OrgState } from "./organization.js";
import { Rejection } from "./rejection.js";

export function changeLimits(command: OrgCommandOf<"ChangeLimits">, state: OrgState): DomainEvent[] {
  return [{ type: "LimitsChanged", data: { orgId: state.orgId, limits: command.limits, previous: state.limits } }];
}

export function changeBillingSettings(command: OrgCommandOf<"ChangeBillingSettings">, state: OrgState): DomainEvent[] {
  const s = command.settings;
  if (!Number.isInteger(s.trialQueries) || s.trialQueries < 0)
    throw new Rejection("VALIDATION_ERROR", "trialQueries must be a non-negative integer");
  const unchanged =
    s.billingMode === state.billingMode &&
    s.billingEnabled === state.billingEnabled &&
    s.hideBalance === state.hideBalance &&
    s.trialQueries === state.trialQueries;
  return unchanged ? [] : [{ type: "BillingSettingsChanged", data: { orgId: state.orgId, ...s } }];
}

export function setPriceOverride(command: OrgCommandOf<"SetPriceOverride">, state: OrgState): DomainEvent[] {
  if (command.pricePer1000Micros !== null && command.pricePer1000Micros < 0n)
    throw new Rejection("VALIDATION_ERROR", "a price cannot be negative");
  return [
    {
      type: "PriceOverrideSet",
      data: {
        orgId: state.orgId,
        collection: command.collection,
        pricePer1000Micros: command.pricePer1000Micros?.toString() ?? null,
      },
    },
  ];
}

export function suspendBilling(command: OrgCommandOf<"SuspendBilling">, state: OrgState): DomainEvent[] {
  return state.suspended ? [] : [{ type: "BillingSuspended", data: { orgId: state.orgId, reason: command.reason } }];
}

export function resumeBilling(_command: OrgCommandOf<"ResumeBilling">, state: OrgState): DomainEvent[] {
  return state.suspended ? [{ type: "BillingResumed", data: { orgId: state.orgId } }] : [];
}
