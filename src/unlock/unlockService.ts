// Starts the unlock workflow for an HTTP request and turns its outcome or failure into the spec's answers.
import { createHash } from 'node:crypto';
import { Client, WorkflowFailedError, ActivityFailure, ApplicationFailure } from '@temporalio/client';
import { unlockWorkflow } from '../../workflows/unlock.js';
import type { UnlockOutcome } from '../../workflows/unlockTypes.js';
import { TASK_QUEUE } from '../temporal/worker.js';
import { Rejection } from '../domain/rejection.js';
import type { ErrorCode } from '../domain/errorCodes.js';

const KNOWN_CODES = new Set<string>([
  'INSUFFICIENT_CREDITS', 'BILLING_SUSPENDED', 'API_KEY_BUDGET_EXCEEDED', 'API_KEY_REVOKED', 'QUOTA_EXCEEDED',
  'VALIDATION_ERROR', 'NOT_FOUND', 'CACHED_RESULT_EXPIRED', 'SERVICE_UNAVAILABLE',
]);

/** One workflow per (query, requested rows): identical concurrent calls join the same run and pay once. */
export function unlockWorkflowId(queryId: string, requestedIds: string[]): string {
  const digest = createHash('sha256').update([...requestedIds].sort().join('\n')).digest('hex').slice(0, 24);
  return `unlock-${queryId}-${digest}`;
}

function rejectionFrom(err: unknown): Rejection {
  let cause: unknown = err;
  while (cause instanceof WorkflowFailedError || cause instanceof ActivityFailure) cause = (cause as { cause?: unknown }).cause;
  if (cause instanceof ApplicationFailure && cause.type && KNOWN_CODES.has(cause.type)) {
    const details = (cause.details?.[0] ?? undefined) as Record<string, unknown> | undefined;
    return new Rejection(cause.type as ErrorCode, cause.message, details);
  }
  return new Rejection('SERVICE_UNAVAILABLE', 'unlock is temporarily unavailable; nothing was charged or unlocked, retry is safe');
}

export interface UnlockRequest {
  orgId: string;
  keyId: string;
  queryId: string;
  requestedIds: string[];
}

/**
 * `eagerStart`: the client shares its NativeConnection with a worker of this process, so the server hands the new
 * workflow straight to that worker in the start call (one round trip less per unlock).
 */
export function createUnlockService(client: Client, taskQueue = TASK_QUEUE, options: { eagerStart?: boolean } = {}) {
  return {
    async unlock(req: UnlockRequest): Promise<UnlockOutcome> {
      const workflowId = unlockWorkflowId(req.queryId, req.requestedIds);
      try {
        const handle = await client.workflow.start(unlockWorkflow, {
          taskQueue,
          workflowId,
          args: [req],
          workflowIdConflictPolicy: 'USE_EXISTING',
          workflowIdReusePolicy: 'ALLOW_DUPLICATE',
          workflowExecutionTimeout: '2 minutes',
          requestEagerStart: options.eagerStart ?? false,
        });
        return await handle.result();
      } catch (err) {
        throw rejectionFrom(err);
      }
    },
  };
}

export type UnlockService = ReturnType<typeof createUnlockService>;
