// One relevance scale: the form of a request is read from its text alone, and the checked-in model gives a row a
// probability that rises with its engine score and falls with its distance to the best row of its own list.
import { describe, expect, it } from "vitest";
import {
  queryForm,
  RELEVANCE_MODEL,
  relevanceOf,
  requestTraits,
  type QueryForm,
} from "../../src/retrieval/relevance.js";
import type { RetrievalMode } from "../../src/retrieval/port.js";

const MODES: RetrievalMode[] = ["sparse", "dense", "hybrid"];

describe("the form of a request", () => {
  it.each<[string, QueryForm]>([
    ["Does emicizumab prophylaxis prevent bleeding in haemophilia A patients with inhibitors?", "question"],
    ["how do muscle relaxants compare for spasticity", "question"],
    ["Which cardiology journals do you have", "question"],
    ["emicizumab pharmacokinetics hemophilia A", "keywords"],
    ["environmental exposure systematic review risk of bias reporting meta-analysis", "keywords"],
    ["hair cortisol", "keywords"],
    ["0-dimensional biomaterials show inductive properties.", "claim"],
    ["Vitamin D supplementation reduces the risk of fractures in the elderly", "claim"],
    ["  ", "claim"],
  ])("%j is a %s", (text, form) => {
    expect(queryForm(text)).toBe(form);
  });
});

describe("the relevance model", () => {
  it("counts a request's distinct analyzed terms", () => {
    expect(requestTraits("Does emicizumab prevent bleeding in patients with inhibitors?")).toEqual({
      form: "question",
      terms: 6,
    });
    expect(requestTraits("umbilical vein endothelial")).toEqual({ form: "keywords", terms: 3 });
  });

  it("reads the score, the gap to its list's best and the form, and nothing else", () => {
    for (const mode of MODES) {
      const c = RELEVANCE_MODEL[mode];
      const top = relevanceOf(c, { score: 0.8, best: 0.8, request: { form: "claim", terms: 8 } });
      expect(top).toBeCloseTo(1 / (1 + Math.exp(-(c.intercept + c.score * 0.8 + c.logTerms * Math.log(8)))), 12);
      // a row below its list's best is worth less than the same score at the top of a list
      expect(relevanceOf(c, { score: 0.7, best: 0.8, request: { form: "claim", terms: 8 } })).toBeLessThan(
        relevanceOf(c, { score: 0.7, best: 0.7, request: { form: "claim", terms: 8 } }),
      );
      const question = relevanceOf(c, { score: 0.8, best: 0.8, request: { form: "question", terms: 8 } });
      expect(question).toBeCloseTo(
        1 / (1 + Math.exp(-(c.intercept + c.score * 0.8 + c.question + c.logTerms * Math.log(8)))),
        12,
      );
    }
  });

  it("lifts a question's rows, whose extra words lower the engine score without saying the rows answer less", () => {
    for (const mode of MODES) expect(RELEVANCE_MODEL[mode].question).toBeGreaterThan(0);
  });

  it("gives the first row of a list that matches nothing well a low probability", () => {
    for (const mode of MODES) {
      const weak = mode === "sparse" ? 0.1 : 0.5;
      expect(
        relevanceOf(RELEVANCE_MODEL[mode], { score: weak, best: weak, request: { form: "keywords", terms: 3 } }),
      ).toBeLessThan(0.05);
    }
  });
});
