// Types, the progress query and the answer update shared by the assisted-search workflow, its activities and the use
// case that starts it; no I/O, safe inside the workflow sandbox.
import { defineQuery, defineUpdate } from "@temporalio/workflow";
import type { PlanInput, QueryUnderstanding, UnderstandInput, Understanding, Verdict } from "../src/reasoner/port.js";
import type { CachedRow } from "../src/domain/resultRow.js";

export interface AssistedInput {
  orgId: string;
  keyId: string;
  queryId: string;
  query: string;
  /** the collections as requested (already resolved against the key's scope) */
  collections: string[];
  /** the caller's filters as sent, already checked to apply (null: none) */
  filters: unknown | null;
  /** the most verified rows to deliver */
  limit: number;
  allowClarification: boolean;
  /** the most this call may charge, micro-credits as a decimal string; absent: no cap */
  maxCostMicros?: string;
  /** epoch ms after which the charge refuses: the HTTP caller has been told 503 and nothing charged */
  chargeDeadline: number;
  /** names the request, for the audit trail of the charge */
  requestId?: string;
  /**
   * How long a charged answer waits for proof that it reached its caller before its charge is refunded (ms);
   * absent (runs started before delivery was tracked): no wait, the charge stands.
   */
  deliveryWaitMs?: number;
  /**
   * An asynchronous run (the caller was answered 202 at once): it tells the organization's webhooks when it asks a
   * question and when its answer is ready (`assisted.completed`); absent: a caller waits on the HTTP call.
   */
  announce?: boolean;
}

type AssistedPhase = "understanding" | "awaiting_clarification" | "searching" | "verifying" | "charging" | "done";

/** Read by the workflow query while the run goes on: MCP turns it into progress notifications. */
export interface AssistedProgress {
  phase: AssistedPhase;
  /** the key that started the run: only it may answer a clarification */
  keyId: string;
  round: number;
  searchesRun: number;
  candidatesVerified: number;
  verified: number;
  /** set while the run waits for the client's answer */
  clarification: { question: string; reason: string } | null;
  understanding: QueryUnderstanding | null;
  /** when a clarification is pending: the time its wait ends (epoch ms) */
  clarificationExpiresAt: number | null;
  /**
   * After a charge: 'awaiting' while the run waits for proof the answer reached its caller (the answer is in the
   * store and can be served), 'delivered' once it has it, 'refunded' when the wait ended without it; null before.
   */
  delivery?: DeliveryState | null;
}

export type DeliveryState = "awaiting" | "delivered" | "refunded";

/** The understanding and which reasoner produced it ('builtin', 'llm:<model>'), for the query record. */
export interface UnderstandOutcome extends Understanding {
  reasoner: string;
}

export interface SearchPlanInput {
  orgId: string;
  keyId: string;
  collections: string[];
  subQuestion: string;
  callerFilters: unknown | null;
  /** the constraints read off the query in the filter language, ANDed with the caller's */
  queryFilter: unknown | null;
  /** how many candidates this sub-question's search returns */
  limit: number;
}

export interface SearchPlanOutcome {
  candidates: AssistedCandidate[];
  filterWarnings: unknown[];
  journalMetricExpansions: unknown[];
}

/** A retrieved row and the sub-question whose search found it; the judge sees it as a reasoner `Candidate`. */
export interface AssistedCandidate {
  row: CachedRow;
  subQuestion: string;
  /** 0-based rank in that sub-question's merged list */
  rank: number;
}

export interface VerifiedRow {
  candidate: AssistedCandidate;
  verdict: Verdict;
}

export interface ChargeAssistedInput {
  input: AssistedInput;
  status: "results" | "no_relevant_results";
  rows: VerifiedRow[];
  understanding: QueryUnderstanding;
  reasoner: string;
  iterationsRun: number;
  filterWarnings: unknown[];
  journalMetricExpansions: unknown[];
  /** what the run weighed: the candidates (chunks) judged and the distinct works verified among them */
  screened?: { candidatesJudged: number; worksVerified: number };
}

export interface ChargeAssistedOutcome {
  /** the rows delivered (after the maxCost cut), best first */
  deliveredIds: string[];
  /** verified rows left out because they would have passed maxCost */
  withheldByMaxCost: number;
  chargedMicros: string;
  tokensCharged: number;
  balanceMicros: string;
}

export type AssistedOutcome =
  | {
      status: "results" | "no_relevant_results";
      queryId: string;
      iterationsRun: number;
      charge: ChargeAssistedOutcome;
      /** what became of the charge: kept (delivered, or nothing charged) or refunded because nobody received it */
      delivery?: DeliveryState | "nothing_charged";
    }
  /** the clarification went unanswered for its whole wait: the run ends, nothing charged */
  | { status: "clarification_expired"; queryId: string }
  /** the charge deadline passed before the charge: the caller was told 503, nothing charged */
  | { status: "abandoned"; queryId: string };

export interface ClarificationAnswer {
  answer: string;
  /** a fresh deadline for the charge, set by the resuming HTTP call */
  chargeDeadline: number;
}

export const progressQuery = defineQuery<AssistedProgress>("progress");
/** Resumes a run waiting for a clarification; refused (by its validator) when the run waits for none. */
export const answerUpdate = defineUpdate<void, [ClarificationAnswer]>("answer");
/**
 * Proof that the charged answer reached its caller (its response flushed, an Idempotency-Key replay, a re-fetch, the
 * MCP tool's answer sent); refused (by its validator) unless the run is waiting for one, so once refunded it stays so.
 */
export const deliveredUpdate = defineUpdate<void, []>("delivered");

export interface RefundUndeliveredInput {
  orgId: string;
  queryId: string;
  /** exactly what the charge took, micro-credits as a decimal string */
  amountMicros: string;
}

/** How long a clarification question waits for its answer. */
export const CLARIFICATION_WAIT_MS = 24 * 60 * 60 * 1000;
/** Search and judge rounds at most (the first included). */
export const MAX_ROUNDS = 3;

/** The assisted workflow's steps; activities/assisted.ts implements them. */
export interface AssistedActivities {
  /** The reasoner's reading; constraints it read that cannot apply to these collections are dropped, never refused. */
  understandQuery(input: UnderstandInput & { collections?: string[] }): Promise<UnderstandOutcome>;
  planRound(input: PlanInput): Promise<string[]>;
  searchSubQuestion(input: SearchPlanInput): Promise<SearchPlanOutcome>;
  judgeCandidates(input: {
    query: string;
    understanding: QueryUnderstanding;
    candidates: AssistedCandidate[];
  }): Promise<Verdict[]>;
  chargeAssisted(c: ChargeAssistedInput): Promise<ChargeAssistedOutcome>;
  refundUndelivered(input: RefundUndeliveredInput): Promise<void>;
}
