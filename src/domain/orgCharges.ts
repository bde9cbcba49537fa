// The organization decider's charge commands: a search, an unlock of results, a tool call. Each checks the quota
// where it applies and the money rules (assertPayable), and charges only a live organization. Pure.
import { countsAgainstTrial, type DomainEvent } from "./events.js";
import {
  assertPayable,
  chargeLines,
  chargeModeOf,
  totalMicros,
  totalTokens,
  type OrgCommandOf,
  type OrgState,
} from "./organization.js";
import { assertQuotaLeft } from "./queryQuota.js";

export function chargeSearch(command: OrgCommandOf<"ChargeSearch">, state: OrgState): DomainEvent[] {
  const mode = chargeModeOf(state);
  const lines = mode === "live" ? command.collections : command.collections.map((l) => ({ ...l, amountMicros: "0" }));
  const amount = totalMicros(lines);
  // quota first: a search over quota is refused whatever the money says
  assertQuotaLeft(state.limits, state.usage, state.now);
  // an assisted search that delivered nothing uses no trial query, so it needs none left
  assertPayable(
    state,
    command.key,
    amount,
    countsAgainstTrial({ endpoint: command.endpoint, resultIds: command.resultIds ?? [] }),
  );
  return [
    {
      type: "SearchCharged",
      data: {
        orgId: state.orgId,
        keyId: command.key.keyId,
        queryId: command.queryId,
        endpoint: command.endpoint,
        billingMode: mode,
        resultIds: command.resultIds ?? [],
        tokens: totalTokens(lines),
        amountMicros: amount.toString(),
        collections: lines,
      },
    },
  ];
}

export function unlockResults(command: OrgCommandOf<"UnlockResults">, state: OrgState): DomainEvent[] {
  // a result id is paid for once per queryId, however many rows of the record carry it
  const fresh = [
    ...new Map(command.rows.filter((r) => !command.alreadyUnlocked.has(r.id)).map((r) => [r.id, r] as const)).values(),
  ];
  if (fresh.length === 0) return [];
  const mode = chargeModeOf(state);
  const lines = chargeLines(fresh).map((l) => (mode === "live" ? l : { ...l, amountMicros: "0" }));
  const amount = totalMicros(lines);
  // an unlock of new rows needs quota left but does not count as a query
  assertQuotaLeft(state.limits, state.usage, state.now);
  assertPayable(state, command.key, amount);
  return [
    {
      type: "ResultsUnlocked",
      data: {
        orgId: state.orgId,
        keyId: command.key.keyId,
        queryId: command.queryId,
        billingMode: mode,
        resultIds: fresh.map((r) => r.id),
        tokens: totalTokens(lines),
        amountMicros: amount.toString(),
        collections: lines,
        workflowId: command.workflowId,
      },
    },
  ];
}

export function chargeToolCall(command: OrgCommandOf<"ChargeToolCall">, state: OrgState): DomainEvent[] {
  if (command.priceMicros < 0n) throw new Error("a tool price cannot be negative");
  // only a live organization pays; a tool call is no query, so neither the quota nor the trial allowance applies
  const mode = chargeModeOf(state);
  const amount = mode === "live" ? command.priceMicros : 0n;
  assertPayable(state, command.key, amount, false);
  return [
    {
      type: "ToolCallCharged",
      data: {
        orgId: state.orgId,
        keyId: command.key.keyId,
        callId: command.callId,
        tool: command.tool,
        billingMode: mode,
        amountMicros: amount.toString(),
      },
    },
  ];
}
