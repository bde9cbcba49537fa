// The concepts a request names, as the judge matches them: whole concepts and their synonyms, never a fragment ("d"
// of "5 mg/d"), and the central concept a verified row must name.
import { describe, expect, it } from "vitest";
import {
  centralConcept,
  conceptOf,
  conceptText,
  matchedConcepts,
  namesCentralConcept,
  spellingKey,
} from "../../src/reasoner/builtin/concepts.js";

const vitaminD = ["vitamin D supplementation", "fracture risk", "older adults"];
// the row a customer was charged for: an alendronate trial whose "5 mg/d" has a "d"
const alendronate = conceptText(
  "Alendronate for the prevention of fractures in postmenopausal women",
  "Women were given alendronate 5 mg/d or placebo, with calcium supplements. Fracture risk fell among the aged.",
);
const cholecalciferol = conceptText(
  "Effect of cholecalciferol on hip fractures",
  "Cholecalciferol 800 IU daily reduced hip fractures among elderly women living in nursing homes.",
);

describe("conceptOf and centralConcept", () => {
  it("cuts what is done with a concept from its edges", () => {
    expect(conceptOf("vitamin D supplementation")).toBe("vitamin D");
    expect(conceptOf("fracture risk")).toBe("fracture");
    expect(conceptOf("ALDH1 expression")).toBe("ALDH1");
    expect(conceptOf("the role of")).toBeNull();
  });

  it("is the first entity's concept, passing over an aspect asked about and cutting a run of keywords", () => {
    expect(centralConcept(vitaminD)).toBe("vitamin D");
    expect(centralConcept(["pharmacokinetics", "emicizumab", "haemophilia"])).toBe("emicizumab");
    expect(centralConcept(["vitamin D supplementation fracture risk older adults"])).toBe("vitamin D");
    expect(centralConcept([])).toBeNull();
  });
});

describe("matchedConcepts", () => {
  it("names the concepts a row holds as the row writes them, never a fragment", () => {
    expect(matchedConcepts(vitaminD, alendronate)).toEqual(["Fracture risk", "aged"]);
    expect(matchedConcepts(vitaminD, cholecalciferol)).toEqual(["cholecalciferol", "fractures", "elderly"]);
  });

  it("reads a run of keywords as the concepts in it", () => {
    const text = conceptText(null, "Supplementation with vitamin D reduced the risk of fracture in older adults.");
    expect(matchedConcepts(["vitamin D supplementation fracture risk older adults"], text)).toEqual([
      "vitamin D",
      "fracture",
      "older adults",
    ]);
  });

  it("reads British and American spellings alike", () => {
    const text = conceptText(null, "Dialectical behavior therapy reduced self-harm in hemophilia and in tumors.");
    expect(matchedConcepts(["dialectical behaviour therapy"], text)).toEqual(["Dialectical behavior therapy"]);
    expect(spellingKey("haemophilia randomised tumour")).toBe(spellingKey("hemophilia randomized tumor"));
  });
});

describe("namesCentralConcept", () => {
  it("refuses a row that misses the central concept, however many peripheral words it shares", () => {
    expect(namesCentralConcept(vitaminD, alendronate)).toBe(false);
    expect(namesCentralConcept(vitaminD, cholecalciferol)).toBe(true);
    // "vitamin" and "d" apart are not vitamin D
    expect(namesCentralConcept(vitaminD, conceptText(null, "A vitamin was given at 5 mg/d."))).toBe(false);
  });

  it("holds every row of a request that names no concept", () => {
    expect(namesCentralConcept([], alendronate)).toBe(true);
  });
});
