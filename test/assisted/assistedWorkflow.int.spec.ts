// Every branch of the assisted-search workflow, on Temporal's time-skipping test server with stub activities (the
// samples-typescript workflows-mocks pattern): enough verified in round one, a replan while too few verify (fresh
// candidates only, the searched sub-questions told to the planner), a plan that runs dry, the round cap, a
// clarification answered and one that expires, the charge deadline passed, a charged answer delivered or refunded,
// nothing charged, and a business answer that fails the run without a retry. The activities themselves are tested over
// the real stack (assistedSearch.e2e, clarificationWait.int, deliveryRefund.int); here only the workflow's decisions
// are.
import { describe, expect, it } from "vitest";
import { ApplicationFailure } from "@temporalio/activity";
import { WorkflowFailedError, type WorkflowHandle } from "@temporalio/client";
import { clearCalls, recorded, useStubWorker } from "../support/stubWorker.js";
import { assistedSearchWorkflow } from "../../workflows/assisted.js";
import {
  answerUpdate,
  deliveredUpdate,
  MAX_ROUNDS,
  progressQuery,
  type AssistedCandidate,
  type AssistedInput,
  type AssistedOutcome,
  type AssistedProgress,
  type ChargeAssistedInput,
  type ChargeAssistedOutcome,
  type RefundUndeliveredInput,
  type SearchPlanInput,
  type SearchPlanOutcome,
  type UnderstandOutcome,
} from "../../workflows/assistedTypes.js";
import type { AssistedActivities } from "../../activities/assisted.js";
import type { PlanInput, UnderstandInput, Verdict } from "../../src/reasoner/port.js";
import type { CachedRow } from "../../src/domain/resultRow.js";

const TASK_QUEUE = "assisted-workflow-stubs";
const HOUR_MS = 3_600_000;

/** What the stub activities answer in the current test, and every call they received. */
interface Script {
  understand(input: UnderstandInput): UnderstandOutcome;
  plan(input: PlanInput): string[];
  /** document ids the search of a sub-question finds, best first */
  search(input: SearchPlanInput): string[];
  /** documents the judge verifies */
  relevant: Set<string>;
  charge(input: ChargeAssistedInput): ChargeAssistedOutcome;
}

const calls = {
  understand: [] as UnderstandInput[],
  plan: [] as PlanInput[],
  search: [] as SearchPlanInput[],
  judged: [] as string[][],
  charge: [] as ChargeAssistedInput[],
  refund: [] as RefundUndeliveredInput[],
};
let script: Script;

function understanding(subQuestions: string[], extra: Partial<UnderstandOutcome> = {}): UnderstandOutcome {
  return {
    intent: "test",
    entities: [],
    aspects: [],
    caseSummary: "test",
    filters: {},
    subQuestions,
    queryFilter: null,
    clarification: null,
    reasoner: "builtin",
    ...extra,
  };
}

function rowOf(doc: string, relevance: number): CachedRow {
  return {
    id: `${doc}#0`,
    collection: "scifact",
    physical: "scifact",
    text: doc,
    teaser: doc,
    metadata: { doc_id: doc },
    relevance,
    tokens: 10,
    costMicros: "10",
    pricePer1000Micros: "1000",
    figureCount: 0,
  } as CachedRow;
}

const charged = (input: ChargeAssistedInput, micros: string): ChargeAssistedOutcome => ({
  deliveredIds: input.rows.map((r) => r.candidate.row.id),
  withheldByMaxCost: 0,
  chargedMicros: micros,
  tokensCharged: 0,
  balanceMicros: "0",
});

const stubs: AssistedActivities = {
  understandQuery: recorded(calls.understand, (input) => script.understand(input)),
  planRound: recorded(calls.plan, (input) => script.plan(input)),
  async searchSubQuestion(input): Promise<SearchPlanOutcome> {
    calls.search.push(input);
    const candidates: AssistedCandidate[] = script
      .search(input)
      .map((doc, rank) => ({ row: rowOf(doc, 1 - rank / 100), subQuestion: input.subQuestion, rank }));
    return { candidates, filterWarnings: [], journalMetricExpansions: [] };
  },
  async judgeCandidates(input) {
    calls.judged.push(input.candidates.map((c) => c.row.id));
    return input.candidates.map((c): Verdict => {
      const verified = script.relevant.has(c.row.text);
      return { id: c.row.id, judgeScore: verified ? 0.9 : 0.1, matchedTerms: [], rationale: "stub", verified };
    });
  },
  chargeAssisted: recorded(calls.charge, (input) => script.charge(input)),
  refundUndelivered: recorded(calls.refund, () => undefined),
};

const harness = useStubWorker(TASK_QUEUE, stubs);

let runs = 0;

function inputOf(overrides: Partial<AssistedInput> = {}): AssistedInput {
  runs += 1;
  return {
    orgId: "org",
    keyId: "key",
    queryId: `q${runs}`,
    query: "does x cause y",
    collections: ["scifact"],
    filters: null,
    limit: 2,
    allowClarification: true,
    chargeDeadline: Date.now() + 24 * HOUR_MS * 3,
    ...overrides,
  };
}

/**
 * Starts a run with fresh call records and the given script (defaults: one sub-question, nothing verified, 0 charged).
 */
async function start(
  partial: Partial<Script>,
  input: AssistedInput = inputOf(),
): Promise<WorkflowHandle<typeof assistedSearchWorkflow>> {
  clearCalls(calls);
  script = {
    understand: () => understanding(["x and y"]),
    plan: () => [],
    search: () => [],
    relevant: new Set(),
    charge: (i) => charged(i, "0"),
    ...partial,
  };
  return harness.env.client.workflow.start(assistedSearchWorkflow, {
    taskQueue: TASK_QUEUE,
    workflowId: `assisted-stub-${input.queryId}`,
    args: [input],
  });
}

async function run(partial: Partial<Script>, input?: AssistedInput): Promise<AssistedOutcome> {
  return (await start(partial, input)).result();
}

/** Queries the run's progress until `done` holds (the stub activities answer at once; time does not move meanwhile). */
async function progressUntil(
  handle: WorkflowHandle,
  done: (p: AssistedProgress) => boolean,
): Promise<AssistedProgress> {
  for (let i = 0; i < 200; i++) {
    const progress = await handle.query(progressQuery);
    if (done(progress)) return progress;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error("the run never reached the expected progress");
}

describe("the assisted-search workflow with stub activities", () => {
  it("round one verifies enough: no replan, one judge call, one charge for the verified rows best first", async () => {
    const outcome = await run({
      search: () => ["a", "b", "c"],
      relevant: new Set(["a", "b"]),
      charge: (i) => charged(i, "0"),
    });
    expect(outcome).toMatchObject({ status: "results", iterationsRun: 1, delivery: "nothing_charged" });
    expect(calls.plan).toHaveLength(0);
    expect(calls.judged).toEqual([["a#0", "b#0", "c#0"]]);
    expect(calls.charge).toHaveLength(1);
    expect(calls.charge[0]!.rows.map((r) => r.candidate.row.id)).toEqual(["a#0", "b#0"]);
    expect(calls.charge[0]!).toMatchObject({ status: "results", iterationsRun: 1 });
  });

  it("too few verify: it replans with what it searched, judges fresh candidates only, stops at enough", async () => {
    const outcome = await run({
      understand: () => understanding(["first"]),
      plan: () => ["first", "second"],
      search: (s) => (s.subQuestion === "first" ? ["a", "b"] : ["b", "c"]),
      relevant: new Set(["a", "c"]),
    });
    expect(outcome).toMatchObject({ status: "results", iterationsRun: 2 });
    // the planner is told what round one searched and how many it verified; an already searched sub-question is dropped
    expect(calls.plan).toHaveLength(1);
    expect(calls.plan[0]).toMatchObject({ round: 2, searched: [{ subQuestion: "first", verified: 1 }] });
    expect(calls.search.map((s) => s.subQuestion)).toEqual(["first", "second"]);
    // b was judged in round one: round two judges c alone
    expect(calls.judged).toEqual([["a#0", "b#0"], ["c#0"]]);
    expect(calls.charge[0]!.rows.map((r) => r.candidate.row.id).sort()).toEqual(["a#0", "c#0"]);
  });

  it("a plan that runs dry ends the rounds: no_relevant_results if none verify, still recorded by charge", async () => {
    const outcome = await run({ plan: () => ["x and y"], search: () => ["a"] });
    expect(outcome).toMatchObject({ status: "no_relevant_results", iterationsRun: 1 });
    expect(calls.plan).toHaveLength(1);
    expect(calls.search).toHaveLength(1);
    expect(calls.charge[0]!).toMatchObject({ status: "no_relevant_results", rows: [] });
  });

  it(`stops after ${MAX_ROUNDS} rounds however many new sub-questions the planner has`, async () => {
    const outcome = await run({ plan: (p) => [`round ${p.round}`], search: (s) => [s.subQuestion] });
    expect(outcome).toMatchObject({ status: "no_relevant_results", iterationsRun: MAX_ROUNDS });
    expect(calls.plan.map((p) => p.round)).toEqual([2, 3]);
    expect(calls.search).toHaveLength(MAX_ROUNDS);
  });

  it("a clarification answered: the run waits, rereads the query with the answer, plans by its question", async () => {
    const handle = await start({
      understand: (i) =>
        i.clarificationAnswer === undefined
          ? understanding(["vague"], { clarification: { question: "which outcome?", reason: "vague" } })
          : understanding(["answered"], { question: `x and ${i.clarificationAnswer}` }),
      plan: () => ["answered", "more"],
      search: (s) => [s.subQuestion],
    });
    const waiting = await progressUntil(handle, (p) => p.phase === "awaiting_clarification");
    expect(waiting.clarification).toEqual({ question: "which outcome?", reason: "vague" });
    await harness.env.sleep("23 hours");
    await handle.executeUpdate(answerUpdate, {
      args: [{ answer: "mortality", chargeDeadline: Date.now() + 48 * HOUR_MS }],
    });
    const outcome = await handle.result();
    expect(outcome).toMatchObject({ status: "no_relevant_results" });
    expect(calls.understand.map((u) => u.clarificationAnswer)).toEqual([undefined, "mortality"]);
    expect(calls.plan[0]!.query).toBe("x and mortality");
    expect(calls.search[0]!.subQuestion).toBe("answered");
    // a second answer is refused by the update's validator
    await expect(
      handle.executeUpdate(answerUpdate, { args: [{ answer: "again", chargeDeadline: 0 }] }),
    ).rejects.toThrow();
  });

  it("a clarification never answered: the run ends clarification_expired, nothing searched or charged", async () => {
    const outcome = await run({
      understand: () => understanding(["vague"], { clarification: { question: "which outcome?", reason: "vague" } }),
    });
    expect(outcome).toEqual({ status: "clarification_expired", queryId: `q${runs}` });
    expect(calls.search).toHaveLength(0);
    expect(calls.charge).toHaveLength(0);
  });

  it("a clarification the caller does not allow: the run searches the query as it is", async () => {
    const outcome = await run(
      {
        understand: () => understanding(["vague"], { clarification: { question: "which outcome?", reason: "vague" } }),
        search: () => ["a"],
        relevant: new Set(["a"]),
      },
      inputOf({ allowClarification: false }),
    );
    expect(outcome).toMatchObject({ status: "results", iterationsRun: 1 });
    expect(calls.understand).toHaveLength(1);
  });

  it("the charge deadline passed: the run ends abandoned, the charge step tried once", async () => {
    const outcome = await run({
      search: () => ["a"],
      relevant: new Set(["a"]),
      charge: () => {
        throw ApplicationFailure.create({ type: "CHARGE_DEADLINE_PASSED", message: "the caller was told 503" });
      },
    });
    expect(outcome).toEqual({ status: "abandoned", queryId: `q${runs}` });
    expect(calls.charge).toHaveLength(1);
  });

  it("a charged answer nobody received within the delivery wait: exactly that charge is refunded", async () => {
    const input = inputOf({ deliveryWaitMs: 15 * 60_000 });
    const outcome = await run(
      { search: () => ["a"], relevant: new Set(["a"]), charge: (i) => charged(i, "1234") },
      input,
    );
    expect(outcome).toMatchObject({ status: "results", delivery: "refunded" });
    expect(calls.refund).toEqual([{ orgId: "org", queryId: input.queryId, amountMicros: "1234" }]);
  });

  it("a charged answer delivered within the wait: the charge stands, nothing refunded", async () => {
    const handle = await start(
      { search: () => ["a"], relevant: new Set(["a"]), charge: (i) => charged(i, "1234") },
      inputOf({ deliveryWaitMs: 15 * 60_000 }),
    );
    await progressUntil(handle, (p) => p.delivery === "awaiting");
    await handle.executeUpdate(deliveredUpdate);
    expect(await handle.result()).toMatchObject({ status: "results", delivery: "delivered" });
    expect(calls.refund).toHaveLength(0);
  });

  it("nothing charged (no rows, or a free answer): no wait for delivery, nothing to refund", async () => {
    const outcome = await run({ charge: (i) => charged(i, "0") }, inputOf({ deliveryWaitMs: 15 * 60_000 }));
    expect(outcome).toMatchObject({ status: "no_relevant_results", delivery: "nothing_charged" });
    expect(calls.refund).toHaveLength(0);
  });

  it("a business answer from a step (a collection gone) fails the run at once, without a retry", async () => {
    const handle = await start({
      search: () => {
        throw ApplicationFailure.create({ type: "NOT_FOUND", message: "no collection scifact" });
      },
    });
    const failure = await handle.result().catch((err: unknown) => err);
    expect(failure).toBeInstanceOf(WorkflowFailedError);
    expect(calls.search).toHaveLength(1);
    expect(calls.charge).toHaveLength(0);
  });
});
