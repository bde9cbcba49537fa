// The assisted answers a call gives: from the record a run's charge wrote, a clarification question, a sandbox's
// synthetic rows.
import { randomUUID } from "node:crypto";
import type { AssistedProgress } from "../../../workflows/assistedTypes.js";
import { Rejection } from "../../domain/rejection.js";
import { readByIdempotencyKey } from "../../eventstore/eventStore.js";
import { searchChargeKey } from "../accounts/chargeBatch.js";
import type { AuthContext } from "../auth/context.js";
import { completeIdempotencyKey } from "../search/previewIdempotency.js";
import { PAYLOAD_VERSION, saveQueryRecord, type AssistedPayload, type QueryRecord } from "../search/queryCache.js";
import { syntheticRowRules, syntheticRows } from "../search/sandbox.js";
import type { PreparedRetrieval } from "../search/pipeline.js";
import {
  type AssistedAnswer,
  type AssistedContext,
  type AssistedRequest,
  EMPTY_UNDERSTANDING,
} from "./assistedContext.js";

/**
 * The answer of a finished run, read from the record its charge wrote. `chargedNow`: this call is the one the run's
 * charge belongs to; a replay or a re-read reports nothing charged (its headers say 0.000000), the same rows.
 */
export async function answerFromRecord(
  ctx: AssistedContext,
  auth: AuthContext,
  record: QueryRecord,
  started: number,
  chargedNow: boolean,
  idempotency?: "created" | "replayed",
): Promise<AssistedAnswer> {
  const { deps } = ctx;
  const { db } = deps;
  const a = record.payload.assisted;
  if (!a) throw new Rejection("VALIDATION_ERROR", `query ${record.queryId} is not an assisted search`);
  // the charge's own event says what it cost; the balance is read after it
  const [charge] = (await readByIdempotencyKey(db, searchChargeKey(record.queryId))).filter(
    (e) => e.type === "SearchCharged",
  );
  const charged = charge?.type === "SearchCharged" ? charge.data : undefined;
  const costMicros = charged ? BigInt(charged.amountMicros) : 0n;
  // the results the charge names (a sandbox answer has no charge: none); charges before resultIds named the record's
  // rows
  const chargedResults = charged ? (charged.resultIds?.length ?? record.payload.rows.length) : 0;
  const org = await deps.accounts.getOrganization(auth.org.id);
  return {
    status: a.status,
    queryId: record.queryId,
    latencyMs: Math.round(performance.now() - started),
    iterationsRun: a.iterationsRun,
    rows: record.payload.rows.map((row) => ({
      row,
      ...(a.verdicts[row.id] ?? {
        judgeScore: row.relevance ?? 0,
        matchedTerms: [],
        rationale: "",
        subQuestion: record.payload.query,
      }),
    })),
    billing: {
      mode: auth.billingMode,
      tokens: chargedNow ? a.tokensCharged : 0,
      costMicros: chargedNow ? costMicros : 0n,
      balanceMicros: org?.balanceMicros ?? auth.org.balanceMicros,
      chargedResults,
      tokensCharged: a.tokensCharged,
    },
    queryUnderstanding: a.understanding,
    filterWarnings: record.payload.filterWarnings,
    journalMetricExpansions: record.payload.journalMetricExpansions,
    ...(a.withheldByMaxCost > 0 || a.maxCostSent
      ? {
          withheldByMaxCost: a.withheldByMaxCost,
          nextRowCostMicros: a.nextRowCostMicros !== undefined ? BigInt(a.nextRowCostMicros) : null,
        }
      : {}),
    ...(a.screening ? { screening: a.screening } : {}),
    ...(idempotency ? { idempotency } : {}),
    ...(chargedNow && costMicros > 0n ? { awaitsDelivery: true } : {}),
  };
}

export function clarificationAnswer(
  ctx: AssistedContext,
  auth: AuthContext,
  queryId: string,
  progress: AssistedProgress,
  started: number,
  idempotency?: "created" | "replayed",
): AssistedAnswer {
  const { deps } = ctx;
  return {
    status: "clarification_needed",
    queryId,
    latencyMs: Math.round(performance.now() - started),
    iterationsRun: 0,
    rows: [],
    billing: { ...deps.search.zeroBilling(auth), chargedResults: 0, tokensCharged: 0 },
    clarification: progress.clarification!,
    queryUnderstanding: progress.understanding ?? EMPTY_UNDERSTANDING,
    ...(idempotency ? { idempotency } : {}),
  };
}

/**
 * Deterministic synthetic verified rows at no cost: the live shape, every row marked synthetic. Kept as a query
 * record like a live answer, so the key re-fetches it for 7 days and an Idempotency-Key replays it.
 */
export async function sandboxAnswer(
  ctx: AssistedContext,
  auth: AuthContext,
  request: AssistedRequest,
  prepared: PreparedRetrieval,
  started: number,
  idempotencyKey?: string,
): Promise<AssistedAnswer> {
  const { db, clock } = ctx.deps;
  const names = prepared.targets.map((t) => t.requested.name);
  // the caller's filters hold on synthetic rows as on live ones
  const rows = syntheticRows(request.query, names, request.limit, syntheticRowRules(prepared));
  const verdicts: AssistedPayload["verdicts"] = {};
  for (const row of rows)
    verdicts[row.id] = {
      judgeScore: row.relevance ?? 0.5,
      matchedTerms: [],
      rationale: "Synthetic sandbox result: no judge ran and nothing was charged.",
      subQuestion: request.query,
    };
  const record: QueryRecord = {
    queryId: randomUUID(),
    orgId: auth.org.id,
    keyId: auth.key.id,
    kind: "assisted",
    payloadVersion: PAYLOAD_VERSION,
    createdAt: clock(),
    payload: {
      query: request.query,
      collections: names,
      rows,
      assisted: {
        status: "results",
        iterationsRun: 1,
        understanding: { ...EMPTY_UNDERSTANDING, intent: "sandbox", subQuestions: [request.query] },
        reasoner: "sandbox",
        verdicts,
        withheldByMaxCost: 0,
        ...(request.maxCostMicros !== undefined ? { maxCostSent: true as const } : {}),
        tokensCharged: 0,
      },
    },
  };
  await saveQueryRecord(db, record);
  if (idempotencyKey) await completeIdempotencyKey(db, auth.org.id, idempotencyKey, record.queryId);
  return answerFromRecord(ctx, auth, record, started, false, idempotencyKey ? "created" : undefined);
}
