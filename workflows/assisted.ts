// Assisted search: understand the query, ask when it must, plan searches, fan them out, verify every candidate,
// replan while too few verify, then charge once for the delivered rows, and refund that charge if the answer never
// reaches its caller (assistedDelivery.ts). Deterministic; activities do the I/O.
import { condition, patched, proxyActivities, setHandler } from "@temporalio/workflow";
import {
  type AssistedActivities,
  answerUpdate,
  CLARIFICATION_WAIT_MS,
  MAX_ROUNDS,
  type AssistedCandidate,
  type AssistedInput,
  type AssistedOutcome,
  type ClarificationAnswer,
  type UnderstandOutcome,
  type VerifiedRow,
} from "./assistedTypes.js";
import { BUSINESS_ANSWERS } from "./shared.js";
import { CANDIDATES_PER_CALL, candidatesPerSubQuestion } from "./candidateBudget.js";
import { deliverable, distinctDocuments, type WorkKeys } from "./deliverableRows.js";
import { awaitDelivery } from "./assistedDelivery.js";
import { AssistedProgressBoard } from "./assistedProgress.js";
import type { WebhookActivities } from "./webhookTypes.js";
import { formatCredits } from "../src/domain/money.js";

// Reading and judging are CPU work on the worker; a worker that dies mid-step has the step retried on another.
const { understandQuery, planRound, judgeCandidates } = proxyActivities<AssistedActivities>({
  startToCloseTimeout: "20 seconds",
  retry: {
    initialInterval: "200 milliseconds",
    maximumInterval: "2 seconds",
    maximumAttempts: 5,
    nonRetryableErrorTypes: BUSINESS_ANSWERS,
  },
});

// One search per sub-question, all in parallel; a rejected filter or a missing collection is final.
const { searchSubQuestion } = proxyActivities<AssistedActivities>({
  startToCloseTimeout: "15 seconds",
  retry: {
    initialInterval: "200 milliseconds",
    maximumInterval: "2 seconds",
    maximumAttempts: 5,
    nonRetryableErrorTypes: BUSINESS_ANSWERS,
  },
});

// The charge is idempotent by the query id, so it retries until the store answers or the deadline passes.
const { chargeAssisted } = proxyActivities<AssistedActivities>({
  startToCloseTimeout: "15 seconds",
  retry: {
    initialInterval: "100 milliseconds",
    maximumInterval: "2 seconds",
    maximumAttempts: 20,
    nonRetryableErrorTypes: [...BUSINESS_ANSWERS, "CHARGE_DEADLINE_PASSED"],
  },
});

// Telling the webhooks is idempotent by the event's source (the query id and the status), so it retries freely.
const { publishWebhookEvent } = proxyActivities<WebhookActivities>({
  startToCloseTimeout: "15 seconds",
  retry: { initialInterval: "200 milliseconds", maximumInterval: "10 seconds", maximumAttempts: 30 },
});

/**
 * How this run tells works apart and which record of a work it sells (deliverableRows.ts): a run begun before the
 * original record was preferred, before titles or passages were keyed, or before works were told apart by every key
 * (DOI, PMID, the collection's id), replays as it ran.
 */
const workKeys = (): WorkKeys =>
  patched("work-original-record")
    ? "original"
    : patched("work-title-keys")
      ? "title"
      : patched("work-passage-keys")
        ? "passage"
        : patched("work-keys")
          ? "all"
          : "documentOf";

/** An asynchronous run tells the organization's `assisted.completed` endpoints how it stands (never the rows). */
async function announce(input: AssistedInput, status: string, extra: Record<string, unknown>): Promise<void> {
  if (!input.announce) return;
  await publishWebhookEvent({
    orgId: input.orgId,
    type: "assisted.completed",
    source: `assisted:${input.queryId}:${status}`,
    data: { queryId: input.queryId, status, resultsUrl: `/api/v1/search/results/${input.queryId}`, ...extra },
  });
}

/** Sub-questions searched in one round at most. */
const SEARCHES_PER_ROUND = 4;

export async function assistedSearchWorkflow(input: AssistedInput): Promise<AssistedOutcome> {
  let chargeDeadline = input.chargeDeadline;
  let answer: string | undefined;
  const progress = new AssistedProgressBoard(input.keyId);
  setHandler(
    answerUpdate,
    (a: ClarificationAnswer) => {
      answer = a.answer;
      chargeDeadline = a.chargeDeadline;
    },
    {
      validator: (_a: ClarificationAnswer) => {
        if (!progress.awaitingClarification || answer !== undefined)
          throw new Error("this assisted search is not waiting for a clarification");
      },
    },
  );

  let understanding: UnderstandOutcome = await understandQuery({ query: input.query, callerFilters: input.filters });
  progress.understood(stripped(understanding));
  if (understanding.clarification && input.allowClarification) {
    progress.asking(understanding.clarification, Date.now() + CLARIFICATION_WAIT_MS);
    await announce(input, "needs_clarification", {
      clarification: understanding.clarification,
      expiresAt: new Date(Date.now() + CLARIFICATION_WAIT_MS).toISOString(),
    });
    const answered = await condition(() => answer !== undefined, CLARIFICATION_WAIT_MS);
    if (!answered) {
      progress.done();
      await announce(input, "clarification_expired", {});
      return { status: "clarification_expired", queryId: input.queryId };
    }
    progress.answered();
    understanding = await understandQuery({
      query: input.query,
      callerFilters: input.filters,
      clarificationAnswer: answer,
    });
    progress.understood(stripped(understanding));
  }

  // after a clarification the answer leads: the plan and the judge read the question it makes, not the vague query
  const question = understanding.question ?? input.query;
  const verified = new Map<string, VerifiedRow>();
  const searched: { subQuestion: string; verified: number }[] = [];
  const judged = new Set<string>();
  const filterWarnings: unknown[] = [];
  const journalMetricExpansions: unknown[] = [];
  let rounds = 0;
  for (let round = 1; round <= MAX_ROUNDS; round++) {
    const subQuestions = (
      round === 1
        ? understanding.subQuestions
        : await planRound({ query: question, understanding: stripped(understanding), round, searched })
    )
      .filter((q) => !searched.some((s) => s.subQuestion === q))
      .slice(0, SEARCHES_PER_ROUND);
    if (subQuestions.length === 0) break;
    rounds = round;
    progress.searching(round);
    const found = await Promise.all(
      subQuestions.map((subQuestion) =>
        searchSubQuestion({
          orgId: input.orgId,
          keyId: input.keyId,
          collections: input.collections,
          subQuestion,
          callerFilters: input.filters,
          queryFilter: understanding.queryFilter,
          limit: candidatesPerSubQuestion(subQuestions.length),
        }),
      ),
    );
    progress.searched(subQuestions.length);
    if (round === 1) {
      // every search of the plan applies the same filters: the first round's warnings say all there is to say
      filterWarnings.push(...(found[0]?.filterWarnings ?? []));
      journalMetricExpansions.push(...(found[0]?.journalMetricExpansions ?? []));
    }
    // the judge weighs one pool per round, as it was calibrated: the best CANDIDATES_PER_CALL by retrieval score
    const fresh = firstSighting(
      found.flatMap((f) => f.candidates),
      judged,
    );
    progress.verifying();
    const verdicts =
      fresh.length > 0
        ? await judgeCandidates({ query: question, understanding: stripped(understanding), candidates: fresh })
        : [];
    const perQuestion = new Map<string, number>();
    verdicts.forEach((verdict, i) => {
      const candidate = fresh[i]!;
      if (!verdict.verified) return;
      verified.set(candidate.row.id, { candidate, verdict });
      perQuestion.set(candidate.subQuestion, (perQuestion.get(candidate.subQuestion) ?? 0) + 1);
    });
    for (const q of subQuestions) searched.push({ subQuestion: q, verified: perQuestion.get(q) ?? 0 });
    progress.judged(fresh.length, verified.size);
    if (distinctDocuments([...verified.values()], workKeys()) >= input.limit) break;
  }

  const rows = deliverable([...verified.values()], input.limit, workKeys());
  const status = rows.length > 0 ? "results" : "no_relevant_results";
  progress.charging();
  try {
    const charge = await chargeAssisted({
      input: { ...input, chargeDeadline },
      status,
      rows,
      understanding: stripped(understanding),
      reasoner: understanding.reasoner,
      iterationsRun: rounds,
      filterWarnings,
      journalMetricExpansions,
      screened: {
        candidatesJudged: judged.size,
        worksVerified: distinctDocuments([...verified.values()], workKeys()),
      },
    });
    progress.done();
    // waiting for proof of delivery starts before the webhook goes out, so its 2xx always finds the run waiting
    const delivered = awaitDelivery(input, charge, progress.state);
    await announce(input, status, {
      resultCount: charge.deliveredIds.length,
      billing: {
        charged: formatCredits(BigInt(charge.chargedMicros)),
        tokensCharged: charge.tokensCharged,
        withheldByMaxCost: charge.withheldByMaxCost,
      },
    });
    const delivery = await delivered;
    return { status, queryId: input.queryId, iterationsRun: rounds, charge, delivery };
  } catch (err) {
    progress.done();
    if (isDeadlinePassed(err)) return { status: "abandoned", queryId: input.queryId };
    throw err;
  }
}

/** The understanding as the client sees it: without the reasoner's internals. */
function stripped(u: UnderstandOutcome) {
  return {
    intent: u.intent,
    entities: u.entities,
    aspects: u.aspects,
    caseSummary: u.caseSummary,
    filters: u.filters,
    subQuestions: u.subQuestions,
  };
}

/** Each chunk once, under the sub-question that ranked it best, and never one an earlier round judged. */
function firstSighting(candidates: AssistedCandidate[], judged: Set<string>): AssistedCandidate[] {
  const best = new Map<string, AssistedCandidate>();
  for (const c of candidates) {
    if (judged.has(c.row.id)) continue;
    const seen = best.get(c.row.id);
    if (!seen || (c.row.relevance ?? 0) > (seen.row.relevance ?? 0)) best.set(c.row.id, c);
  }
  const pool = [...best.values()]
    .sort((a, b) => (b.row.relevance ?? 0) - (a.row.relevance ?? 0))
    .slice(0, CANDIDATES_PER_CALL);
  for (const c of pool) judged.add(c.row.id);
  return pool;
}

function isDeadlinePassed(err: unknown): boolean {
  for (let e = err as { cause?: unknown; type?: string } | undefined; e; e = e.cause as typeof e) {
    if (e.type === "CHARGE_DEADLINE_PASSED") return true;
  }
  return false;
}
