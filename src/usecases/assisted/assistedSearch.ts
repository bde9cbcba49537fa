// The assisted-search use case: checks the request like /query does, runs the assisted workflow and waits for it up
// to a bound, resumes a run waiting for a clarification, and reads the answer from the query record the charge wrote.
//
// Money. The workflow charges once, by the query id, together with the record of the delivered rows. The HTTP call
// waits at most `waitMs`; the charge refuses after that deadline (plus nothing: the deadline is the bound), so a
// caller told 503 was charged nothing. After the bound the run is also cancelled; if its charge still committed in the
// moment between, the answer is read from the record instead of a 503, so a response never hides a charge.
//
// Delivery. A charged answer counts as delivered when its response was flushed in full (the route calls
// `confirmDelivery` then), when the caller replays its Idempotency-Key or re-fetches it by queryId (those calls confirm
// before they answer); without one within `deliveryWaitMs` the run refunds the charge and the answer is never served
// again (410). The call returns as soon as the charge is in the store; the run goes on waiting.
import { createHash, randomUUID } from "node:crypto";
import {
  Client,
  WorkflowFailedError,
  ActivityFailure,
  ApplicationFailure,
  WorkflowNotFoundError,
  WorkflowUpdateFailedError,
} from "@temporalio/client";
import { assistedSearchWorkflow } from "../../../workflows/assisted.js";
import {
  answerUpdate,
  CLARIFICATION_WAIT_MS,
  deliveredUpdate,
  progressQuery,
  type AssistedOutcome,
  type AssistedProgress,
} from "../../../workflows/assistedTypes.js";
import type { Db } from "../../eventstore/db.js";
import type { Accounts } from "../accounts/accounts.js";
import type { AuthContext } from "../auth/context.js";
import { ASSISTED_SEARCH_ENDPOINT } from "../../domain/events.js";
import { Rejection } from "../../domain/rejection.js";
import { isErrorCode } from "../../domain/errorCodes.js";
import {
  assertNotRefunded,
  loadOwnQueryRecord,
  loadQueryRecord,
  PAYLOAD_VERSION,
  saveQueryRecord,
  type AssistedPayload,
  type CachedRow,
  type QueryRecord,
} from "../search/queryCache.js";
import { resolveTargets } from "../auth/keyScope.js";
import { syntheticRows } from "../search/sandbox.js";
import type { BillingOutcome, SearchService } from "../search/searchService.js";
import type { CollectionCatalog } from "../../domain/collectionDefinitions.js";
import type { Discovery } from "../catalogue/discovery.js";
import type { QueryUnderstanding } from "../../reasoner/port.js";
import {
  claimIdempotencyKey,
  completeIdempotencyKey,
  idempotencyKeyOfAnotherKey,
  releaseIdempotencyKey,
} from "../search/previewIdempotency.js";
import { guarded } from "../limits/quotas.js";
import { keyInProgress, keyRunGone, keyRunUnknown, repeatOfKey, type KeyedRun } from "../../domain/idempotency.js";
import { readByIdempotencyKey } from "../../eventstore/eventStore.js";
import { searchChargeKey } from "../accounts/chargeBatch.js";
import { TASK_QUEUE } from "../../../workflows/shared.js";

export interface AssistedRequest {
  collections: string[];
  query: string;
  limit: number;
  filters: unknown | null;
  allowClarification: boolean;
  maxCostMicros?: bigint;
}

export interface AssistedRow {
  row: CachedRow;
  judgeScore: number;
  matchedTerms: string[];
  rationale: string;
  subQuestion: string;
}

export interface AssistedAnswer {
  status: "results" | "clarification_needed" | "no_relevant_results";
  queryId: string;
  latencyMs: number;
  iterationsRun: number;
  rows: AssistedRow[];
  /**
   * tokens and costMicros: what this call charged (the billing headers); chargedResults and tokensCharged: what the
   * answer's rows were charged, once, when the run delivered them
   */
  billing: BillingOutcome & { chargedResults: number; tokensCharged: number };
  clarification?: { question: string; reason: string };
  queryUnderstanding: QueryUnderstanding;
  discovery?: Discovery;
  filterWarnings?: unknown[];
  journalMetricExpansions?: unknown[];
  /** verified rows left out to stay within maxCost (0 included when the request carried maxCost) */
  withheldByMaxCost?: number;
  /** the own price of the first of them; null when none was left out */
  nextRowCostMicros?: bigint | null;
  /** set when the request carried an Idempotency-Key */
  idempotency?: "created" | "replayed";
  /**
   * this call's answer carries a charge that stands only once delivered: the route confirms it after the response is
   * flushed
   */
  awaitsDelivery?: boolean;
}

export interface AssistedSearchDeps {
  client: Client;
  db: Db;
  accounts: Accounts;
  clock: () => Date;
  catalog: CollectionCatalog;
  search: SearchService;
  taskQueue?: string;
  /** how long one HTTP call waits for the run (the documented bound) */
  waitMs: number;
  /**
   * how long a charged answer waits for proof of delivery before its charge is refunded
   * (ASSISTED_DELIVERY_WAIT_SECONDS)
   */
  deliveryWaitMs: number;
  eagerStart?: boolean;
  /** how often the progress is read while waiting (MCP progress notifications, the clarification question) */
  pollMs?: number;
}

/** An asynchronous run as GET /results shows it before its answer is stored. */
export type AsyncStatus =
  | {
      queryId: string;
      status: "running";
      progress: { phase: string; round: number; searchesRun: number; candidatesVerified: number; verified: number };
    }
  | {
      queryId: string;
      status: "needs_clarification";
      clarification: { question: string; reason: string };
      clarificationExpiresAt: string | null;
    };

/** Told the run's progress, with its query id (a client whose stream drops re-fetches the answer by it). */
export type ProgressListener = (progress: AssistedProgress, queryId: string) => void;

/** A step that takes long is reported again this often (MCP clients reset their request timeout on progress). */
const PROGRESS_HEARTBEAT_MS = 5_000;
/** A run's delivery wait starts after its record is written: a re-fetch this much past the wait still asks the run. */
const DELIVERY_MARGIN_MS = 10 * 60 * 1000;
/** How long starting a run may take before the call answers 503. */
const START_DEADLINE_MS = 10_000;

export const assistedWorkflowId = (queryId: string) => `assisted-${queryId}`;

const EMPTY_UNDERSTANDING: QueryUnderstanding = {
  intent: "",
  entities: [],
  aspects: [],
  caseSummary: "",
  filters: {},
  subQuestions: [],
};

/**
 * A failure that carries a spec code (typed so by an activity) is that answer; anything else is the service failing.
 */
function rejectionFrom(err: unknown): Rejection {
  if (err instanceof Rejection) return err;
  let cause: unknown = err;
  while (
    cause instanceof WorkflowFailedError ||
    cause instanceof ActivityFailure ||
    cause instanceof WorkflowUpdateFailedError
  )
    cause = (cause as { cause?: unknown }).cause;
  if (cause instanceof ApplicationFailure && isErrorCode(cause.type)) {
    return new Rejection(
      cause.type,
      cause.message,
      (cause.details?.[0] ?? undefined) as Record<string, unknown> | undefined,
    );
  }
  return new Rejection(
    "SERVICE_UNAVAILABLE",
    "assisted search is temporarily unavailable; nothing was charged, retry is safe",
  );
}

const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

/** The workflow service does not know the run (never started, or past its retention); by name across module copies. */
const isWorkflowNotFound = (err: unknown): boolean =>
  err instanceof WorkflowNotFoundError || (err as { name?: string })?.name === "WorkflowNotFoundError";

export function createAssistedSearch(deps: AssistedSearchDeps) {
  const { client, db, clock } = deps;
  const taskQueue = deps.taskQueue ?? TASK_QUEUE;
  const pollMs = deps.pollMs ?? 150;

  /**
   * The answer of a finished run, read from the record its charge wrote. `chargedNow`: this call is the one the run's
   * charge belongs to; a replay or a re-read reports nothing charged (its headers say 0.000000), the same rows.
   */
  async function answerFromRecord(
    auth: AuthContext,
    record: QueryRecord,
    started: number,
    chargedNow: boolean,
    idempotency?: "created" | "replayed",
  ): Promise<AssistedAnswer> {
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
      ...(idempotency ? { idempotency } : {}),
      ...(chargedNow && costMicros > 0n ? { awaitsDelivery: true } : {}),
    };
  }

  function clarificationAnswer(
    auth: AuthContext,
    queryId: string,
    progress: AssistedProgress,
    started: number,
    idempotency?: "created" | "replayed",
  ): AssistedAnswer {
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
   * Waits for the run's outcome, or for it to ask a question, up to the deadline; reads its progress meanwhile.
   * Past the deadline the run is cancelled and the caller gets 503, unless its charge made it into the store.
   */
  async function await_(
    auth: AuthContext,
    queryId: string,
    deadline: number,
    started: number,
    onProgress?: ProgressListener,
    idempotency?: "created" | "replayed",
  ): Promise<AssistedAnswer> {
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
          return clarificationAnswer(auth, queryId, progress, started, idempotency);
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
      if (record?.payload.assisted) return answerFromRecord(auth, record, started, true, idempotency);
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
    return answerFromRecord(auth, record, started, true, idempotency);
  }

  /**
   * Deterministic synthetic verified rows at no cost: the live shape, every row marked synthetic. Kept as a query
   * record like a live answer, so the key re-fetches it for 7 days and an Idempotency-Key replays it.
   */
  async function sandboxAnswer(
    auth: AuthContext,
    request: AssistedRequest,
    names: string[],
    started: number,
    idempotencyKey?: string,
  ): Promise<AssistedAnswer> {
    const rows = syntheticRows(request.query, names, request.limit);
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
    return answerFromRecord(auth, record, started, false, idempotencyKey ? "created" : undefined);
  }

  async function run(
    auth: AuthContext,
    request: AssistedRequest,
    options: { requestId?: string; onProgress?: ProgressListener; idempotencyKey?: string },
    started: number,
  ): Promise<AssistedAnswer> {
    const launched = await launch(auth, request, options, started, false);
    if ("answer" in launched) return launched.answer;
    return await_(
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
  async function launch(
    auth: AuthContext,
    request: AssistedRequest,
    options: { requestId?: string; idempotencyKey?: string },
    started: number,
    announce: boolean,
  ): Promise<{ answer: AssistedAnswer } | { queryId: string; deadline: number }> {
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
      return { answer: await sandboxAnswer(auth, request, names, started, options.idempotencyKey) };

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

  return {
    async start(
      auth: AuthContext,
      request: AssistedRequest,
      options: {
        requestId?: string;
        onProgress?: ProgressListener;
        idempotency?: { key: string; bodyHash: string };
      } = {},
    ): Promise<AssistedAnswer> {
      const started = performance.now();
      const idem = options.idempotency;
      if (!idem) return run(auth, request, options, started);
      // a replay is authorized like a fresh request: the key's scope over the body's collections, before the claim
      resolveTargets(deps.catalog, auth, request.collections);
      const bodyHash = createHash("sha256").update(`assisted\u0000${idem.bodyHash}`).digest("hex");
      const claim = await guarded("the idempotency store", () =>
        claimIdempotencyKey(db, auth.org.id, idem.key, bodyHash, clock(), "assisted search"),
      );
      if (claim.kind === "replay") return replay(auth, claim.queryId, started);
      try {
        return await run(auth, request, { ...options, idempotencyKey: idem.key }, started);
      } catch (err) {
        await releaseIdempotencyKey(db, auth.org.id, idem.key).catch(() => undefined);
        throw err;
      }
    },

    /**
     * Starts a run and answers at once (`Prefer: respond-async`, `"async": true`): the caller follows it on
     * GET /results/{queryId} and hears of its end through `assisted.completed` webhooks. A free answer is given whole.
     */
    async startAsync(
      auth: AuthContext,
      request: AssistedRequest,
      options: { requestId?: string; idempotency?: { key: string; bodyHash: string } } = {},
    ): Promise<
      { answer: AssistedAnswer } | { queryId: string; status: "running"; idempotency?: "created" | "replayed" }
    > {
      const started = performance.now();
      const idem = options.idempotency;
      if (!idem) {
        const launched = await launch(auth, request, options, started, true);
        return "answer" in launched ? launched : { queryId: launched.queryId, status: "running" };
      }
      resolveTargets(deps.catalog, auth, request.collections);
      const bodyHash = createHash("sha256").update(`assisted-async\u0000${idem.bodyHash}`).digest("hex");
      const claim = await guarded("the idempotency store", () =>
        claimIdempotencyKey(db, auth.org.id, idem.key, bodyHash, clock(), "assisted search"),
      );
      if (claim.kind === "replay") return { queryId: claim.queryId, status: "running", idempotency: "replayed" };
      try {
        const launched = await launch(auth, request, { ...options, idempotencyKey: idem.key }, started, true);
        return "answer" in launched
          ? launched
          : { queryId: launched.queryId, status: "running", idempotency: "created" };
      } catch (err) {
        await releaseIdempotencyKey(db, auth.org.id, idem.key).catch(() => undefined);
        throw err;
      }
    },

    /**
     * How a run of this key without an answer in the store yet stands: running (with its progress) or waiting for a
     * clarification; undefined when there is a stored answer to serve, or no such run of this key.
     */
    async pending(auth: AuthContext, queryId: string): Promise<AsyncStatus | undefined> {
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
      // ended without an answer (the clarification went unanswered): nothing to show
      if (progress.phase === "done") return undefined;
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
    },

    /** The answer to a clarification question: the same run resumes with it, and this call waits for its outcome. */
    async resume(
      auth: AuthContext,
      queryId: string,
      answer: string,
      options: { onProgress?: ProgressListener } = {},
    ): Promise<AssistedAnswer> {
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
        throw new Rejection(
          "CONFLICT",
          `assisted search ${queryId} is not waiting for a clarification (it is ` +
            `${progress.phase === "done" ? "finished" : "running"})`,
        );
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
      return await_(auth, queryId, deadline, started, options.onProgress);
    },

    /** The answer of an earlier run by this key (GET /results serves the rows; this serves the assisted shape). */
    async load(auth: AuthContext, queryId: string): Promise<AssistedAnswer> {
      const record = await loadOwnQueryRecord(db, auth.key.id, queryId, clock());
      await deliveredBeforeServing(record);
      return answerFromRecord(auth, record, performance.now(), false);
    },

    /**
     * Proof that a charged answer reached its caller (its response was flushed in full): its run stops waiting and the
     * charge stands. Sent after the response, so nothing is left to tell the caller; a run not waiting ignores it.
     */
    async confirmDelivery(queryId: string): Promise<void> {
      await proveDelivery(queryId);
    },

    deliveredBeforeServing,
  };

  function proveDelivery(queryId: string): Promise<"delivered" | "refunded" | "not_waiting"> {
    return proveAssistedDelivery(client, queryId);
  }

  /**
   * A replay or a re-fetch of an assisted answer is delivery (the caller knows its queryId), proven before it is
   * served; a run that refunded it already makes it 410. Only a record young enough for its run to still be waiting
   * asks Temporal: after that its refund mark is final.
   */
  async function deliveredBeforeServing(record: QueryRecord): Promise<void> {
    assertNotRefunded(record);
    if (
      record.kind !== "assisted" ||
      clock().getTime() - record.createdAt.getTime() > deps.deliveryWaitMs + DELIVERY_MARGIN_MS
    )
      return;
    const proof = await proveDelivery(record.queryId);
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
  async function replay(auth: AuthContext, queryId: string, started: number): Promise<AssistedAnswer> {
    const served = async (record: QueryRecord) => {
      if (record.keyId !== auth.key.id) throw idempotencyKeyOfAnotherKey();
      await deliveredBeforeServing(record);
      return answerFromRecord(auth, record, started, false, "replayed");
    };
    const early = await loadQueryRecord(db, queryId);
    if (early) return served(early);
    const { run, progress } = await runOf(queryId);
    if (progress && progress.keyId !== auth.key.id) throw idempotencyKeyOfAnotherKey();
    if (progress?.phase === "awaiting_clarification" && progress.clarification)
      return clarificationAnswer(auth, queryId, progress, started, "replayed");
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
  async function runOf(queryId: string): Promise<{ run: KeyedRun; progress?: AssistedProgress }> {
    const handle = client.workflow.getHandle(assistedWorkflowId(queryId));
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
}

export type AssistedSearch = ReturnType<typeof createAssistedSearch>;

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
