// The charges a request makes: a search (batched, group commit), a priced tool call, an unlock of result rows.
import type { Db } from "../../eventstore/db.js";
import type { UnlockRowPrice } from "../../domain/organization.js";
import type { Actor } from "../../domain/events.js";
import type { AccountReads } from "./accountReads.js";
import { createChargeBatcher, searchChargeKey, type ChargeInput, type ChargeResult } from "./chargeBatch.js";
import type { CommandResult, RunOrgCommand } from "./orgCommand.js";

/** The idempotency key of an unlock charge: one per workflow run. */
export const unlockChargeKey = (workflowRun: string) => `unlock:${workflowRun}`;

export function createCharges(
  db: Db,
  clock: () => Date,
  runOrgCommand: RunOrgCommand,
  { getOrganization }: Pick<AccountReads, "getOrganization">,
) {
  /** One search charge in its own transaction: the path of a retried charge, which returns the original events. */
  async function chargeAlone(input: ChargeInput): Promise<ChargeResult> {
    const res = await runOrgCommand(
      input.orgId,
      { kind: "key", id: input.keyId },
      async (_tx, _state, key) => ({
        type: "ChargeSearch",
        key: key!,
        queryId: input.queryId,
        endpoint: input.endpoint,
        collections: input.collections,
        resultIds: input.resultIds ?? [],
      }),
      {
        idempotencyKey: searchChargeKey(input.queryId),
        requestId: input.requestId,
        keyId: input.keyId,
        alsoWrite: input.alsoWrite,
        collections: input.collections.map((l) => l.collection),
      },
    );
    const event = res.events[0];
    if (res.duplicate || !res.state || !event || event.type !== "SearchCharged") {
      const org = await getOrganization(input.orgId);
      return {
        events: res.events,
        duplicate: res.duplicate,
        balanceMicros: org?.balanceMicros ?? 0n,
        dailyUsed: -1,
        monthlyUsed: -1,
      };
    }
    return {
      events: res.events,
      duplicate: false,
      balanceMicros: res.state.balanceMicros - BigInt(event.data.amountMicros),
      dailyUsed: res.state.usage.dailyUsed + 1,
      monthlyUsed: res.state.usage.monthlyUsed + 1,
    };
  }

  const batcher = createChargeBatcher(db, clock, chargeAlone);

  return {
    /**
     * Charges a search (live) or records it at zero (trial, exempt, billing off); throws a Rejection when money cannot
     * move or the quota is used up. `alsoWrite` commits with the charge (the query record it pays for). Concurrent
     * charges commit in batches (group commit).
     */
    chargeSearch: (input: ChargeInput): Promise<ChargeResult> => batcher.charge(input),

    /**
     * The charge of a priced tool call, after the tool answered: decided on the balance as it stands under the append
     * lock (a balance spent meanwhile refuses with nothing charged), idempotent per call id.
     */
    async chargeToolCall(input: {
      orgId: string;
      keyId: string;
      callId: string;
      tool: string;
      priceMicros: bigint;
      requestId?: string;
    }): Promise<{ amountMicros: bigint; balanceMicros: bigint }> {
      const res = await runOrgCommand(
        input.orgId,
        { kind: "key", id: input.keyId },
        async (_tx, _state, key) => ({
          type: "ChargeToolCall",
          key: key!,
          callId: input.callId,
          tool: input.tool,
          priceMicros: input.priceMicros,
        }),
        { idempotencyKey: `tool:${input.callId}`, requestId: input.requestId, keyId: input.keyId },
      );
      const event = res.events[0];
      const amountMicros = event?.type === "ToolCallCharged" ? BigInt(event.data.amountMicros) : 0n;
      if (!res.duplicate && res.state) return { amountMicros, balanceMicros: res.state.balanceMicros - amountMicros };
      return { amountMicros, balanceMicros: (await getOrganization(input.orgId))?.balanceMicros ?? 0n };
    },

    /** Charges and unlocks the rows not yet unlocked under the query, atomically; idempotent per workflow run. */
    async unlockResults(input: {
      orgId: string;
      keyId: string;
      queryId: string;
      rows: UnlockRowPrice[];
      workflowId: string;
      /** a member who unlocked in the dashboard; else the workflow run is the actor */
      actor?: Actor;
      /** the call that asked for the unlock (its X-Request-Id), recorded with the charge */
      requestId?: string;
    }): Promise<CommandResult> {
      return runOrgCommand(
        input.orgId,
        input.actor ?? { kind: "workflow", id: input.workflowId },
        async (tx, _state, key) => {
          const unlocked = await tx.query<{ result_id: string }>(
            "SELECT result_id FROM proj_unlocks WHERE query_id = $1",
            [input.queryId],
          );
          return {
            type: "UnlockResults",
            key: key!,
            queryId: input.queryId,
            rows: input.rows,
            alreadyUnlocked: new Set(unlocked.map((u) => u.result_id)),
            workflowId: input.workflowId,
          };
        },
        {
          idempotencyKey: unlockChargeKey(input.workflowId),
          requestId: input.requestId,
          keyId: input.keyId,
          collections: [...new Set(input.rows.map((r) => r.collection))],
        },
      );
    },
  };
}
