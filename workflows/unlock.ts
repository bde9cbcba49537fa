// The unlock transaction: quota check, then charge, then release. Deterministic; activities do the I/O.
import { proxyActivities, workflowInfo } from '@temporalio/workflow';
import type { UnlockActivities } from '../activities/unlock.js';
import { NON_RETRYABLE_UNLOCK_ERRORS, type UnlockInput, type UnlockOutcome } from './unlockTypes.js';

// The quota check gives up quickly: its failure surfaces as 503 with nothing charged.
const { checkUnlockQuota } = proxyActivities<UnlockActivities>({
  startToCloseTimeout: '10 seconds',
  retry: { initialInterval: '100 milliseconds', maximumInterval: '1 second', maximumAttempts: 3, nonRetryableErrorTypes: NON_RETRYABLE_UNLOCK_ERRORS },
});

// Charge and release are idempotent, so they retry until the store answers.
const { chargeUnlock, releaseUnlock } = proxyActivities<UnlockActivities>({
  startToCloseTimeout: '15 seconds',
  retry: { initialInterval: '100 milliseconds', maximumInterval: '5 seconds', maximumAttempts: 20, nonRetryableErrorTypes: NON_RETRYABLE_UNLOCK_ERRORS },
});

export async function unlockWorkflow(input: UnlockInput): Promise<UnlockOutcome> {
  const { freshIds } = await checkUnlockQuota(input);
  const { workflowId, runId } = workflowInfo();
  const charge = freshIds.length > 0 ? await chargeUnlock({ ...input, freshIds, chargeKey: `${workflowId}/${runId}` }) : { chargedMicros: '0', unlockedIds: [] };
  const released = await releaseUnlock(input);
  return { queryId: input.queryId, chargedMicros: charge.chargedMicros, newlyUnlocked: charge.unlockedIds, released };
}
