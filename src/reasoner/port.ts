// The reasoner port of assisted search: understanding, planning and judging. Two adapters obey it: the built-in one
// (rules, the catalogue's vocabularies and the embedding model; no network) and an OpenAI-compatible chat model that
// falls back to the built-in one when it fails. Plain data in and out: results travel through Temporal activities.

/** How the query was read (the spec's `queryUnderstanding`). */
export interface QueryUnderstanding {
  /** what the query asks for, in a few words */
  intent: string;
  /** substances, genes, diseases, organisms, methods the query is about */
  entities: string[];
  /** facets asked about the entities (mechanism, outcomes, safety, ...) */
  aspects: string[];
  /** one sentence restating the case or question */
  caseSummary: string;
  /**
   * constraints read off the query, snake_case keys present only when named: `journal`, `publisher`, `article_type`
   * (JATS vocabulary), `publication_date` `{gte?, lt?}` (YYYY-MM-DD)
   */
  filters: Record<string, unknown>;
  /** the questions the internal searches ask, at least one */
  subQuestions: string[];
}

export interface Understanding extends QueryUnderstanding {
  /**
   * the constraints of `filters` in the service's filter language (the query endpoint's `filters` form), or null when
   * the query named none; the workflow ANDs it with the caller's filters
   */
  queryFilter: unknown | null;
  /**
   * the question the run answers when it is not the query as sent: after a clarification, the answer with what the
   * query said that the answer does not contradict (understanding.ts, answeredQuestion). The judge and the planner
   * read it in place of the query
   */
  question?: string;
  /** set when the query is too underspecified to search well; never about what the query or its filters already say */
  clarification: { question: string; reason: string } | null;
  /**
   * who produced this understanding: 'builtin' or 'llm:<model>'. The chat adapter answers 'builtin' here when it fell
   * back, so the query record can say which reasoner answered this call (the adapter's `name` says which was asked)
   */
  answeredBy?: string;
}

export interface UnderstandInput {
  query: string;
  /** the caller's filters as sent (the reasoner never asks about what they already constrain) */
  callerFilters: unknown | null;
  /** the client's answer to an earlier clarification question, when resuming */
  clarificationAnswer?: string;
}

/** One retrieved chunk to judge. */
export interface Candidate {
  id: string;
  /** the collection as requested */
  collection: string;
  text: string;
  section: string | null;
  title: string | null;
  /** the sub-question whose search found it (the best-ranked one when several did) */
  subQuestion: string;
  /** the reranker's relevance of the chunk for that sub-question (0..1), as on /query rows */
  retrievalScore: number;
  /** 0-based rank in that sub-question's merged list */
  rank: number;
}

export interface Verdict {
  id: string;
  /** calibrated probability that the chunk addresses the query (0..1) */
  judgeScore: number;
  /** entity and synonym surface forms found in the chunk, as they appear there */
  matchedTerms: string[];
  /** one sentence: the best evidence sentence quoted and the matched entities named */
  rationale: string;
  /** judgeScore at or above the reasoner's threshold */
  verified: boolean;
  /**
   * the order a delivery takes verified rows in, best first, when it is not the judge's probability: for a request
   * for literature (a question, keywords, a topic) the built-in judge verifies every row that answers and leaves
   * their order to the relevance scale (the preview's order); absent, the rows go by `judgeScore`
   */
  priority?: number;
  /** who judged: 'builtin' or 'llm:<model>' (the chat adapter's fallback judges as 'builtin') */
  answeredBy?: string;
}

export interface PlanInput {
  query: string;
  understanding: QueryUnderstanding;
  /** 1-based round about to run */
  round: number;
  /** sub-questions already searched, and how many verified results each produced */
  searched: { subQuestion: string; verified: number }[];
}

export interface Reasoner {
  /** recorded on the query record: which reasoner answered ('builtin', or 'llm:<model>') */
  readonly name: string;
  understand(input: UnderstandInput): Promise<Understanding>;
  /** the sub-questions to search this round (round 1: usually the understanding's); [] when nothing is left to try */
  plan(input: PlanInput): Promise<string[]>;
  /** one verdict per candidate, in the same order */
  judge(query: string, understanding: QueryUnderstanding, candidates: Candidate[]): Promise<Verdict[]>;
}
