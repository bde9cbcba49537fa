// The clarification wait of assisted search on Temporal's time-skipping test server: the real workflow and activities
// (event store, embedded engine, embedding model, built-in reasoner) and the real use case. The question waits 24
// hours: answered after 23 the same run resumes and charges once; unanswered after 24 the run ends, nothing charged,
// and a late answer is refused.
import { describe, expect, it } from "vitest";
import { useAssistedTimeSkipping } from "../support/assistedTimeSkipping.js";
import { assistedWorkflowId } from "../../src/usecases/assisted/assistedContext.js";
import { progressQuery } from "../../workflows/assistedTypes.js";
import { Rejection } from "../../src/domain/rejection.js";

const TASK_QUEUE = "assisted-time-skipping";
const HOUR_MS = 3_600_000;

const h = useAssistedTimeSkipping({ taskQueue: TASK_QUEUE, deliveryWaitMs: 15 * 60_000 });

const charges = async (queryId: string) =>
  (
    await h.svc.runtime.db.query<{ n: number }>(
      `SELECT count(*)::int AS n FROM events WHERE type = 'SearchCharged' AND data->>'queryId' = $1`,
      [queryId],
    )
  )[0]!.n;

describe("the clarification wait", () => {
  it("answered after 23 hours: the same run resumes with the answer and charges once", async () => {
    const { auth } = await h.caller();
    const asked = await h.assisted.start(auth, {
      collections: ["scifact"],
      query: "treatment",
      limit: 5,
      filters: null,
      allowClarification: true,
    });
    expect(asked.status).toBe("clarification_needed");
    const handle = h.client.workflow.getHandle(assistedWorkflowId(asked.queryId));
    const waiting = await handle.query(progressQuery);
    expect(waiting.phase).toBe("awaiting_clarification");
    expect(waiting.clarificationExpiresAt! - (await h.env.currentTimeMs())).toBeGreaterThan(23 * HOUR_MS);

    await h.env.sleep("23 hours");
    expect((await handle.query(progressQuery)).phase).toBe("awaiting_clarification");
    const answered = await h.assisted.resume(auth, asked.queryId, "insulin resistance and type 2 diabetes in obesity");
    expect(answered.queryId).toBe(asked.queryId);
    expect(["results", "no_relevant_results"]).toContain(answered.status);
    expect((await handle.describe()).runId).toBe(
      (await h.client.workflow.getHandle(assistedWorkflowId(asked.queryId)).describe()).runId,
    );
    expect(await charges(asked.queryId)).toBe(1);
  }, 180_000);

  it("unanswered for 24 hours: the run ends with nothing charged, and a late answer is refused", async () => {
    const { auth, orgId } = await h.caller();
    const asked = await h.assisted.start(auth, {
      collections: ["scifact"],
      query: "outcomes",
      limit: 5,
      filters: null,
      allowClarification: true,
    });
    expect(asked.status).toBe("clarification_needed");
    const handle = h.client.workflow.getHandle(assistedWorkflowId(asked.queryId));
    const wallStart = performance.now();
    await h.env.sleep("24 hours");
    const outcome = await handle.result();
    expect(outcome.status).toBe("clarification_expired");
    // 24 hours skipped in seconds of wall time
    expect(performance.now() - wallStart).toBeLessThan(30_000);
    const late = await h.assisted.resume(auth, asked.queryId, "insulin resistance").catch((err: unknown) => err);
    expect(late).toBeInstanceOf(Rejection);
    expect((late as Rejection).code).toBe("CONFLICT");
    expect(await charges(asked.queryId)).toBe(0);
    expect((await h.svc.runtime.accounts.getOrganization(orgId))!.balanceMicros).toBe(10_000_000n);
  }, 180_000);
});
