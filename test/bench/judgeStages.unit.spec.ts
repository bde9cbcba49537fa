// The seam between the two stages the judge benchmark tries (bench/judgeStages.ts; the service runs the first alone):
// which chunks the readers read (every pool chunk of the first stage's best
// documents), and how a reading becomes features (unread chunks just below the lowest read, gaps, document bests).
import { describe, expect, it } from "vitest";
import { readingFeatures, serviceJudgeOf, shortlist, UNREAD, type JudgeModels } from "../../bench/judgeStages.js";
import { DEFAULT_JUDGE_MODEL } from "../../src/reasoner/builtin/judge.js";

describe("shortlist", () => {
  const documents = ["a", "b", "a", "c", "d", "b"];
  const probabilities = [0.9, 0.2, 0.1, 0.5, 0.05, 0.3];

  it("takes every pool chunk of the best documents, best chunk first", () => {
    // documents by their best chunk: a (0.9), c (0.5), b (0.3), d (0.05)
    expect(shortlist(documents, probabilities, 2)).toEqual([0, 3, 2]);
    expect(shortlist(documents, probabilities, 3)).toEqual([0, 3, 5, 1, 2]);
  });

  it("reads the whole pool when it holds fewer documents, and nothing for none", () => {
    expect(shortlist(documents, probabilities, 10)).toHaveLength(documents.length);
    expect(shortlist(documents, probabilities, 0)).toEqual([]);
    expect(shortlist([], [], 5)).toEqual([]);
  });

  it("breaks ties by pool order, so the same call always reads the same chunks", () => {
    expect(shortlist(["x", "y", "z"], [0.5, 0.5, 0.5], 2)).toEqual([0, 1]);
  });
});

describe("readingFeatures", () => {
  it("puts an unread chunk just below the lowest read, and gives gaps to the best and each document its best", () => {
    const features = readingFeatures([2, null, -3, 5], ["a", "a", "b", "c"], UNREAD.crossEncoder);
    expect(features.map((f) => f.score)).toEqual([2, -4, -3, 5]);
    expect(features.map((f) => f.gap)).toEqual([-3, -9, -8, 0]);
    expect(features.map((f) => f.document)).toEqual([2, 2, -3, 5]);
  });

  it("gives every chunk the none-read value when nothing was read", () => {
    const features = readingFeatures([null, null], ["a", "b"], UNREAD.biEncoder);
    expect(features).toEqual([
      { score: 0, gap: 0, document: 0 },
      { score: 0, gap: 0, document: 0 },
    ]);
  });
});

describe("serviceJudgeOf", () => {
  const oneStage: JudgeModels = { firstStage: DEFAULT_JUDGE_MODEL, withReader: null, shortlistDocuments: 0 };

  it("gives the service the first stage of a one-stage judge", () => {
    expect(serviceJudgeOf(oneStage)).toBe(DEFAULT_JUDGE_MODEL);
  });

  it("refuses models the one-stage service cannot run: a second stage, trees, or a reading feature", () => {
    const trees = {
      kind: "trees" as const,
      features: DEFAULT_JUDGE_MODEL.features,
      base: 0,
      trees: [],
      threshold: 0.5,
      relativeCut: 0,
    };
    expect(() => serviceJudgeOf({ ...oneStage, withReader: DEFAULT_JUDGE_MODEL, shortlistDocuments: 8 })).toThrow(
      /second stage/,
    );
    expect(() => serviceJudgeOf({ ...oneStage, firstStage: trees })).toThrow(/second stage/);
    expect(() =>
      serviceJudgeOf({
        ...oneStage,
        firstStage: { ...DEFAULT_JUDGE_MODEL, features: [...DEFAULT_JUDGE_MODEL.features, "crossEncoder"] },
      }),
    ).toThrow(/second stage/);
  });
});
