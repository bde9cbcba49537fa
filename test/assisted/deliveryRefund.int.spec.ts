// The delivery step of assisted search on Temporal's time-skipping test server: the real workflow, activities and use
// case on the real event store. A charged answer whose response was never written (the API process died between the
// charge and the response: no proof of delivery ever comes) is refunded, exactly, once, after the 15-minute wait; a
// delivered one, a re-fetched one, keeps its charge; a clarification answered is not a delivery.
import { describe, expect, it } from "vitest";
import { useAssistedTimeSkipping } from "../support/assistedTimeSkipping.js";
import { assistedWorkflowId } from "../../src/usecases/assisted/assistedContext.js";
import { deliveredUpdate, type AssistedOutcome } from "../../workflows/assistedTypes.js";
import { Rejection } from "../../src/domain/rejection.js";
import { replayProjections } from "../../projections/replay.js";
import { verifyChain } from "../../src/eventstore/eventStore.js";
import { loadQueryRecord } from "../../src/usecases/search/queryCache.js";

const TASK_QUEUE = "assisted-delivery-time-skipping";
const DELIVERY_WAIT_MS = 15 * 60_000;
const QUERY = "How does obesity lead to insulin resistance and type 2 diabetes?";

const h = useAssistedTimeSkipping({ taskQueue: TASK_QUEUE, deliveryWaitMs: DELIVERY_WAIT_MS });

const balanceOf = async (orgId: string) => (await h.svc.runtime.accounts.getOrganization(orgId))!.balanceMicros;
const refundsOf = (queryId: string) =>
  h.svc.runtime.db.query<{ amount: string; reference: string }>(
    `SELECT data->>'amountMicros' AS amount, data->>'reference' AS reference FROM events WHERE type = ` +
      `'RefundIssued' AND data->>'queryId' = $1`,
    [queryId],
  );
const ledgerOf = (orgId: string, queryId: string) =>
  h.svc.runtime.db.query<{ type: string; amount: string }>(
    `SELECT type, amount_micros::text AS amount FROM proj_ledger WHERE org_id = $1 AND query_id = $2 ORDER BY type`,
    [orgId, queryId],
  );

/** Skips past the delivery wait and reads how the run ended. */
async function pastTheWait(queryId: string): Promise<AssistedOutcome> {
  await h.env.sleep(DELIVERY_WAIT_MS + 60_000);
  return h.client.workflow.getHandle(assistedWorkflowId(queryId)).result();
}

async function expectStoreConsistent(): Promise<void> {
  expect((await verifyChain(h.svc.runtime.db)).ok).toBe(true);
  expect((await replayProjections(h.svc.runtime.db)).equal).toBe(true);
}

describe("an assisted answer that never reached its caller", () => {
  it("is refunded after the wait: its charge, once, tied to the query; balance whole, answer gone (410)", async () => {
    const { auth, orgId } = await h.caller();
    const answer = await h.assisted.start(auth, {
      collections: ["scifact"],
      query: QUERY,
      limit: 3,
      filters: null,
      allowClarification: false,
    });
    // the charge is in the store: this is the moment the API process died, before any response byte was written
    expect(answer.status).toBe("results");
    expect(answer.awaitsDelivery).toBe(true);
    const cost = answer.billing.costMicros;
    expect(cost).toBeGreaterThan(0n);
    expect(await balanceOf(orgId)).toBe(10_000_000n - cost);

    const outcome = await pastTheWait(answer.queryId);
    expect(outcome.status === "results" && outcome.delivery).toBe("refunded");
    const refunds = await refundsOf(answer.queryId);
    expect(refunds).toEqual([{ amount: cost.toString(), reference: "assisted answer not delivered: charge refunded" }]);
    expect(await balanceOf(orgId)).toBe(10_000_000n);
    expect(await ledgerOf(orgId, answer.queryId)).toEqual([
      { type: "charge", amount: (-cost).toString() },
      { type: "refund", amount: cost.toString() },
    ]);
    // the record says so, and the answer is never served afterwards: not by re-fetch, not by the proof coming late
    expect((await loadQueryRecord(h.svc.runtime.db, answer.queryId))!.refundedUndeliveredAt).toBeInstanceOf(Date);
    const refetch = await h.assisted.load(auth, answer.queryId).catch((e: unknown) => e);
    expect(refetch).toBeInstanceOf(Rejection);
    expect((refetch as Rejection).code).toBe("CACHED_RESULT_EXPIRED");
    expect((refetch as Rejection).message).toMatch(/refunded/);
    await h.assisted.confirmDelivery(answer.queryId);
    expect(await refundsOf(answer.queryId)).toHaveLength(1);
    expect(await balanceOf(orgId)).toBe(10_000_000n);
    await expectStoreConsistent();
  }, 300_000);

  it("delivered (its response flushed): the charge stands, no refund, however long after", async () => {
    const { auth, orgId } = await h.caller();
    const answer = await h.assisted.start(auth, {
      collections: ["scifact"],
      query: QUERY,
      limit: 3,
      filters: null,
      allowClarification: false,
    });
    expect(answer.awaitsDelivery).toBe(true);
    await h.assisted.confirmDelivery(answer.queryId);
    const outcome = await pastTheWait(answer.queryId);
    expect(outcome.status === "results" && outcome.delivery).toBe("delivered");
    expect(await refundsOf(answer.queryId)).toHaveLength(0);
    expect(await balanceOf(orgId)).toBe(10_000_000n - answer.billing.costMicros);
    expect((await h.assisted.load(auth, answer.queryId)).rows.length).toBe(answer.rows.length);
    await expectStoreConsistent();
  }, 300_000);

  it("re-fetched by its queryId during the wait (GET /results): that is its delivery, the charge stands", async () => {
    const { auth, orgId } = await h.caller();
    const answer = await h.assisted.start(auth, {
      collections: ["scifact"],
      query: QUERY,
      limit: 3,
      filters: null,
      allowClarification: false,
    });
    await h.env.sleep(10 * 60_000);
    const refetched = await h.assisted.load(auth, answer.queryId);
    expect(refetched.queryId).toBe(answer.queryId);
    const outcome = await pastTheWait(answer.queryId);
    expect(outcome.status === "results" && outcome.delivery).toBe("delivered");
    expect(await refundsOf(answer.queryId)).toHaveLength(0);
    expect(await balanceOf(orgId)).toBe(10_000_000n - answer.billing.costMicros);
  }, 300_000);

  it("a clarification question sent is not a delivery: answered, charged, never delivered, refunded", async () => {
    const { auth, orgId } = await h.caller();
    const asked = await h.assisted.start(auth, {
      collections: ["scifact"],
      query: "treatment",
      limit: 3,
      filters: null,
      allowClarification: true,
    });
    expect(asked.status).toBe("clarification_needed");
    // the clarification's response was written: a proof of delivery now is refused, nothing is charged yet
    const early = await h.client.workflow
      .getHandle(assistedWorkflowId(asked.queryId))
      .executeUpdate(deliveredUpdate)
      .catch((e: unknown) => e);
    expect(early).toBeInstanceOf(Error);
    const answer = await h.assisted.resume(auth, asked.queryId, "insulin resistance and type 2 diabetes in obesity");
    if (answer.billing.costMicros === 0n)
      throw new Error(`the resumed run charged nothing (${answer.status}); the test needs a charged answer`);
    const outcome = await pastTheWait(asked.queryId);
    expect(outcome.status !== "abandoned" && outcome.status !== "clarification_expired" && outcome.delivery).toBe(
      "refunded",
    );
    expect(await refundsOf(asked.queryId)).toHaveLength(1);
    expect(await balanceOf(orgId)).toBe(10_000_000n);
    await expectStoreConsistent();
  }, 300_000);
});
