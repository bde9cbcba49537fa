// What the chat model is asked to answer: the zod schemas its answers are checked against, the strict JSON schemas sent
// as `response_format`, and the system prompt; llmCall.ts sends them, llmStages.ts reads the answers.
import { z } from "zod";

export const filtersSchema = z
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

export const understandingSchema = z.object({
  intent: z.string(),
  entities: z.array(z.string()),
  aspects: z.array(z.string()),
  caseSummary: z.string(),
  filters: filtersSchema,
  subQuestions: z.array(z.string().min(1)).min(1).max(6),
  clarification: z.object({ question: z.string().min(1), reason: z.string().min(1) }).nullable(),
});

export const planSchema = z.object({ subQuestions: z.array(z.string().min(1)).max(6) });

export const verdictsSchema = z.object({
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

export const SYSTEM_PROMPT =
  "You are the query reasoner of a biomedical literature search service. Answer only with JSON that follows " +
  "the given schema. " +
  "Never invent constraints the query does not state; dates are YYYY-MM-DD; article_type uses the JATS vocabulary " +
  ("(research-article, review, case-report, editorial, letter, correction, retraction, brief-report, protocol, " +
    "commentary, ") +
  "book, book-chapter, preprint, monograph, dataset, trial-registration, other).";
