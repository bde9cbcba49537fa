// Types shared by the unlock workflow and its activities; no I/O, safe inside the workflow sandbox.

export interface UnlockInput {
  orgId: string;
  keyId: string;
  queryId: string;
  /** the rows asked for, already validated against the preview; the whole preview when the caller sent none */
  requestedIds: string[];
}

export interface QuotaDecision {
  /** rows that will unlock now (requested and not yet unlocked under the query) */
  freshIds: string[];
}

export interface ChargeInput extends UnlockInput {
  freshIds: string[];
  /** workflow id and run id: makes a retried charge a no-op */
  chargeKey: string;
}

export interface ChargeOutcome {
  chargedMicros: string;
  unlockedIds: string[];
}

export interface ReleasedRow {
  id: string;
  text: string;
}

export interface UnlockOutcome {
  queryId: string;
  chargedMicros: string;
  newlyUnlocked: string[];
  released: ReleasedRow[];
}

/** Activity failure types that must not be retried: business answers, not faults. */
export const NON_RETRYABLE_UNLOCK_ERRORS = [
  'INSUFFICIENT_CREDITS',
  'BILLING_SUSPENDED',
  'API_KEY_BUDGET_EXCEEDED',
  'API_KEY_REVOKED',
  'QUOTA_EXCEEDED',
  'VALIDATION_ERROR',
  'NOT_FOUND',
  'CACHED_RESULT_EXPIRED',
];
