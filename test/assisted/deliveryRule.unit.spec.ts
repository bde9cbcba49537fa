// The judge's delivery rule: a claim to check keeps only candidates near the best, a question or a topic gets every
// candidate the judge verifies, up to the caller's limit.
import { describe, expect, it } from "vitest";
import { deliveryRule, isClaimToCheck } from "../../src/reasoner/builtin/judge.js";

const rule = { threshold: 0.155, relativeCut: 0.7 };
const topic = { intent: "find literature on a topic" };

describe("isClaimToCheck", () => {
  it("reads statements as claims: a full stop, or a sentence the understanding read as a claim", () => {
    expect(isClaimToCheck("ALDH1 expression is associated with poor prognosis in breast cancer.", topic)).toBe(true);
    expect(isClaimToCheck('Mouse models can be generated using "artificial spermatids."', topic)).toBe(true);
    // a statement without its full stop and without a verb the understanding knows reads as keywords
    expect(isClaimToCheck("DUSP4 downregulation deactivates the Ras-ERK pathway", topic)).toBe(false);
    expect(
      isClaimToCheck("Cancer-associated fibroblasts (CAFs) are constituents of tumor microenvironments", {
        intent: "verify a claim",
      }),
    ).toBe(true);
  });

  it("reads questions and keywords as asking for the literature", () => {
    expect(
      isClaimToCheck("randomized trials of dialectical behaviour therapy for borderline personality disorder", topic),
    ).toBe(false);
    expect(
      isClaimToCheck(
        "Does dialectical behaviour therapy or mentalization-based treatment reduce self-harm in borderline " +
          "personality disorder?",
        { intent: "verify a claim" },
      ),
    ).toBe(false);
    expect(isClaimToCheck("Which psychotherapies work for adults with borderline personality disorder", topic)).toBe(
      false,
    );
    expect(isClaimToCheck("emicizumab prophylaxis bleeding inhibitors plasma concentration", topic)).toBe(false);
  });
});

describe("deliveryRule", () => {
  const probabilities = [0.9, 0.62, 0.4, 0.16, 0.15];

  it("keeps a claim's candidates within the relative cut of the best", () => {
    expect(deliveryRule(rule, probabilities, true)).toEqual([true, false, false, false, false]);
  });

  it("verifies every candidate of a question at or above the threshold", () => {
    expect(deliveryRule(rule, probabilities, false)).toEqual([true, true, true, true, false]);
  });
});
