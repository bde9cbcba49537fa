// Delivery of a charged assisted answer: the proof a re-fetch or replay gives before it is served, and replays of an
// Idempotency-Key.
import { WorkflowUpdateFailedError, type Client } from "@temporalio/client";
import { deliveredUpdate, progressQuery, type AssistedProgress } from "../../../workflows/assistedTypes.js";
import { keyInProgress, keyRunGone, keyRunUnknown, repeatOfKey, type KeyedRun } from "../../domain/idempotency.js";
import { Rejection } from "../../domain/rejection.js";
import type { AuthContext } from "../auth/context.js";
import { idempotencyKeyOfAnotherKey } from "../search/previewIdempotency.js";
import { assertNotRefunded, loadQueryRecord, type QueryRecord } from "../search/queryCache.js";
import { answerFromRecord, clarificationAnswer } from "./assistedAnswers.js";
import {
  type AssistedAnswer,
  type AssistedContext,
  assistedWorkflowId,
  DELIVERY_MARGIN_MS,
  isWorkflowNotFound,
} from "./assistedContext.js";

/**
 * A replay or a re-fetch of an assisted answer is delivery (the caller knows its queryId), proven before it is
 * served; a run that refunded it already makes it 410. Only a record young enough for its run to still be waiting
 * asks Temporal: after that its refund mark is final.
 */
export async function deliveredBeforeServing(ctx: AssistedContext, record: QueryRecord): Promise<void> {
  const { db, clock, deliveryWaitMs } = ctx.deps;
  assertNotRefunded(record);
  if (
    record.kind !== "assisted" ||
    clock().getTime() - record.createdAt.getTime() > deliveryWaitMs + DELIVERY_MARGIN_MS
  )
    return;
  const proof = await proveAssistedDelivery(ctx.deps.client, record.queryId);
  if (proof === "delivered") return;
  const now = await loadQueryRecord(db, record.queryId);
  if (now) assertNotRefunded(now);
  if (proof === "refunded")
    throw new Rejection(
      "CACHED_RESULT_EXPIRED",
      `the answer of query ${record.queryId} never reached its caller, so its charge was refunded; run the ` +
        "search again",
    );
}

/**
 * A repeat of an Idempotency-Key whose first request started the run `queryId`: its answer once stored, its question
 * while it asks one, 409 while it runs, 410 only once it ended without an answer (src/domain/idempotency.ts).
 */
export async function replay(
  ctx: AssistedContext,
  auth: AuthContext,
  queryId: string,
  started: number,
): Promise<AssistedAnswer> {
  const { db } = ctx.deps;
  const served = async (record: QueryRecord) => {
    if (record.keyId !== auth.key.id) throw idempotencyKeyOfAnotherKey();
    await deliveredBeforeServing(ctx, record);
    return answerFromRecord(ctx, auth, record, started, false, "replayed");
  };
  const early = await loadQueryRecord(db, queryId);
  if (early) return served(early);
  const { run, progress } = await runOf(ctx, queryId);
  if (progress && progress.keyId !== auth.key.id) throw idempotencyKeyOfAnotherKey();
  if (progress?.phase === "awaiting_clarification" && progress.clarification)
    return clarificationAnswer(ctx, auth, queryId, progress, started, "replayed");
  // read after the run was asked: a run that stored its answer in between is seen with it, never as one without
  const record = await loadQueryRecord(db, queryId);
  switch (repeatOfKey({ answerStored: record !== undefined, run })) {
    case "replay":
      return served(record!);
    case "in_progress":
      throw keyInProgress("assisted search");
    case "gone":
      throw keyRunGone("assisted search", queryId);
    case "unavailable":
      throw keyRunUnknown("assisted search");
  }
}

/**
 * How a run stands, with its progress when it answers the query. A run that cannot answer the query yet (its first
 * step not taken, its worker busy) has not ended for that: the workflow service tells whether it still runs.
 */
async function runOf(ctx: AssistedContext, queryId: string): Promise<{ run: KeyedRun; progress?: AssistedProgress }> {
  const handle = ctx.deps.client.workflow.getHandle(assistedWorkflowId(queryId));
  const progress = await handle.query(progressQuery).catch(() => undefined);
  // 'done': charged (its answer is stored, the caller reads it) or over without an answer
  if (progress) return { run: progress.phase === "done" ? "ended" : "running", progress };
  try {
    const { status } = await handle.describe();
    if (status.name === "RUNNING" || status.name === "PAUSED") return { run: "running" };
    if (status.name === "UNSPECIFIED" || status.name === "UNKNOWN") return { run: "unknown" };
    return { run: "ended" };
  } catch (err) {
    // the workflow service no longer knows the run (past its retention): it ended long ago
    return { run: isWorkflowNotFound(err) ? "ended" : "unknown" };
  }
}

/**
 * Tells an assisted run its answer was delivered (a flushed response, a re-fetch, a 2xx to its webhook): 'refunded'
 * when the run refunded it already (the proof came too late), 'not_waiting' when it waits for none.
 */
export async function proveAssistedDelivery(
  client: Client,
  queryId: string,
): Promise<"delivered" | "refunded" | "not_waiting"> {
  try {
    await client.workflow.getHandle(assistedWorkflowId(queryId)).executeUpdate(deliveredUpdate);
    return "delivered";
  } catch (err) {
    const cause = err instanceof WorkflowUpdateFailedError ? (err.cause as Error | undefined) : undefined;
    return cause && /^refunded:/.test(cause.message) ? "refunded" : "not_waiting";
  }
}
