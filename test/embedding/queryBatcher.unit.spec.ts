import { describe, expect, it } from "vitest";
import { createQueryBatcher } from "../../src/embedding/queryBatcher.js";

describe("concurrent query embeddings batched into one run", () => {
  it("runs the queries queued within the wait together, each answered with its own vector", async () => {
    const runs: string[][] = [];
    const embed = createQueryBatcher(async (texts: string[]) => (runs.push(texts), texts.map((t) => `v(${t})`)), {
      maxTexts: 8,
      waitMs: 1,
    });
    expect(await Promise.all(["a", "b", "c"].map(embed))).toEqual(["v(a)", "v(b)", "v(c)"]);
    expect(runs).toEqual([["a", "b", "c"]]);
    expect(await embed("d")).toBe("v(d)");
    expect(runs).toHaveLength(2);
  });

  it("starts a run at once when maxTexts are queued", async () => {
    const runs: string[][] = [];
    const embed = createQueryBatcher(async (texts: string[]) => (runs.push(texts), texts), {
      maxTexts: 2,
      waitMs: 60_000,
    });
    expect(await Promise.all(["a", "b", "c", "d"].map(embed))).toEqual(["a", "b", "c", "d"]);
    expect(runs).toEqual([
      ["a", "b"],
      ["c", "d"],
    ]);
  });

  it("fails every query of a failed run, and the next run still works", async () => {
    let fail = true;
    const embed = createQueryBatcher(
      async (texts: string[]) => {
        if (fail) throw new Error("model down");
        return texts;
      },
      { maxTexts: 4, waitMs: 1 },
    );
    const failed = await Promise.allSettled(["a", "b"].map(embed));
    expect(failed.map((r) => r.status)).toEqual(["rejected", "rejected"]);
    fail = false;
    expect(await embed("c")).toBe("c");
  });

  it("refuses a run that answers the wrong number of vectors", async () => {
    const embed = createQueryBatcher(async () => ["only one"], { maxTexts: 4, waitMs: 1 });
    await expect(Promise.all(["a", "b"].map(embed))).rejects.toThrow(/1 vectors for 2 texts/);
  });

  it("refuses a batch size that is not a positive integer", () => {
    expect(() => createQueryBatcher(async (t: string[]) => t, { maxTexts: 0, waitMs: 1 })).toThrow(RangeError);
  });
});
