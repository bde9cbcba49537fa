// What the assisted-search use case's operations share: the request and answer shapes, the dependencies, and the
// rules for reading a run's failure. The operations live beside it: answers (assistedAnswers.ts), runs
// (assistedRuns.ts), delivery and replays (assistedDelivery.ts); assistedSearch.ts puts them together.
import {
  ActivityFailure,
  ApplicationFailure,
  WorkflowFailedError,
  WorkflowNotFoundError,
  WorkflowUpdateFailedError,
  type Client,
} from "@temporalio/client";
import type { AssistedProgress } from "../../../workflows/assistedTypes.js";
import type { CollectionCatalog } from "../../domain/collectionDefinitions.js";
import { isErrorCode } from "../../domain/errorCodes.js";
import { Rejection } from "../../domain/rejection.js";
import type { Db } from "../../eventstore/db.js";
import type { QueryUnderstanding } from "../../reasoner/port.js";
import type { Accounts } from "../accounts/accounts.js";
import type { Discovery } from "../catalogue/discovery.js";
import type { CachedRow } from "../../domain/resultRow.js";
import type { Screening } from "../search/queryCache.js";
import type { BillingOutcome, SearchService } from "../search/searchService.js";

export interface AssistedRequest {
  collections: string[];
  query: string;
  limit: number;
  filters: unknown | null;
  allowClarification: boolean;
  maxCostMicros?: bigint;
}

interface AssistedRow {
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
  /** how much of what the run weighed it sold (absent on answers recorded before it was kept) */
  screening?: Screening;
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
export const PROGRESS_HEARTBEAT_MS = 5_000;
/** A run's delivery wait starts after its record is written: a re-fetch this much past the wait still asks the run. */
export const DELIVERY_MARGIN_MS = 10 * 60 * 1000;
/** How long starting a run may take before the call answers 503. */
export const START_DEADLINE_MS = 10_000;

export const assistedWorkflowId = (queryId: string) => `assisted-${queryId}`;

export const EMPTY_UNDERSTANDING: QueryUnderstanding = {
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
export function rejectionFrom(err: unknown): Rejection {
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

export const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

/** The workflow service does not know the run (never started, or past its retention); by name across module copies. */
export const isWorkflowNotFound = (err: unknown): boolean =>
  err instanceof WorkflowNotFoundError || (err as { name?: string })?.name === "WorkflowNotFoundError";

/** The dependencies and settings every operation of the use case takes. */
export interface AssistedContext {
  deps: AssistedSearchDeps;
  taskQueue: string;
  pollMs: number;
}
