// The chat-model reasoner's three stages, each a function of the shared LlmContext: understanding a query (with the
// filters it names, validated), planning a round's sub-questions, and judging candidate chunks. Each asks the model
// and falls back to the built-in reasoner, whose answers say so (`answeredBy`).
import type { z } from "zod";
import { canonicalArticleType } from "../../filters/articleTypes.js";
import { parseFilterDate } from "../../filters/dates.js";
import { constrainedFields } from "../builtin/understanding.js";
import type { Candidate, PlanInput, QueryUnderstanding, Understanding, UnderstandInput, Verdict } from "../port.js";
import { ask, LlmCallError, withFallback, type LlmContext } from "./llmContext.js";
import { filtersSchema, planSchema, understandingSchema, verdictsSchema } from "./llmSchemas.js";

const CANDIDATE_TEXT_LIMIT = 1500;

/** The model's filters, validated, and the service filter they make; invalid values are dropped, never guessed. */
function filtersFrom(
  ctx: LlmContext,
  raw: z.infer<typeof filtersSchema>,
): {
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
    const record = ctx.titles.get(raw.journal.toLowerCase().replace(/^the /, ""));
    if (record && record.issns.length > 0) queryFilter.issn = [...record.issns];
    else queryFilter.journal = raw.journal;
  }
  if (raw.publisher) filters.publisher = queryFilter.publisher = raw.publisher;
  return { filters, queryFilter: Object.keys(queryFilter).length > 0 ? queryFilter : null };
}

export function understand(ctx: LlmContext, input: UnderstandInput): Promise<Understanding> {
  const { deps } = ctx;
  return withFallback(
    ctx,
    "understand",
    async (): Promise<Understanding> => {
      // after a clarification the answer leads: the question to answer is composed by the same rule as the
      // built-in reasoner's (the answer, completed by the query only where it refers back to it)
      const question = input.clarificationAnswer ? (await deps.fallback.understand(input)).question : undefined;
      const answer = await ask(
        ctx,
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
      const { filters, queryFilter } = filtersFrom(ctx, answer.filters);
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
        answeredBy: ctx.name,
      };
    },
    async () => ({ ...(await deps.fallback.understand(input)), answeredBy: deps.fallback.name }),
  );
}

export function plan(ctx: LlmContext, input: PlanInput): Promise<string[]> {
  return withFallback(
    ctx,
    "plan",
    async () => {
      const answer = await ask(
        ctx,
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
    () => ctx.deps.fallback.plan(input),
  );
}

export function judge(
  ctx: LlmContext,
  query: string,
  understanding: QueryUnderstanding,
  candidates: Candidate[],
): Promise<Verdict[]> {
  if (candidates.length === 0) return Promise.resolve([]);
  return withFallback(
    ctx,
    "judge",
    async () => {
      const answer = await ask(
        ctx,
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
          verified: judgeScore >= ctx.threshold,
          answeredBy: ctx.name,
        };
      });
    },
    async () =>
      (await ctx.deps.fallback.judge(query, understanding, candidates)).map((v) => ({
        ...v,
        answeredBy: ctx.deps.fallback.name,
      })),
  );
}
