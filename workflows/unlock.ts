// The unlock transaction: quota check, then the atomic charge-and-unlock. Deterministic; activities do the I/O.
import { proxyLocalActivities, workflowInfo } from "@temporalio/workflow";
import { BUSINESS_ANSWERS } from "./shared.js";
import type { UnlockActivities, UnlockInput, UnlockOutcome } from "./unlockTypes.js";

// The steps are short database calls, so they run as local activities: one workflow task instead of a task per step
// (about 6x lower latency on the dev server). A step whose result was not yet recorded when a worker dies runs again
// on replay; every step is idempotent (the charge by its key), so a replay never charges twice.

// The quota check gives up quickly: its failure surfaces as 503 with nothing charged.
const { checkUnlockQuota } = proxyLocalActivities<UnlockActivities>({
  startToCloseTimeout: "10 seconds",
  retry: {
    initialInterval: "100 milliseconds",
    maximumInterval: "1 second",
    maximumAttempts: 3,
    nonRetryableErrorTypes: BUSINESS_ANSWERS,
  },
});

// The charge is idempotent, so it retries until the store answers.
const { chargeUnlock } = proxyLocalActivities<UnlockActivities>({
  startToCloseTimeout: "15 seconds",
  retry: {
    initialInterval: "100 milliseconds",
    maximumInterval: "5 seconds",
    maximumAttempts: 20,
    nonRetryableErrorTypes: BUSINESS_ANSWERS,
  },
});

/**
 * Returns ids and the amount, not the rows: the use case that started the run already holds the query record and
 * reads the rows unlocked under the query from the unlock ledger.
 */
export async function unlockWorkflow(input: UnlockInput): Promise<UnlockOutcome> {
  const { freshIds } = await checkUnlockQuota(input);
  const { workflowId, runId } = workflowInfo();
  // always asked: after a crash the replayed quota check finds the rows unlocked, and the charge step still reports
  // what this run paid (by its key) instead of zero
  const charge = await chargeUnlock({ ...input, freshIds, chargeKey: `${workflowId}/${runId}` });
  return {
    queryId: input.queryId,
    chargedMicros: charge.chargedMicros,
    newlyUnlocked: charge.unlockedIds,
    callId: input.callId,
    ...(charge.balanceAfterMicros !== undefined ? { balanceAfterMicros: charge.balanceAfterMicros } : {}),
  };
}
