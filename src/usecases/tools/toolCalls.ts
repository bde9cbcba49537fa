// The tool-call use case behind POST /api/v1/tools/{prefix}/{tool}: refuses sandbox keys, takes the call's slot of the
// per-minute budget shared with search (whether or not the tool exists), then runs the registered tool. A priced tool
// is refused before it runs when the balance cannot cover its price, and charged through the event store after it
// answered (a tool error or an unreachable upstream costs nothing).
import type { Db } from "../../eventstore/db.js";
import type { AuthContext } from "../auth/context.js";
import type { Accounts } from "../accounts/accounts.js";
import { newId } from "../accounts/apiKeys.js";
import { Rejection } from "../../domain/rejection.js";
import { assertPayable, chargeModeOf } from "../../domain/organization.js";
import { takeMinuteBudget } from "../limits/quotas.js";
import { refuseSandbox } from "../search/sandbox.js";
import { ToolError, type ToolRegistry } from "./toolRegistry.js";

interface ToolCallDeps {
  db: Db;
  tools: ToolRegistry;
  clock: () => Date;
  accounts: Pick<Accounts, "chargeToolCall">;
}

interface ToolCallOutcome {
  answer: unknown;
  /** what the call cost (0 for a free tool or an organization not billed live) */
  costMicros: bigint;
  /** the balance after the call */
  balanceMicros: bigint;
}

export function createToolCalls(deps: ToolCallDeps) {
  /**
   * A tool's answer and its charge; 404 NOT_FOUND for a tool not registered, 422 TOOL_ERROR for a tool's domain error,
   * 402 when a priced tool cannot be paid.
   */
  async function invoke(
    auth: AuthContext,
    prefix: string,
    tool: string,
    payload: unknown,
    requestId?: string,
  ): Promise<ToolCallOutcome> {
    refuseSandbox(
      auth,
      "tool calls",
      "gateway tools answer from live services and data that a sandbox key never reaches, and bill per call",
    );
    await takeMinuteBudget(deps.db, auth.org, deps.clock());
    const handler = deps.tools.find(prefix, tool);
    if (!handler) throw new Rejection("NOT_FOUND", `no tool ${prefix}/${tool} is configured on this service`);
    const price = deps.tools.describe().find((d) => d.prefix === prefix && d.tool === tool)?.priceMicros ?? 0n;
    // the early refusal, like search's: nothing runs that the balance (or the key's cap) cannot pay for
    if (price > 0n) assertPayable(auth.org, auth.key, chargeModeOf(auth.org) === "live" ? price : 0n, false);
    let answer: unknown;
    try {
      answer = await handler({ orgId: auth.org.id, keyId: auth.key.id, payload, keyScope: auth.key.collections });
    } catch (err) {
      if (err instanceof ToolError) throw new Rejection("TOOL_ERROR", err.message);
      throw err;
    }
    if (price === 0n) return { answer, costMicros: 0n, balanceMicros: auth.org.balanceMicros };
    // decided again under the append lock: a balance spent meanwhile refuses here, with nothing charged
    const charged = await deps.accounts.chargeToolCall({
      orgId: auth.org.id,
      keyId: auth.key.id,
      callId: newId("tc"),
      tool: `${prefix}/${tool}`,
      priceMicros: price,
      requestId,
    });
    return { answer, costMicros: charged.amountMicros, balanceMicros: charged.balanceMicros };
  }

  return { invoke };
}

export type ToolCalls = ReturnType<typeof createToolCalls>;
