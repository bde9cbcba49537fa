// Which queries carry enough to search on (spec: INVALID_QUERY for only whitespace/symbols, too few letters or
// digits, one repeated character, one repeated word, only stop words; short identifiers are fine).
import { describe, expect, it } from "vitest";
import { queryProblem } from "../../src/usecases/search/queryValidation.js";

describe("query validation", () => {
  it("names the problem of each kind of query the spec rejects", () => {
    const cases: Array<[string, ReturnType<typeof queryProblem>]> = [
      ["   ", "empty"],
      ["?!?! --", "no_letters_or_digits"],
      ["a", "too_few_letters_or_digits"],
      ["zz", "repeated_character"],
      ["11", "repeated_character"],
      ["Aa a", "repeated_character"],
      ["aaaaaa", "repeated_character"],
      ["cancer cancer", "repeated_word"],
      ["cancer-cancer", "repeated_word"],
      ["IL-6 IL-6", "repeated_word"],
      ["Cancer, CANCER; cancer", "repeated_word"],
      ["the of and", "only_stop_words"],
      ["what is it", "only_stop_words"],
    ];
    for (const [query, problem] of cases) expect([query, queryProblem(query)]).toEqual([query, problem]);
  });

  it("lets short identifiers and ordinary questions through", () => {
    for (const query of [
      "p53",
      "IL-6",
      "BRCA1",
      "H1N1",
      "T2",
      "covid-19",
      "vitamin D",
      "what is cancer",
      "cancer in the cancer ward",
    ]) {
      expect([query, queryProblem(query)]).toEqual([query, null]);
    }
  });
});
