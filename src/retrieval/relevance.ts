// What a row's `relevance` means: an estimate of the probability that the row's work answers the request, one scale
// for every retrieval mode and every way of asking (a question, a claim, keywords). Pure: the model's coefficients are
// fitted by bench/fitRelevance.ts into relevanceModel.json, which this module reads.
import fitted from "./relevanceModel.json" with { type: "json" };
import type { RetrievalMode } from "./port.js";
import { ENGLISH_STOP_WORDS, tokenizeStandard } from "../text/englishAnalyzer.js";
import { bm25QueryTerms } from "../text/luceneBm25.js";

/** How a request is phrased: a question, a claim (a statement to check) or keywords. */
export type QueryForm = "question" | "claim" | "keywords";

/** Words that open a question in English (a request ending in "?" is a question whatever its first word). */
const QUESTION_OPENERS: ReadonlySet<string> = new Set(
  (
    "what which how why when where who whom whose whether does do did is are was were can could should would will " +
    "has have had may might must shall"
  ).split(" "),
);

/**
 * The form of a request: a question when it ends with "?" or opens with an interrogative or auxiliary verb;
 * keywords when it holds words, at most one of them a stop word (at most a quarter of its words), and does not end
 * as a sentence does; else a claim. The wording shifts engine scores (a question's extra words are part of the
 * query's BM25 ceiling but rarely in a passage), and the model corrects for it by form.
 */
export function queryForm(text: string): QueryForm {
  const trimmed = text.trim();
  const words = tokenizeStandard(trimmed).map((word) => word.toLowerCase());
  if (trimmed.endsWith("?") || (words.length > 0 && QUESTION_OPENERS.has(words[0]!))) return "question";
  const stops = words.filter((word) => ENGLISH_STOP_WORDS.has(word)).length;
  if (words.length > 0 && !/[.!;]$/.test(trimmed) && stops <= 1 && stops * 4 <= words.length) return "keywords";
  return "claim";
}

/** What the model reads of a request: its form and how many distinct terms it holds once analyzed. */
export interface RequestTraits {
  form: QueryForm;
  /** distinct analyzed terms (the BM25 query's clauses); a short request's passages sit at lower cosines */
  terms: number;
}

export function requestTraits(text: string): RequestTraits {
  return { form: queryForm(text), terms: bm25QueryTerms(text).size };
}

/**
 * One mode's coefficients on the raw features:
 * z = intercept + score·s + gap·(s - best) + the form's offset + logTerms·ln(max(1, terms)).
 */
export interface RelevanceCoefficients {
  intercept: number;
  /** weight of the row's engine score (fusion.ts: 0..1, absolute) */
  score: number;
  /** weight of the row's score minus the best score of its own list (0 for that list's first row, else negative) */
  gap: number;
  /** offsets of a question and of keywords against a claim */
  question: number;
  keywords: number;
  logTerms: number;
}

export type RelevanceModel = Readonly<Record<RetrievalMode, RelevanceCoefficients>>;

/** The checked-in model (bench/fitRelevance.ts writes it; refit when engine scores or the embedding model change). */
export const RELEVANCE_MODEL: RelevanceModel = fitted.modes;

/** What the model reads of one row. */
interface RelevanceInput {
  /** the row's engine score */
  score: number;
  /**
   * the best engine score of the row's own result list: the same collection searched for the same request (never
   * another collection's, so a row's relevance does not change with what else was searched)
   */
  best: number;
  request: RequestTraits;
}

/**
 * The probability that the row's work answers the request. Within one list (one best, one form) it rises strictly
 * with the engine score when score + gap > 0, which every fitted mode satisfies (test/search/relevance.unit.spec.ts),
 * so sorting a list by relevance keeps the engine's order.
 */
export function relevanceOf(coefficients: RelevanceCoefficients, input: RelevanceInput): number {
  const { form, terms } = input.request;
  const z =
    coefficients.intercept +
    coefficients.score * input.score +
    coefficients.gap * (input.score - input.best) +
    (form === "question" ? coefficients.question : form === "keywords" ? coefficients.keywords : 0) +
    coefficients.logTerms * Math.log(Math.max(1, terms));
  return 1 / (1 + Math.exp(-z));
}

/**
 * The min_relevance docs/api.md recommends to a client that pays per row and wants most of what is there. Derived with
 * bench:quality (the threshold table and the rare-phrase figures): the highest threshold under which no exact match
 * of a rare phrase falls; test/search/rarePhrase.int.spec.ts fails if one does.
 */
export const RECOMMENDED_MIN_RELEVANCE = 0.02;
