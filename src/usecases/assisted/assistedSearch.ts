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
import { createHash } from "node:crypto";
import { TASK_QUEUE } from "../../../workflows/shared.js";
import type { AuthContext } from "../auth/context.js";
import { resolveTargets } from "../auth/keyScope.js";
import { guarded } from "../limits/quotas.js";
import { claimIdempotencyKey, releaseIdempotencyKey } from "../search/previewIdempotency.js";
import { loadOwnQueryRecord, type QueryRecord } from "../search/queryCache.js";
import { answerFromRecord } from "./assistedAnswers.js";
import {
  type AssistedAnswer,
  type AssistedContext,
  type AssistedRequest,
  type AssistedSearchDeps,
  type ProgressListener,
} from "./assistedContext.js";
import { deliveredBeforeServing, proveAssistedDelivery, replay } from "./assistedDelivery.js";
import { launch, pendingRun, resumeRun, runAndWait } from "./assistedRuns.js";

export function createAssistedSearch(deps: AssistedSearchDeps) {
  const { db, clock } = deps;
  const ctx: AssistedContext = { deps, taskQueue: deps.taskQueue ?? TASK_QUEUE, pollMs: deps.pollMs ?? 150 };

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
      if (!idem) return runAndWait(ctx, auth, request, options, started);
      // a replay is authorized like a fresh request: the key's scope over the body's collections, before the claim
      resolveTargets(deps.catalog, auth, request.collections);
      const bodyHash = createHash("sha256").update(`assisted\u0000${idem.bodyHash}`).digest("hex");
      const claim = await guarded("the idempotency store", () =>
        claimIdempotencyKey(db, auth.org.id, idem.key, bodyHash, clock(), "assisted search"),
      );
      if (claim.kind === "replay") return replay(ctx, auth, claim.queryId, started);
      try {
        return await runAndWait(ctx, auth, request, { ...options, idempotencyKey: idem.key }, started);
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
        const launched = await launch(ctx, auth, request, options, started, true);
        return "answer" in launched ? launched : { queryId: launched.queryId, status: "running" };
      }
      resolveTargets(deps.catalog, auth, request.collections);
      const bodyHash = createHash("sha256").update(`assisted-async\u0000${idem.bodyHash}`).digest("hex");
      const claim = await guarded("the idempotency store", () =>
        claimIdempotencyKey(db, auth.org.id, idem.key, bodyHash, clock(), "assisted search"),
      );
      if (claim.kind === "replay") return { queryId: claim.queryId, status: "running", idempotency: "replayed" };
      try {
        const launched = await launch(ctx, auth, request, { ...options, idempotencyKey: idem.key }, started, true);
        return "answer" in launched
          ? launched
          : { queryId: launched.queryId, status: "running", idempotency: "created" };
      } catch (err) {
        await releaseIdempotencyKey(db, auth.org.id, idem.key).catch(() => undefined);
        throw err;
      }
    },

    pending: (auth: AuthContext, queryId: string) => pendingRun(ctx, auth, queryId),

    /** The answer to a clarification question: the same run resumes with it, and this call waits for its outcome. */
    resume: (auth: AuthContext, queryId: string, answer: string, options: { onProgress?: ProgressListener } = {}) =>
      resumeRun(ctx, auth, queryId, answer, options),

    /** The answer of an earlier run by this key (GET /results serves the rows; this serves the assisted shape). */
    async load(auth: AuthContext, queryId: string): Promise<AssistedAnswer> {
      const record = await loadOwnQueryRecord(db, auth.key.id, queryId, clock());
      await deliveredBeforeServing(ctx, record);
      return answerFromRecord(ctx, auth, record, performance.now(), false);
    },

    /**
     * Proof that a charged answer reached its caller (its response was flushed in full): its run stops waiting and the
     * charge stands. Sent after the response, so nothing is left to tell the caller; a run not waiting ignores it.
     */
    async confirmDelivery(queryId: string): Promise<void> {
      await proveAssistedDelivery(ctx.deps.client, queryId);
    },

    deliveredBeforeServing: (record: QueryRecord) => deliveredBeforeServing(ctx, record),
  };
}

export type AssistedSearch = ReturnType<typeof createAssistedSearch>;
