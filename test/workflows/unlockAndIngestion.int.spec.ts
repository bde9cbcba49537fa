// The unlock and ingestion workflows' decisions, on Temporal's time-skipping test server with stub activities (the
// samples-typescript workflows-mocks pattern, as test/assisted/assistedWorkflow.int.spec.ts does for assisted search).
// Unlock: the quota decision's rows are what the charge is asked for, under the run's own charge key; rows already
// unlocked still ask the charge (a replayed run reports what it paid); a refused quota charges nothing; a failed charge
// is retried. Ingestion: every staged batch runs once and the counts add up; the finish's counts are the answer and
// what the alerts are told; a failed batch records the failure with its message and never finishes; alerts that
// cannot start never fail the ingestion. Alert run: a step whose worker stops answering (killed) is retried within the
// heartbeat timeout, not after its 5-minute limit. The activities themselves are tested over the real stack (unlock e2e
// files, test/ingest/ingestionWorkflow.e2e.spec.ts, ingestionCrash.e2e.spec.ts, test/alerts).
import { describe, expect, it } from "vitest";
import { ApplicationFailure, Context } from "@temporalio/activity";
import { WorkflowFailedError } from "@temporalio/client";
import { clearCalls, recorded, useStubWorker } from "../support/stubWorker.js";
import { plainCollectionOf } from "../../src/domain/collectionDefinitions.js";
import type { IngestionCounts } from "../../src/domain/events.js";
import { zeroCounts } from "../../src/domain/ingestionCounts.js";
import { unlockWorkflow } from "../../workflows/unlock.js";
import { ingestionWorkflow } from "../../workflows/ingestion.js";
import { alertRunWorkflow } from "../../workflows/alertRun.js";
import type {
  ChargeInput,
  ChargeOutcome,
  QuotaDecision,
  UnlockActivities,
  UnlockInput,
} from "../../workflows/unlockTypes.js";
import type { BatchInput, IngestionActivities, IngestionInput, StagedSource } from "../../workflows/ingestionTypes.js";
import { alertBatchesWorkflow } from "../../workflows/alertBatches.js";
import type {
  AlertActivities,
  AlertBatchInput,
  AlertBatchOutcome,
  AlertRunInput,
  AlertRunStart,
  AlertsAfterIngestionInput,
} from "../../workflows/alertTypes.js";

const TASK_QUEUE = "unlock-ingestion-workflow-stubs";

/** What the stub activities answer in the current test. */
interface Script {
  quota(input: UnlockInput): QuotaDecision;
  charge(input: ChargeInput, attempt: number): ChargeOutcome;
  stage(input: IngestionInput): StagedSource;
  batch(input: BatchInput): IngestionCounts;
  finish(input: IngestionInput): IngestionCounts;
  alerts(input: AlertsAfterIngestionInput): number;
  startRun(input: AlertRunInput, attempt: number): Promise<AlertRunStart>;
  alertBatch(input: AlertBatchInput, attempt: number): AlertBatchOutcome;
}

const calls = {
  quota: [] as UnlockInput[],
  charge: [] as ChargeInput[],
  stage: [] as IngestionInput[],
  batch: [] as BatchInput[],
  finish: [] as IngestionInput[],
  fail: [] as { ingestionId: string; collection: string; error: string }[],
  alerts: [] as AlertsAfterIngestionInput[],
  endRun: [] as { alertId: string; queryId: string; delivered: boolean }[],
  startRun: [] as AlertRunInput[],
  alertBatch: [] as AlertBatchInput[],
};
let script: Script;

const unlockStubs: UnlockActivities = {
  checkUnlockQuota: recorded(calls.quota, (input) => script.quota(input)),
  // the attempt is the number of charge calls so far, this one included
  chargeUnlock: recorded(calls.charge, (input) => script.charge(input, calls.charge.length)),
};

const ingestionStubs: IngestionActivities = {
  stageIngestion: recorded(calls.stage, (input) => script.stage(input)),
  ingestBatch: recorded(calls.batch, (input) => script.batch(input)),
  finishIngestion: recorded(calls.finish, (input) => script.finish(input)),
  failIngestion: recorded(calls.fail, () => undefined),
};

const alertStubs: Omit<AlertActivities, "endAlertRun" | "runAlertBatch"> = {
  startAlertsAfterIngestion: recorded(calls.alerts, (input) => script.alerts(input)),
  startAlertRun: async (input) => {
    calls.startRun.push(input);
    return script.startRun(input, calls.startRun.length);
  },
};

// an ingestion's batches of alert runs run on the alerts' queue only: on the main queue they would never start
const alertBatchStub: Pick<AlertActivities, "runAlertBatch"> = {
  runAlertBatch: async (input) => {
    calls.alertBatch.push(input);
    return script.alertBatch(input, calls.alertBatch.filter((b) => b.from === input.from).length);
  },
};

// a run's charge runs on the delivery queue only: on the main queue it would find no endAlertRun and never end
const chargeStub: Pick<AlertActivities, "endAlertRun"> = {
  endAlertRun: recorded(calls.endRun, (input) => (input.delivered ? "delivered" : "failed")),
};

const harness = useStubWorker(
  TASK_QUEUE,
  { ...unlockStubs, ...ingestionStubs, ...alertStubs },
  chargeStub,
  alertBatchStub,
);

let runs = 0;

/** Fresh call records and the given script (defaults: every requested row fresh, charged 1 each; nothing staged). */
function given(partial: Partial<Script>): void {
  clearCalls(calls);
  script = {
    quota: (input) => ({ freshIds: input.requestedIds }),
    charge: (input) => ({ chargedMicros: String(input.freshIds.length), unlockedIds: input.freshIds }),
    stage: () => ({ batches: 0, documentsRead: 0 }),
    batch: () => zeroCounts(),
    finish: () => zeroCounts(),
    alerts: () => 0,
    startRun: async () => ({ status: "empty" }),
    alertBatch: () => ({ delivered: 0, waiting: 0, empty: 0, skipped: 0 }),
    ...partial,
  };
}

describe("unlock workflow", () => {
  async function unlock(requestedIds: string[]) {
    runs += 1;
    const input: UnlockInput = { orgId: "org", keyId: "key", queryId: `q${runs}`, requestedIds, callId: `call${runs}` };
    const handle = await harness.env.client.workflow.start(unlockWorkflow, {
      taskQueue: TASK_QUEUE,
      workflowId: `unlock-stub-${runs}`,
      args: [input],
    });
    return { input, handle, result: handle.result() };
  }

  it("charges the rows the quota check left fresh, under the run's own charge key, and reports them", async () => {
    given({ quota: () => ({ freshIds: ["b"] }) });
    const { input, handle, result } = await unlock(["a", "b"]);
    expect(await result).toEqual({
      queryId: input.queryId,
      chargedMicros: "1",
      newlyUnlocked: ["b"],
      callId: input.callId,
    });
    expect(calls.charge).toEqual([
      { ...input, freshIds: ["b"], chargeKey: `${handle.workflowId}/${handle.firstExecutionRunId}` },
    ]);
  });

  it("asks the charge even when every row is unlocked already, so a replayed run reports what it paid", async () => {
    given({
      quota: () => ({ freshIds: [] }),
      charge: () => ({ chargedMicros: "7", unlockedIds: ["a"] }),
    });
    const { result } = await unlock(["a"]);
    expect(await result).toMatchObject({ chargedMicros: "7", newlyUnlocked: ["a"] });
    expect(calls.charge.map((c) => c.freshIds)).toEqual([[]]);
  });

  it("charges nothing when the quota refuses: a business answer fails the run at once, without a retry", async () => {
    given({
      quota: () => {
        throw ApplicationFailure.create({ type: "QUOTA_EXCEEDED", message: "monthly quota used up" });
      },
    });
    const failure = await (await unlock(["a"])).result.catch((err: unknown) => err);
    expect(failure).toBeInstanceOf(WorkflowFailedError);
    expect(calls.quota).toHaveLength(1);
    expect(calls.charge).toEqual([]);
  });

  it("retries a charge the store did not answer, with the same charge key, until it answers", async () => {
    given({
      charge: (input, attempt) => {
        if (attempt < 3) throw new Error("the billing store did not answer");
        return { chargedMicros: "1", unlockedIds: input.freshIds };
      },
    });
    const { result } = await unlock(["a"]);
    expect(await result).toMatchObject({ chargedMicros: "1", newlyUnlocked: ["a"] });
    expect(calls.charge).toHaveLength(3);
    expect(new Set(calls.charge.map((c) => c.chargeKey)).size).toBe(1);
  });
});

describe("ingestion workflow", () => {
  const collection = plainCollectionOf({
    name: "papers",
    displayName: "Papers",
    description: "test papers",
    kind: "scholarly",
    retrieval: "sparse",
    pricePer1000: "0.050000",
    openAccessOnly: false,
    scanFilterable: true,
    source: { reader: "jsonl", files: ["papers.jsonl"] },
  });
  const counts = (partial: Partial<IngestionCounts>): IngestionCounts => ({ ...zeroCounts(), ...partial });

  async function ingest(parallelism = 2) {
    runs += 1;
    const input: IngestionInput = {
      ingestionId: `ing${runs}`,
      collection,
      files: ["papers.jsonl"],
      mode: "upsert",
      batchSize: 10,
      parallelism,
      batchTaskQueue: TASK_QUEUE,
    };
    const result = harness.env.client.workflow.execute(ingestionWorkflow, {
      taskQueue: TASK_QUEUE,
      workflowId: `ingestion-stub-${runs}`,
      args: [input],
    });
    return { input, result };
  }

  it("runs every staged batch once, and answers the finish's counts, which the alerts are told", async () => {
    const finished = counts({ documentsRead: 25, documentsAdded: 25, chunksIndexed: 40 });
    given({
      stage: () => ({ batches: 3, documentsRead: 25 }),
      batch: (b) => counts({ documentsAdded: b.batch === 2 ? 5 : 10 }),
      finish: () => finished,
    });
    const { input, result } = await ingest();
    expect(await result).toEqual(finished);
    expect(calls.batch.map((b) => b.batch).sort()).toEqual([0, 1, 2]);
    expect(calls.batch.every((b) => b.ingestionId === input.ingestionId)).toBe(true);
    expect(calls.finish).toHaveLength(1);
    expect(calls.alerts).toEqual([{ ingestionId: input.ingestionId, collection: "papers", counts: finished }]);
    expect(calls.fail).toEqual([]);
  });

  it("finishes an ingestion that staged no batch without running one", async () => {
    given({});
    await (
      await ingest()
    ).result;
    expect(calls.batch).toEqual([]);
    expect(calls.finish).toHaveLength(1);
  });

  it("records a failed batch with its own message, never finishes, and fails the run", async () => {
    given({
      stage: () => ({ batches: 2, documentsRead: 20 }),
      batch: (b) => {
        if (b.batch === 1) throw ApplicationFailure.create({ type: "VALIDATION_ERROR", message: "line 7 is not JSON" });
        return counts({ documentsAdded: 10 });
      },
    });
    const { input, result } = await ingest(1);
    expect(await result.catch((err: unknown) => err)).toBeInstanceOf(WorkflowFailedError);
    expect(calls.fail).toEqual([{ ingestionId: input.ingestionId, collection: "papers", error: "line 7 is not JSON" }]);
    expect(calls.finish).toEqual([]);
    expect(calls.alerts).toEqual([]);
  });

  it("completes when the alerts after it cannot start", async () => {
    given({
      finish: () => counts({ documentsAdded: 1 }),
      alerts: () => {
        throw ApplicationFailure.create({ type: "NOT_FOUND", message: "no alerts", nonRetryable: true });
      },
    });
    expect(await (await ingest()).result).toEqual(counts({ documentsAdded: 1 }));
    expect(calls.alerts).toHaveLength(1);
    expect(calls.fail).toEqual([]);
  });
});

describe("alert run workflow", () => {
  it("retries a step whose worker stops answering within the heartbeat timeout, not its 5-minute limit", async () => {
    given({
      // the first attempt's worker is gone: no answer and no heartbeat (it gives up when the worker shuts down)
      startRun: async (_input, attempt) => {
        if (attempt === 1) await Context.current().sleep(300_000);
        return { status: "empty" };
      },
    });
    runs += 1;
    const started = Date.now();
    const result = await harness.env.client.workflow.execute(alertRunWorkflow, {
      taskQueue: TASK_QUEUE,
      workflowId: `alert-run-stub-${runs}`,
      args: [{ alertId: "alert", queryId: `q${runs}`, trigger: "test", deliveryWaitMs: 1000 }],
    });
    expect(result).toBe("empty");
    expect(calls.startRun).toHaveLength(2);
    // the time-skipping server does not skip an activity's time: the retry came after the 10 s heartbeat timeout
    expect(Date.now() - started).toBeLessThan(60_000);
  }, 120_000);

  it("charges a sent run on the delivery queue, never behind the main queue's searches", async () => {
    given({ startRun: async () => ({ status: "sent", works: 2 }) });
    runs += 1;
    const result = await harness.env.client.workflow.execute(alertRunWorkflow, {
      taskQueue: TASK_QUEUE,
      workflowId: `alert-run-stub-${runs}`,
      args: [{ alertId: "alert", queryId: `q${runs}`, trigger: "test", deliveryWaitMs: 1000 }],
    });
    // no proof of delivery came within the wait: ended unpaid, by the delivery queue's worker
    expect(result).toBe("failed");
    expect(calls.endRun).toEqual([{ alertId: "alert", queryId: `q${runs}`, delivered: false }]);
  }, 120_000);
});

describe("an ingestion's alert batches workflow", () => {
  it("runs every batch once, its range ending where the next begins, retries a failed one, and sums them", async () => {
    const bounds = Array.from({ length: 11 }, (_, k) => `al_${String(k).padStart(24, "0")}`);
    given({
      alertBatch: (input, attempt) => {
        // the fourth batch's worker fails once: retried, counted once
        if (input.from === bounds[3] && attempt === 1) throw new Error("the store did not answer");
        return { delivered: 3, waiting: 1, empty: 1, skipped: input.to === null ? 2 : 0 };
      },
    });
    runs += 1;
    const result = await harness.env.client.workflow.execute(alertBatchesWorkflow, {
      taskQueue: TASK_QUEUE,
      workflowId: `alert-batches-stub-${runs}`,
      args: [{ ingestionId: `ing-${runs}`, collection: "reef", plannedAt: "2026-12-01T00:00:00.000Z", bounds }],
    });
    expect(result).toEqual({ delivered: 33, waiting: 11, empty: 11, skipped: 2 });
    const ranges = new Map(calls.alertBatch.map((b) => [b.from, b.to]));
    expect([...ranges.keys()].sort()).toEqual(bounds);
    for (const [k, from] of bounds.entries()) expect(ranges.get(from)).toBe(bounds[k + 1] ?? null);
    expect(calls.alertBatch).toHaveLength(12);
    expect(calls.alertBatch.every((b) => b.ingestionId === `ing-${runs}` && b.collection === "reef")).toBe(true);
  }, 120_000);
});
