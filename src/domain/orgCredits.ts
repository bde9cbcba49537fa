// The organization decider's credit commands: creating the organization, adding credits and refunding. Pure.
import type { DomainEvent } from "./events.js";
import { formatCredits } from "./money.js";
import type { OrgCommandOf, OrgState } from "./organization.js";
import { Rejection } from "./rejection.js";

export function createOrganization(
  command: OrgCommandOf<"CreateOrganization">,
  state: OrgState | undefined,
): DomainEvent[] {
  if (state) throw new Rejection("VALIDATION_ERROR", `organization ${command.orgId} already exists`);
  const { orgId, name, billingMode, limits, hideBalance, billingEnabled, trialQueries } = command;
  return [
    {
      type: "OrganizationCreated",
      data: { orgId, name, billingMode, limits, hideBalance, billingEnabled, trialQueries },
    },
  ];
}

export function addCredits(command: OrgCommandOf<"AddCredits">, state: OrgState): DomainEvent[] {
  if (command.amountMicros <= 0n) throw new Rejection("VALIDATION_ERROR", "amount must be greater than zero");
  return [
    {
      type: "CreditsAdded",
      data: { orgId: state.orgId, amountMicros: command.amountMicros.toString(), reference: command.reference },
    },
  ];
}

export function issueRefund(command: OrgCommandOf<"IssueRefund">, state: OrgState): DomainEvent[] {
  if (command.amountMicros <= 0n) throw new Rejection("VALIDATION_ERROR", "amount must be greater than zero");
  if (command.queryId !== null) {
    // a refund tied to a query gives back what that query cost, at most: the ledger line must be true to its query
    if (command.refundableMicros === null)
      throw new Rejection(
        "VALIDATION_ERROR",
        `queryId ${command.queryId} names no charge of this organization; send the refund without ` +
          "queryId, or the id of one of its charged queries",
      );
    if (command.amountMicros > command.refundableMicros) {
      throw new Rejection(
        "VALIDATION_ERROR",
        `query ${command.queryId} has ${formatCredits(command.refundableMicros, 6)} credits left to ` +
          "refund (what it cost less earlier refunds); refund at most that",
      );
    }
  }
  return [
    {
      type: "RefundIssued",
      data: {
        orgId: state.orgId,
        amountMicros: command.amountMicros.toString(),
        reference: command.reference,
        queryId: command.queryId,
      },
    },
  ];
}
