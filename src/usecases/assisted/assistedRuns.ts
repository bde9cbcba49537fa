// Starting an assisted run, waiting for it up to its bound, and how a run without a stored answer stands or resumes.
import { WorkflowUpdateFailedError } from "@temporalio/client";
import { randomUUID } from "node:crypto";
import { assistedSearchWorkflow } from "../../../workflows/assisted.js";
import {
  answerUpdate,
  CLARIFICATION_WAIT_MS,
  progressQuery,
  type AssistedOutcome,
  type AssistedProgress,
} from "../../../workflows/assistedTypes.js";
import { ASSISTED_SEARCH_ENDPOINT } from "../../domain/events.js";
import { Rejection } from "../../domain/rejection.js";
import type { AuthContext } from "../auth/context.js";
import { completeIdempotencyKey, releaseIdempotencyKey } from "../search/previewIdempotency.js";
import { loadQueryRecord } from "../search/queryCache.js";
import { answerFromRecord, clarificationAnswer, sandboxAnswer } from "./assistedAnswers.js";
import {
  type AssistedAnswer,
  type AssistedContext,
  type AssistedRequest,
  assistedWorkflowId,
  type AsyncStatus,
  EMPTY_UNDERSTANDING,
  isWorkflowNotFound,
  PROGRESS_HEARTBEAT_MS,
  type ProgressListener,
  rejectionFrom,
  sleep,
  START_DEADLINE_MS,
} from "./assistedContext.js";

export async function runAndWait(
  ctx: AssistedContext,
  auth: AuthContext,
  request: AssistedRequest,
  options: { requestId?: string; onProgress?: ProgressListener; idempotencyKey?: string },
  started: number,
): Promise<AssistedAnswer> {
  const launched = await launch(ctx, auth, request, options, started, false);
  if ("answer" in launched) return launched.answer;
  return awaitRun(
    ctx,
    auth,
    launched.queryId,
    launched.deadline,
    started,
    options.onProgress,
    options.idempotencyKey ? "created" : undefined,
  );
}

/**
 * Checks the request and starts its run. An asynchronous run (`announce`) has no caller waiting: its charge has no
 * HTTP deadline (only the run's own bound) and it tells the webhooks how it ends. A free answer (catalogue, sandbox)
 * is given at once either way.
 */
export async function launch(
  ctx: AssistedContext,
  auth: AuthContext,
  request: AssistedRequest,
  options: { requestId?: string; idempotencyKey?: string },
  started: number,
  announce: boolean,
): Promise<{ answer: AssistedAnswer } | { queryId: string; deadline: number }> {
  const { deps, taskQueue } = ctx;
  const { client, db, clock } = deps;
  const now = clock();
  const input = {
    collections: request.collections,
    query: request.query,
    limit: request.limit,
    filters: request.filters,
  };
  // the gate checks scope and the caller's filters before any work or budget: a rejected filter is 422 with nothing
  // spent
  const gated = await deps.search.gate(auth, input, ASSISTED_SEARCH_ENDPOINT, now);
  if (gated.kind === "catalogue") {
    // a catalogue answer is free and kept nowhere: a repeat with the same Idempotency-Key answers it afresh
    if (options.idempotencyKey) await releaseIdempotencyKey(db, auth.org.id, options.idempotencyKey);
    return {
      answer: {
        status: "results",
        queryId: gated.discovery.queryId,
        latencyMs: Math.round(performance.now() - started),
        iterationsRun: 0,
        rows: [],
        billing: { ...deps.search.zeroBilling(auth), chargedResults: 0, tokensCharged: 0 },
        queryUnderstanding: { ...EMPTY_UNDERSTANDING, intent: `catalogue:${gated.discovery.intent}` },
        discovery: gated.discovery,
      },
    };
  }
  const names = gated.prepared.targets.map((t) => t.requested.name);
  if (gated.kind === "sandbox")
    return {
      answer: await sandboxAnswer(ctx, auth, request, gated.prepared, started, options.idempotencyKey),
    };

  const queryId = randomUUID();
  const deadline = Date.now() + deps.waitMs;
  // nobody waits on an asynchronous run: its charge may land until the clarification's wait would have ended
  const chargeDeadline = announce ? Date.now() + CLARIFICATION_WAIT_MS : deadline;
  try {
    // a Temporal that does not answer must not hold the caller: the start gets a few seconds, then 503
    await client.withDeadline(Math.min(deadline, Date.now() + START_DEADLINE_MS), () =>
      client.workflow.start(assistedSearchWorkflow, {
        taskQueue,
        workflowId: assistedWorkflowId(queryId),
        args: [
          {
            orgId: auth.org.id,
            keyId: auth.key.id,
            queryId,
            query: request.query,
            collections: names,
            filters: request.filters,
            limit: request.limit,
            allowClarification: request.allowClarification,
            ...(request.maxCostMicros !== undefined ? { maxCostMicros: request.maxCostMicros.toString() } : {}),
            chargeDeadline,
            requestId: options.requestId,
            deliveryWaitMs: deps.deliveryWaitMs,
            ...(announce ? { announce: true } : {}),
          },
        ],
        // the clarification may wait 24 hours and the delivery its own wait; the run ends by itself after that
        workflowExecutionTimeout: CLARIFICATION_WAIT_MS + deps.deliveryWaitMs + 60 * 60 * 1000,
        requestEagerStart: deps.eagerStart ?? false,
      }),
    );
  } catch (err) {
    throw rejectionFrom(err);
  }
  if (options.idempotencyKey) await completeIdempotencyKey(db, auth.org.id, options.idempotencyKey, queryId);
  return { queryId, deadline };
}

/**
 * Waits for the run's outcome, or for it to ask a question, up to the deadline; reads its progress meanwhile.
 * Past the deadline the run is cancelled and the caller gets 503, unless its charge made it into the store.
 */
async function awaitRun(
  ctx: AssistedContext,
  auth: AuthContext,
  queryId: string,
  deadline: number,
  started: number,
  onProgress?: ProgressListener,
  idempotency?: "created" | "replayed",
): Promise<AssistedAnswer> {
  const { deps, pollMs } = ctx;
  const { client, db } = deps;
  const handle = client.workflow.getHandle(assistedWorkflowId(queryId));
  let outcome: AssistedOutcome | undefined;
  let failure: unknown;
  const result = handle.result().then(
    (o) => (outcome = o),
    (err) => (failure = err ?? new Error("the run failed")),
  );
  let charged = false;
  let lastProgress = "";
  let lastReportedAt = Date.now();
  // a change is reported at once, and a long step again every few seconds, so a listener's client never goes quiet
  const report = (progress: AssistedProgress) => {
    const seen = JSON.stringify([progress.phase, progress.round, progress.searchesRun, progress.candidatesVerified]);
    if (seen === lastProgress && Date.now() - lastReportedAt < PROGRESS_HEARTBEAT_MS) return;
    lastProgress = seen;
    lastReportedAt = Date.now();
    onProgress?.(progress, queryId);
  };
  while (outcome === undefined && failure === undefined && Date.now() < deadline) {
    const progress = await handle.query(progressQuery).catch(() => undefined);
    if (outcome !== undefined || failure !== undefined) break;
    if (progress) {
      report(progress);
      if (progress.phase === "awaiting_clarification" && progress.clarification)
        return clarificationAnswer(ctx, auth, queryId, progress, started, idempotency);
      // charged and waiting for delivery: the answer is in the store, this call delivers it
      if (progress.delivery === "awaiting") {
        charged = true;
        break;
      }
    }
    await Promise.race([result, sleep(pollMs)]);
  }
  // a listener always hears how the run ended, however quickly it ran: the final counts, phase 'done'
  if ((outcome !== undefined || charged) && onProgress) {
    const final = await handle.query(progressQuery).catch(() => undefined);
    if (final) report(final);
  }
  if (failure !== undefined) throw rejectionFrom(failure);
  if (outcome === undefined && !charged) {
    await handle.cancel().catch(() => undefined);
    const record = await loadQueryRecord(db, queryId);
    if (record?.payload.assisted) return answerFromRecord(ctx, auth, record, started, true, idempotency);
    throw new Rejection(
      "SERVICE_UNAVAILABLE",
      `assisted search did not finish within ${Math.round(deps.waitMs / 1000)} s; nothing was charged, retry is safe`,
    );
  }
  if (outcome?.status === "abandoned" || outcome?.status === "clarification_expired") {
    throw new Rejection(
      "SERVICE_UNAVAILABLE",
      "assisted search did not finish in time; nothing was charged, retry is safe",
    );
  }
  const record = await loadQueryRecord(db, queryId);
  if (!record)
    throw new Rejection(
      "SERVICE_UNAVAILABLE",
      "assisted search finished but its answer could not be read; nothing was charged twice, fetch it with " +
        "GET /api/v1/search/results/" +
        queryId,
    );
  return answerFromRecord(ctx, auth, record, started, true, idempotency);
}

/**
 * How a run of this key without an answer in the store yet stands: running (with its progress) or waiting for a
 * clarification; undefined when there is a stored answer to serve, or no such run of this key.
 */
export async function pendingRun(
  ctx: AssistedContext,
  auth: AuthContext,
  queryId: string,
): Promise<AsyncStatus | undefined> {
  const { client, db } = ctx.deps;
  if (!/^[0-9a-f-]{36}$/.test(queryId) || (await loadQueryRecord(db, queryId))) return undefined;
  const progress = await client.workflow
    .getHandle(assistedWorkflowId(queryId))
    .query(progressQuery)
    .catch(() => undefined);
  if (!progress || progress.keyId !== auth.key.id) return undefined;
  if (progress.phase === "awaiting_clarification" && progress.clarification) {
    return {
      queryId,
      status: "needs_clarification",
      clarification: progress.clarification,
      clarificationExpiresAt:
        progress.clarificationExpiresAt === null ? null : new Date(progress.clarificationExpiresAt).toISOString(),
    };
  }
  if (progress.phase === "done") {
    // ended without an answer: a run refused at its charge (the balance could not cover it) says why, as the call
    // that waited for it would have; one whose clarification went unanswered has nothing to show
    const handle = client.workflow.getHandle(assistedWorkflowId(queryId));
    const state = await handle.describe().then(
      (d) => d.status.name,
      () => undefined,
    );
    if (state !== "FAILED") return undefined;
    const failure = await handle.result().then(
      () => undefined,
      (err: unknown) => rejectionFrom(err),
    );
    if (failure && failure.code !== "SERVICE_UNAVAILABLE") throw failure;
    return undefined;
  }
  return {
    queryId,
    status: "running",
    progress: {
      phase: progress.phase,
      round: progress.round,
      searchesRun: progress.searchesRun,
      candidatesVerified: progress.candidatesVerified,
      verified: progress.verified,
    },
  };
}

/**
 * A second answer to a clarification (a client retrying a call whose answer it lost): where the answer it already has
 * is, free, and how to ask something new.
 */
function notAwaitingMessage(queryId: string, finished: boolean): string {
  const refetch = `GET /api/v1/search/results/${queryId} (MCP: get_results)`;
  return finished
    ? `assisted search ${queryId} is not waiting for a clarification (it is finished): ${refetch} re-fetches its ` +
        "answer free for 7 days; to ask something else, send a new query"
    : `assisted search ${queryId} is not waiting for a clarification (it is running): ${refetch} gives its answer ` +
        "when it is done, free";
}

export async function resumeRun(
  ctx: AssistedContext,
  auth: AuthContext,
  queryId: string,
  answer: string,
  options: { onProgress?: ProgressListener } = {},
): Promise<AssistedAnswer> {
  const { deps } = ctx;
  const { client } = deps;
  const started = performance.now();
  const handle = client.workflow.getHandle(assistedWorkflowId(queryId));
  const progress = await handle.query(progressQuery).catch((err) => {
    if (isWorkflowNotFound(err) || /not found/i.test(String((err as Error)?.message))) return null;
    throw rejectionFrom(err);
  });
  // another key's run is as unknown as no run at all
  if (!progress || progress.keyId !== auth.key.id)
    throw new Rejection("NOT_FOUND", `assisted search ${queryId} not found for this API key`);
  if (progress.phase !== "awaiting_clarification") {
    throw new Rejection("CONFLICT", notAwaitingMessage(queryId, progress.phase === "done"));
  }
  await deps.search.takeRequestSlot(auth);
  const deadline = Date.now() + deps.waitMs;
  try {
    await handle.executeUpdate(answerUpdate, { args: [{ answer, chargeDeadline: deadline }] });
  } catch (err) {
    if (err instanceof WorkflowUpdateFailedError)
      throw new Rejection("CONFLICT", `assisted search ${queryId} is no longer waiting for a clarification`);
    throw rejectionFrom(err);
  }
  return awaitRun(ctx, auth, queryId, deadline, started, options.onProgress);
}
