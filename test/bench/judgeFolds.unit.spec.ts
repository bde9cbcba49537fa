// The judge's folds (bench/judgeFolds.ts): claims that share a relevant document stay in one fold, so no held-out claim
// has a document the training folds learned with a sibling's words; the folds stay balanced and never move.
import { describe, expect, it } from "vitest";
import { claimFolds, FOLDS } from "../../bench/judgeFolds.js";
import { loadScifactJudgements } from "../../bench/scifactBench.js";
import { DEFAULT_DATA_ROOT } from "../../src/app/config.js";

const relevantOf = (entries: Record<string, string[]>): Map<string, string[]> => new Map(Object.entries(entries));

describe("the judge folds", () => {
  it("keeps claims linked through shared documents in one fold, even by a chain", () => {
    const foldOf = claimFolds(
      relevantOf({ "1": ["a"], "2": ["a", "b"], "3": ["b"], "4": ["c"], "5": ["d"], "6": ["e"], "7": ["f"] }),
    );
    expect(foldOf("2")).toBe(foldOf("1"));
    expect(foldOf("3")).toBe(foldOf("1"));
    // the group of three fills the first fold; the four singletons go one to each of the others
    expect(new Set(["4", "5", "6", "7"].map(foldOf)).size).toBe(4);
    expect(["4", "5", "6", "7"].map(foldOf)).not.toContain(foldOf("1"));
  });

  it("places a group by its size and smallest claim id, not by the order of the map", () => {
    const entries: Record<string, string[]> = { "10": ["x"], "3": ["y"], "11": ["x"], "7": ["z"], "2": ["w"] };
    const forward = claimFolds(relevantOf(entries));
    const backward = claimFolds(new Map(Object.entries(entries).reverse()));
    for (const id of Object.keys(entries)) expect(backward(id)).toBe(forward(id));
    expect(forward("10")).toBe(0);
  });

  it("hashes an id without relevant documents, the same way every time", () => {
    const foldOf = claimFolds(relevantOf({ "1": ["a"], "off-empty": [] }));
    expect(foldOf("off-3")).toBe(claimFolds(new Map())("off-3"));
    expect(foldOf("off-empty")).toBeGreaterThanOrEqual(0);
    expect(foldOf("off-empty")).toBeLessThan(FOLDS);
  });

  it("splits the SciFact train claims into five balanced folds that share no relevant document", async () => {
    const { relevant } = await loadScifactJudgements(DEFAULT_DATA_ROOT);
    const foldOf = claimFolds(relevant);
    const sizes = Array.from({ length: FOLDS }, () => 0);
    const foldOfDocument = new Map<string, number>();
    for (const [id, documents] of relevant) {
      sizes[foldOf(id)]! += 1;
      for (const doc of documents) {
        expect(foldOfDocument.get(doc) ?? foldOf(id)).toBe(foldOf(id));
        foldOfDocument.set(doc, foldOf(id));
      }
    }
    expect(sizes.reduce((a, b) => a + b, 0)).toBe(809);
    expect(Math.max(...sizes) - Math.min(...sizes)).toBeLessThanOrEqual(1);
  });
});
