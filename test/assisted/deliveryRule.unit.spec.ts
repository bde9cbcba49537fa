// The judge's raw delivery rule (the benchmarks' "before": a claim keeps only candidates near the best, a floor once
// the call answers), how the judge reads a request's form, and what the request asks of a row (check or literature).
import { describe, expect, it } from "vitest";
import { isClaimToCheck, judgeForm, requestKind } from "../../src/reasoner/builtin/judge.js";
import { deliveryRule } from "../../bench/deliveryRule.js";

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

describe("deliveryRule with a floor", () => {
  const floored = { threshold: 0.155, relativeCut: 0, floor: 0.05 };

  it("verifies every candidate at or above the floor once the call's best reaches the threshold", () => {
    expect(deliveryRule(floored, [0.3, 0.12, 0.06, 0.05, 0.04], true)).toEqual([true, true, true, true, false]);
  });

  it("verifies nothing when the call's best stays under the threshold (an off-topic request)", () => {
    expect(deliveryRule(floored, [0.15, 0.12, 0.06], true)).toEqual([false, false, false]);
  });

  it("still applies a relative cut with the floor", () => {
    expect(deliveryRule({ ...floored, relativeCut: 0.5 }, [0.4, 0.21, 0.19, 0.1], true)).toEqual([
      true,
      true,
      false,
      false,
    ]);
  });
});

describe("judgeForm", () => {
  it("reads a question, keywords, a claim to check and a topic", () => {
    expect(judgeForm("Which psychotherapies work for adults with borderline personality disorder", topic)).toBe(
      "question",
    );
    expect(judgeForm("emicizumab prophylaxis bleeding inhibitors plasma concentration", topic)).toBe("keywords");
    expect(judgeForm("ALDH1 expression is associated with poor prognosis in breast cancer.", topic)).toBe("claim");
    // the relevance scale reads both as claims; neither is a statement the judge can tell apart from a phrase
    expect(
      judgeForm("randomized trials of dialectical behaviour therapy for borderline personality disorder", topic),
    ).toBe("topic");
    expect(judgeForm("RTEL1 interacts with TRF2 through a C4C4 motif", topic)).toBe("topic");
  });

  it("takes the understanding's reading of a claim over the wording's keywords, never over a question", () => {
    expect(judgeForm("DUSP4 downregulation deactivates the Ras-ERK pathway", topic)).toBe("keywords");
    expect(judgeForm("DUSP4 downregulation deactivates the Ras-ERK pathway", { intent: "verify a claim" })).toBe(
      "claim",
    );
    expect(judgeForm("Does emicizumab prevent bleeding?", { intent: "verify a claim" })).toBe("question");
  });
});

describe("requestKind", () => {
  it("reads a claim and a yes/no question about one as requests to check", () => {
    expect(requestKind("Vitamin D supplementation reduces fracture risk in older adults.", topic)).toBe("check");
    expect(requestKind("Does vitamin D supplementation reduce fracture risk in older adults?", topic)).toBe("check");
    expect(requestKind("Is ALDH1 expression associated with poor prognosis in breast cancer?", topic)).toBe("check");
  });

  it("reads questions asking for more, keywords and topics as requests for literature", () => {
    expect(requestKind("What are the pharmacokinetics of emicizumab in haemophilia A?", topic)).toBe("literature");
    expect(requestKind("vitamin D supplementation fracture risk older adults", topic)).toBe("literature");
    expect(
      requestKind("randomized trials of dialectical behaviour therapy for borderline personality disorder", topic),
    ).toBe("literature");
  });
});
