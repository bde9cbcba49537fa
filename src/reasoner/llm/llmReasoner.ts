// The chat-model reasoner: an OpenAI-compatible chat-completions endpoint asked for JSON-schema-constrained answers
// (understanding, plan, verdicts), with a timeout per attempt and retries on timeouts, network errors, 429 and 5xx.
// Whatever still fails (or answers malformed JSON) is answered by the built-in reasoner, and the answer says so
// (`answeredBy: 'builtin'`), so the query record names the reasoner that actually answered.
import { isRetryableStatus, jsonPostInit, retryDelayMs } from "../../infra/httpRetry.js";
import { z } from "zod";
import { canonicalArticleType } from "../../filters/articleTypes.js";
import { parseFilterDate } from "../../filters/dates.js";
import type { JournalRecord } from "../../journals/table.js";
import type {
  Candidate,
  PlanInput,
  QueryUnderstanding,
  Reasoner,
  Understanding,
  UnderstandInput,
  Verdict,
} from "../port.js";
import { constrainedFields } from "../builtin/understanding.js";

export interface LlmConfig {
  /** e.g. https://api.openai.com/v1 (the adapter appends /chat/completions) */
  baseUrl: string;
  model: string;
  apiKey?: string;
  /** per attempt */
  timeoutMs: number;
  /** further attempts after a timeout, network error, 429 or 5xx */
  retries: number;
  /** judgeScore at or above which the model's verdict counts as verified */
  verifyThreshold?: number;
}

export interface LlmReasonerDeps {
  /** answers whenever the model cannot */
  fallback: Reasoner;
  journals: readonly JournalRecord[];
  /** told of every fallback (the composition root logs it) */
  onFallback?: (stage: "understand" | "plan" | "judge", error: Error) => void;
  fetch?: typeof fetch;
}

export class LlmCallError extends Error {
  constructor(
    message: string,
    readonly retryable: boolean,
  ) {
    super(message);
    this.name = "LlmCallError";
  }
}

const filtersSchema = z
  .object({
    journal: z.string().nullable().optional(),
    publisher: z.string().nullable().optional(),
    article_type: z.string().nullable().optional(),
    publication_date: z
      .object({ gte: z.string().nullable().optional(), lt: z.string().nullable().optional() })
      .nullable()
      .optional(),
  })
  .passthrough();

const understandingSchema = z.object({
  intent: z.string(),
  entities: z.array(z.string()),
  aspects: z.array(z.string()),
  caseSummary: z.string(),
  filters: filtersSchema,
  subQuestions: z.array(z.string().min(1)).min(1).max(6),
  clarification: z.object({ question: z.string().min(1), reason: z.string().min(1) }).nullable(),
});

const planSchema = z.object({ subQuestions: z.array(z.string().min(1)).max(6) });

const verdictsSchema = z.object({
  verdicts: z.array(
    z.object({
      index: z.number().int().min(0),
      judgeScore: z.number().min(0).max(1),
      matchedTerms: z.array(z.string()),
      rationale: z.string().min(1),
    }),
  ),
});

/** The JSON schemas sent as `response_format` (strict: every property required, nullable where optional). */
const nullableString = { type: ["string", "null"] };
export const RESPONSE_SCHEMAS = {
  understanding: {
    type: "object",
    additionalProperties: false,
    required: ["intent", "entities", "aspects", "caseSummary", "filters", "subQuestions", "clarification"],
    properties: {
      intent: { type: "string" },
      entities: { type: "array", items: { type: "string" } },
      aspects: { type: "array", items: { type: "string" } },
      caseSummary: { type: "string" },
      filters: {
        type: "object",
        additionalProperties: false,
        required: ["journal", "publisher", "article_type", "publication_date"],
        properties: {
          journal: nullableString,
          publisher: nullableString,
          article_type: nullableString,
          publication_date: {
            type: ["object", "null"],
            additionalProperties: false,
            required: ["gte", "lt"],
            properties: { gte: nullableString, lt: nullableString },
          },
        },
      },
      subQuestions: { type: "array", items: { type: "string" } },
      clarification: {
        type: ["object", "null"],
        additionalProperties: false,
        required: ["question", "reason"],
        properties: { question: { type: "string" }, reason: { type: "string" } },
      },
    },
  },
  plan: {
    type: "object",
    additionalProperties: false,
    required: ["subQuestions"],
    properties: { subQuestions: { type: "array", items: { type: "string" } } },
  },
  verdicts: {
    type: "object",
    additionalProperties: false,
    required: ["verdicts"],
    properties: {
      verdicts: {
        type: "array",
        items: {
          type: "object",
          additionalProperties: false,
          required: ["index", "judgeScore", "matchedTerms", "rationale"],
          properties: {
            index: { type: "integer" },
            judgeScore: { type: "number" },
            matchedTerms: { type: "array", items: { type: "string" } },
            rationale: { type: "string" },
          },
        },
      },
    },
  },
} as const;

const SYSTEM_PROMPT =
  "You are the query reasoner of a biomedical literature search service. Answer only with JSON that follows " +
  "the given schema. " +
  "Never invent constraints the query does not state; dates are YYYY-MM-DD; article_type uses the JATS vocabulary " +
  ("(research-article, review, case-report, editorial, letter, correction, retraction, brief-report, protocol, " +
    "commentary, ") +
  "book, book-chapter, preprint, monograph, dataset, trial-registration, other).";

const CANDIDATE_TEXT_LIMIT = 1500;

/** 200 ms before the first retry, doubling up to 2 s, without jitter (one reasoner call per search step) */
function backoff(tryNumber: number): Promise<void> {
  const wait = retryDelayMs(tryNumber + 1, { baseMs: 200, maxMs: 2000 }, undefined, () => 1);
  return new Promise((resolve) => setTimeout(resolve, wait));
}

export function createLlmReasoner(config: LlmConfig, deps: LlmReasonerDeps): Reasoner {
  const name = `llm:${config.model}`;
  const doFetch = deps.fetch ?? fetch;
  const endpoint = `${config.baseUrl.replace(/\/+$/, "")}/chat/completions`;
  const threshold = config.verifyThreshold ?? 0.5;

  /** One attempt: the parsed JSON content of the first choice, or an LlmCallError saying whether to retry. */
  async function attempt(schemaName: keyof typeof RESPONSE_SCHEMAS, user: string): Promise<unknown> {
    let response: Response;
    try {
      const body = {
        model: config.model,
        temperature: 0,
        messages: [
          { role: "system", content: SYSTEM_PROMPT },
          { role: "user", content: user },
        ],
        response_format: {
          type: "json_schema",
          json_schema: { name: schemaName, strict: true, schema: RESPONSE_SCHEMAS[schemaName] },
        },
      };
      response = await doFetch(endpoint, jsonPostInit(body, config.apiKey, config.timeoutMs));
    } catch (err) {
      const timedOut = (err as Error).name === "TimeoutError" || (err as Error).name === "AbortError";
      throw new LlmCallError(
        timedOut ? `no answer within ${config.timeoutMs} ms` : `request failed: ${(err as Error).message}`,
        true,
      );
    }
    let raw: string;
    try {
      raw = await response.text();
    } catch (err) {
      throw new LlmCallError(`reading the answer failed: ${(err as Error).message}`, true);
    }
    if (!response.ok)
      throw new LlmCallError(`HTTP ${response.status}: ${raw.slice(0, 200)}`, isRetryableStatus(response.status));
    try {
      const body = JSON.parse(raw) as { choices?: { message?: { content?: string | null } }[] };
      const content = body.choices?.[0]?.message?.content;
      if (typeof content !== "string") throw new Error("no message content");
      return JSON.parse(content) as unknown;
    } catch (err) {
      throw new LlmCallError(`malformed answer: ${(err as Error).message}`, false);
    }
  }

  async function ask<T>(schemaName: keyof typeof RESPONSE_SCHEMAS, schema: z.ZodType<T>, user: string): Promise<T> {
    let lastError: Error | undefined;
    for (let tryNumber = 0; tryNumber <= config.retries; tryNumber++) {
      if (tryNumber > 0) await backoff(tryNumber);
      try {
        const parsed = schema.safeParse(await attempt(schemaName, user));
        if (!parsed.success)
          throw new LlmCallError(
            `answer does not follow the schema: ${parsed.error.issues[0]?.message ?? "invalid"}`,
            false,
          );
        return parsed.data;
      } catch (err) {
        lastError = err as Error;
        if (!(err instanceof LlmCallError) || !err.retryable) break;
      }
    }
    throw lastError ?? new Error("no attempt made");
  }

  async function withFallback<T>(
    stage: "understand" | "plan" | "judge",
    run: () => Promise<T>,
    fallback: () => Promise<T>,
  ): Promise<T> {
    try {
      return await run();
    } catch (err) {
      deps.onFallback?.(stage, err as Error);
      return fallback();
    }
  }

  const titles = new Map<string, JournalRecord>();
  for (const journal of deps.journals)
    if (journal.title) titles.set(journal.title.toLowerCase().replace(/^the /, ""), journal);

  /** The model's filters, validated, and the service filter they make; invalid values are dropped, never guessed. */
  function filtersFrom(raw: z.infer<typeof filtersSchema>): {
    filters: Record<string, unknown>;
    queryFilter: Record<string, unknown> | null;
  } {
    const filters: Record<string, unknown> = {};
    const queryFilter: Record<string, unknown> = {};
    const date = raw.publication_date;
    const range: { gte?: string; lt?: string } = {};
    if (date?.gte && parseFilterDate(date.gte, true)) range.gte = date.gte;
    if (date?.lt && parseFilterDate(date.lt, true)) range.lt = date.lt;
    if (range.gte || range.lt) {
      filters.publication_date = range;
      queryFilter.publication_date = { ...range };
    }
    const type = raw.article_type ? canonicalArticleType(raw.article_type) : null;
    if (type) filters.article_type = queryFilter.article_type = type;
    if (raw.journal) {
      filters.journal = raw.journal;
      const record = titles.get(raw.journal.toLowerCase().replace(/^the /, ""));
      if (record && record.issns.length > 0) queryFilter.issn = [...record.issns];
      else queryFilter.journal = raw.journal;
    }
    if (raw.publisher) filters.publisher = queryFilter.publisher = raw.publisher;
    return { filters, queryFilter: Object.keys(queryFilter).length > 0 ? queryFilter : null };
  }

  return {
    name,
    understand(input: UnderstandInput): Promise<Understanding> {
      return withFallback(
        "understand",
        async (): Promise<Understanding> => {
          // after a clarification the answer leads: the question to answer is composed by the same rule as the
          // built-in reasoner's (the answer, completed by the query only where it refers back to it)
          const question = input.clarificationAnswer ? (await deps.fallback.understand(input)).question : undefined;
          const answer = await ask(
            "understanding",
            understandingSchema,
            [
              `Query: ${JSON.stringify(input.query)}`,
              "Caller filters (already applied; never ask about what they constrain): " +
                `${JSON.stringify(input.callerFilters ?? null)}`,
              input.clarificationAnswer
                ? "The user answered an earlier clarification question: " +
                  `${JSON.stringify(input.clarificationAnswer)}. Do not ask again. The answer leads: understand ` +
                  "and plan this question, keeping only the constraints of the query that the answer does not " +
                  `contradict: ${JSON.stringify(question ?? input.clarificationAnswer)}`
                : "",
              `Today is ${new Date().toISOString().slice(0, 10)}.`,
              "Read the constraints the query names (journal, publisher, article_type, publication_date) into " +
                "filters and keep them out of entities and subQuestions. " +
                ("subQuestions: 1 to 4 self-contained search questions (the whole question first; split " +
                  "comparisons and conjunctions). ") +
                ("clarification: a question only when the query is too vague to search well (a lone word, only " +
                  'pronouns, "treatment options"), else null.'),
            ]
              .filter(Boolean)
              .join("\n"),
          );
          const { filters, queryFilter } = filtersFrom(answer.filters);
          const pinned = ["doi", "pmid", "pmcid", "isbn", "nct_id", "url"].some((f) =>
            constrainedFields(input.callerFilters).has(f),
          );
          return {
            intent: answer.intent,
            entities: answer.entities,
            aspects: answer.aspects,
            caseSummary: answer.caseSummary,
            filters,
            subQuestions: answer.subQuestions.slice(0, 4),
            queryFilter,
            clarification: input.clarificationAnswer || pinned ? null : answer.clarification,
            ...(question ? { question } : {}),
            answeredBy: name,
          };
        },
        async () => ({ ...(await deps.fallback.understand(input)), answeredBy: deps.fallback.name }),
      );
    },
    plan(input: PlanInput): Promise<string[]> {
      return withFallback(
        "plan",
        async () => {
          const answer = await ask(
            "plan",
            planSchema,
            [
              `Query: ${JSON.stringify(input.query)}`,
              `Understanding: ${JSON.stringify(input.understanding)}`,
              `Round ${input.round}. Already searched (sub-question, verified results): ` +
                `${JSON.stringify(input.searched)}`,
              "Give the sub-questions to search this round (new ones only, at most 4), or an empty list when " +
                "nothing is left worth trying.",
            ].join("\n"),
          );
          const searched = new Set(input.searched.map((s) => s.subQuestion.toLowerCase()));
          return answer.subQuestions.filter((q) => !searched.has(q.toLowerCase())).slice(0, 4);
        },
        () => deps.fallback.plan(input),
      );
    },
    judge(query: string, understanding: QueryUnderstanding, candidates: Candidate[]): Promise<Verdict[]> {
      if (candidates.length === 0) return Promise.resolve([]);
      return withFallback(
        "judge",
        async () => {
          const answer = await ask(
            "verdicts",
            verdictsSchema,
            [
              `Query: ${JSON.stringify(query)}`,
              `Entities: ${JSON.stringify(understanding.entities)}; aspects: ${JSON.stringify(understanding.aspects)}`,
              "For each candidate chunk give judgeScore = probability (0..1) that it addresses the query, " +
                "matchedTerms = entity " +
                ("or synonym surface forms as written in the chunk, and a one-sentence rationale quoting the " +
                  "best evidence sentence."),
              ...candidates.map(
                (c, i) => `[${i}] ${c.title ? `${c.title}: ` : ""}${c.text.slice(0, CANDIDATE_TEXT_LIMIT)}`,
              ),
            ].join("\n"),
          );
          const byIndex = new Map(answer.verdicts.map((v) => [v.index, v]));
          if (candidates.some((_, i) => !byIndex.has(i)))
            throw new LlmCallError("the answer lacks a verdict for some candidates", false);
          return candidates.map((c, i) => {
            const v = byIndex.get(i)!;
            const judgeScore = Math.round(v.judgeScore * 1000) / 1000;
            return {
              id: c.id,
              judgeScore,
              matchedTerms: v.matchedTerms,
              rationale: v.rationale,
              verified: judgeScore >= threshold,
              answeredBy: name,
            };
          });
        },
        async () =>
          (await deps.fallback.judge(query, understanding, candidates)).map((v) => ({
            ...v,
            answeredBy: deps.fallback.name,
          })),
      );
    },
  };
}
