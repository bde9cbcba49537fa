// Decides whether a query carries enough to search on (422 INVALID_QUERY otherwise); short identifiers pass.
import { Rejection } from "../../domain/rejection.js";

/**
 * Words that carry no search intent on their own: Lucene's English stop set plus common question and
 * function words. A query made only of these is rejected; one content word (or identifier) is enough.
 */
const NON_CONTENT_WORDS = new Set(
  (
    "a an and are as at be but by for if in into is it no not of on or such that the their then there these " +
    "they this to was will with " +
    ("what which who whom whose how why when where i me my we our you your he she his her its do does did can " +
      "could should would may might ") +
    ("about from has have had am been being so than too very just all any some also more most other own same " +
      "only both each few")
  ).split(" "),
);

const WORD = /[\p{L}\p{N}]+(?:[-'][\p{L}\p{N}]+)*/gu;

type QueryProblem =
  | "empty"
  | "no_letters_or_digits"
  | "too_few_letters_or_digits"
  | "repeated_character"
  | "repeated_word"
  | "only_stop_words";

/** Returns why the query cannot be searched, or null when it can. */
export function queryProblem(query: string): QueryProblem | null {
  const trimmed = query.trim();
  if (trimmed.length === 0) return "empty";
  const alnum = trimmed.replace(/[^\p{L}\p{N}]/gu, "");
  if (alnum.length === 0) return "no_letters_or_digits";
  if (alnum.length < 2) return "too_few_letters_or_digits";
  if (new Set(alnum.toLowerCase()).size === 1) return "repeated_character";
  const words = (trimmed.toLowerCase().match(WORD) ?? []) as string[];
  // one word said again ("cancer cancer", "IL-6 IL-6"), or one part joined to itself ("cancer-cancer"; "IL-6" is two
  // parts)
  const parts = trimmed.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? [];
  const repeats = (xs: readonly string[]) => xs.length >= 2 && new Set(xs).size === 1;
  if (repeats(words) || repeats(parts)) return "repeated_word";
  if (words.length > 0 && words.every((w) => NON_CONTENT_WORDS.has(w))) return "only_stop_words";
  return null;
}

const MESSAGES: Record<QueryProblem, string> = {
  empty: "query is empty",
  no_letters_or_digits: "query holds only whitespace or symbols",
  too_few_letters_or_digits: "query has too few letters or digits to search on",
  repeated_character: "query is one repeated character",
  repeated_word: "query is one repeated word",
  only_stop_words: "query holds only stop words",
};

export function assertSearchableQuery(query: string): void {
  const problem = queryProblem(query);
  if (problem) {
    throw new Rejection(
      "INVALID_QUERY",
      `${MESSAGES[problem]}; describe what you are looking for (short identifiers such as BRCA1 or IL-6 are fine)`,
      { reason: problem },
    );
  }
}
