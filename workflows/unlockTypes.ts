// Types shared by the unlock workflow, its activities and the use case that starts it; no I/O, safe inside the workflow
// sandbox.

export interface UnlockInput {
  orgId: string;
  keyId: string;
  queryId: string;
  /** the rows asked for, already validated against the preview; the whole preview when the caller sent none */
  requestedIds: string[];
  /**
   * names the HTTP call that started the run: the one call that reports the run's charge (callers that join report 0)
   */
  callId: string;
  /**
   * who asked, recorded on the charge: a signed-in member unlocking in the dashboard's playground; absent (runs started
   * before it existed, and API-key calls): the workflow
   */
  actor?: { kind: "member"; id: string };
  /** the X-Request-Id of the call that started the run, kept with its charge so the ledger names it */
  requestId?: string;
}

export interface QuotaDecision {
  /** rows that will unlock now (requested and not yet unlocked under the query) */
  freshIds: string[];
}

export interface ChargeInput extends UnlockInput {
  freshIds: string[];
  /** workflow id and run id: makes a retried charge a no-op that returns what this run paid */
  chargeKey: string;
}

export interface ChargeOutcome {
  chargedMicros: string;
  unlockedIds: string[];
  /** the organization's balance right after this charge (its ledger line's), when it charged */
  balanceAfterMicros?: string;
}

/** Ids and amounts only: the rows' texts stay in the query record, out of workflow history. */
export interface UnlockOutcome {
  queryId: string;
  /** what this run charged (by its charge key), also after a worker died and the run was replayed */
  chargedMicros: string;
  /** the rows this run unlocked */
  newlyUnlocked: string[];
  /** the `callId` of the input that started this run */
  callId: string;
  /** the balance right after this run's charge; absent when it charged nothing (or ran before it was reported) */
  balanceAfterMicros?: string;
}

/** The unlock workflow's steps; activities/unlock.ts implements them. */
export interface UnlockActivities {
  checkUnlockQuota(input: UnlockInput): Promise<QuotaDecision>;
  chargeUnlock(input: ChargeInput): Promise<ChargeOutcome>;
}
