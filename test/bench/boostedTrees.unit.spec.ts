// The boosted trees the judge benchmark tries as a second stage (bench/boostedTrees.ts): the fitter and the prediction
// agree on what a split means, learn what a logistic regression cannot (an
// interaction), keep every leaf at the minimum size, and fit the same trees from the same samples.
import { describe, expect, it } from "vitest";
import {
  boostedProbability,
  DEFAULT_BOOSTING,
  fitBoostedTrees,
  treeValue,
  type RegressionTree,
} from "../../bench/boostedTrees.js";
import type { Sample } from "../../bench/logisticRegression.js";

/** A deterministic spread of points in [0, 1). */
const spread = (i: number, k: number): number => (i * (k === 0 ? 0.6180339887 : 0.7548776662) + k * 0.1) % 1;

const xorSamples: Sample[] = Array.from({ length: 800 }, (_, i) => {
  const a = spread(i, 0);
  const b = spread(i, 1);
  return { x: [a, b], y: a > 0.5 !== b > 0.5 ? 1 : 0 };
});

describe("boosted trees", () => {
  it("sends a value equal to a threshold left", () => {
    const stump: RegressionTree = {
      feature: [0, -1, -1],
      threshold: [0.5, 0, 0],
      left: [1, -1, -1],
      right: [2, -1, -1],
      value: [0, -1, 1],
    };
    expect(treeValue(stump, [0.5])).toBe(-1);
    expect(treeValue(stump, [0.5000001])).toBe(1);
    expect(boostedProbability({ base: 0, trees: [stump] }, [0.2])).toBeCloseTo(1 / (1 + Math.E), 10);
  });

  it("learns an interaction of two features that no single feature predicts", () => {
    const model = fitBoostedTrees(xorSamples);
    const correct = xorSamples.filter((s) => (boostedProbability(model, s.x) > 0.5 ? 1 : 0) === s.y).length;
    expect(correct / xorSamples.length).toBeGreaterThan(0.95);
    expect(boostedProbability(model, [0.9, 0.1])).toBeGreaterThan(0.8);
    expect(boostedProbability(model, [0.9, 0.9])).toBeLessThan(0.2);
  });

  it("keeps at least minLeafSamples samples in every leaf and at most maxLeaves leaves", () => {
    const options = { ...DEFAULT_BOOSTING, iterations: 20, minLeafSamples: 90, maxLeaves: 6 };
    const model = fitBoostedTrees(xorSamples, options);
    for (const tree of model.trees) {
      const leaves = tree.feature.map((f, node) => (f < 0 ? node : -1)).filter((node) => node >= 0);
      expect(leaves.length).toBeLessThanOrEqual(options.maxLeaves);
      const reached = new Map<number, number>();
      for (const s of xorSamples) {
        let node = 0;
        while (tree.feature[node]! >= 0)
          node = s.x[tree.feature[node]!]! <= tree.threshold[node]! ? tree.left[node]! : tree.right[node]!;
        reached.set(node, (reached.get(node) ?? 0) + 1);
      }
      for (const leaf of leaves) expect(reached.get(leaf) ?? 0).toBeGreaterThanOrEqual(options.minLeafSamples);
    }
  });

  it("fits the same trees from the same samples", () => {
    const options = { ...DEFAULT_BOOSTING, iterations: 10 };
    expect(fitBoostedTrees(xorSamples, options)).toEqual(fitBoostedTrees(xorSamples, options));
  });

  it("starts from the log-odds of the positive share", () => {
    const samples: Sample[] = Array.from({ length: 100 }, (_, i) => ({ x: [i], y: i < 25 ? 1 : 0 }));
    expect(fitBoostedTrees(samples, { ...DEFAULT_BOOSTING, iterations: 0 }).base).toBeCloseTo(
      Math.log(0.25 / 0.75),
      10,
    );
  });
});
