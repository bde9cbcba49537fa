// The reranker: one relevance scale per mode (relevance.ts), strictly monotone in the engine score within a list,
// independent of the other collections' candidates, so lists from collections of different modes merge on one scale.
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import type { RetrievalMode, SearchHit } from "../../src/retrieval/port.js";
import { bestScores, mergeByRelevance } from "../../src/retrieval/rerank.js";
import { RELEVANCE_MODEL, relevanceOf, type QueryForm, type RequestTraits } from "../../src/retrieval/relevance.js";

const MODES: RetrievalMode[] = ["sparse", "dense", "hybrid"];
const CLAIM: RequestTraits = { form: "claim", terms: 8 };

function hit(id: string, score: number): SearchHit {
  return { id, score, chunk: { id, text: `text of ${id}`, tokens: 20, metadata: { chunk_index: 0, doc_id: id } } };
}

describe("reranker", () => {
  it("gives every mode and form a relevance in 0..1 that rises with the engine score within a list", () => {
    const forms: QueryForm[] = ["question", "claim", "keywords"];
    for (const mode of MODES) {
      expect(RELEVANCE_MODEL[mode].score + RELEVANCE_MODEL[mode].gap).toBeGreaterThan(0);
      fc.assert(
        fc.property(
          fc.double({ min: 0, max: 1, noNaN: true }),
          fc.double({ min: 0, max: 1, noNaN: true }),
          fc.double({ min: 0, max: 1, noNaN: true }),
          fc.constantFrom(...forms),
          fc.integer({ min: 0, max: 40 }),
          (a, b, c, form, terms) => {
            const [low, high] = a <= b ? [a, b] : [b, a];
            const best = Math.max(high, c);
            const lowRelevance = relevanceOf(RELEVANCE_MODEL[mode], { score: low, best, request: { form, terms } });
            const highRelevance = relevanceOf(RELEVANCE_MODEL[mode], { score: high, best, request: { form, terms } });
            expect(lowRelevance).toBeGreaterThanOrEqual(0);
            expect(highRelevance).toBeLessThanOrEqual(1);
            expect(highRelevance).toBeGreaterThanOrEqual(lowRelevance);
            if (high > low + 1e-6) expect(highRelevance).toBeGreaterThan(lowRelevance);
          },
        ),
      );
    }
  });

  it("keeps each list in its engine order and rounds relevance to three decimals", () => {
    fc.assert(
      fc.property(
        fc.constantFrom(...MODES),
        fc.array(fc.double({ min: 0, max: 1, noNaN: true }), { minLength: 1, maxLength: 40 }),
        (mode, scores) => {
          const hits = scores
            .map((score, i) => hit(`c${String(i).padStart(3, "0")}`, score))
            .sort((a, b) => b.score - a.score || (a.id < b.id ? -1 : 1));
          const merged = mergeByRelevance([{ key: "one", source: "one", mode, hits }], hits.length, CLAIM);
          expect(merged.map((m) => m.hit.id)).toEqual(hits.map((h) => h.id));
          // what the API returns: the calibrated value within 0..1, to three decimals
          for (const m of merged) {
            expect(Number.isInteger(Math.round(m.relevance * 1000 * 1e6) / 1e6)).toBe(true);
            expect(Math.abs(m.relevance - Math.min(1, Math.max(0, m.calibrated)))).toBeLessThanOrEqual(0.0005 + 1e-12);
          }
        },
      ),
    );
  });

  it("gives a chunk the same relevance whatever else is searched (no per-list normalization)", () => {
    const alone = mergeByRelevance(
      [{ key: "sparse", source: "sparse", mode: "sparse", hits: [hit("weak-best", 0.1)] }],
      10,
      CLAIM,
    );
    const withOthers = mergeByRelevance(
      [
        { key: "sparse", source: "sparse", mode: "sparse", hits: [hit("weak-best", 0.1)] },
        { key: "hybrid", source: "hybrid", mode: "hybrid", hits: [hit("h1", 0.7), hit("h2", 0.6)] },
      ],
      10,
      CLAIM,
    );
    expect(withOthers.find((m) => m.hit.id === "weak-best")!.relevance).toBe(alone[0]!.relevance);
  });

  it("reads a list searched within some works against its whole collection's best, as that list would", () => {
    const whole = [hit("old-best", 0.8), hit("new-1", 0.5), hit("new-2", 0.4)];
    const inWhole = mergeByRelevance([{ key: "h", source: "h", mode: "hybrid", hits: whole }], 10, CLAIM);
    const newOnly = [{ key: "h", source: "h", mode: "hybrid" as const, hits: whole.slice(1) }];
    const within = mergeByRelevance(newOnly, 10, CLAIM, undefined, bestScores([{ ...newOnly[0]!, hits: whole }]));
    expect(within.map((m) => [m.hit.id, m.relevance])).toEqual(
      inWhole.filter((m) => m.hit.id !== "old-best").map((m) => [m.hit.id, m.relevance]),
    );
    // read against its own best, the best new row would stand as the list's first, higher than it is
    const alone = mergeByRelevance(newOnly, 10, CLAIM);
    expect(alone[0]!.relevance).toBeGreaterThan(within[0]!.relevance);
  });

  it("ranks a strong match of a sparse collection above a weak match of a hybrid one, and the reverse", () => {
    const strongSparse = {
      key: "openalex",
      source: "openalex",
      mode: "sparse" as const,
      hits: [hit("strong-sparse", 0.6)],
    };
    const weakHybrid = { key: "scifact", source: "scifact", mode: "hybrid" as const, hits: [hit("weak-hybrid", 0.2)] };
    expect(mergeByRelevance([weakHybrid, strongSparse], 2, CLAIM).map((m) => m.hit.id)).toEqual([
      "strong-sparse",
      "weak-hybrid",
    ]);
    const weakSparse = {
      key: "openalex",
      source: "openalex",
      mode: "sparse" as const,
      hits: [hit("weak-sparse", 0.08)],
    };
    const strongHybrid = {
      key: "scifact",
      source: "scifact",
      mode: "hybrid" as const,
      hits: [hit("strong-hybrid", 0.6)],
    };
    expect(mergeByRelevance([weakSparse, strongHybrid], 2, CLAIM).map((m) => m.hit.id)).toEqual([
      "strong-hybrid",
      "weak-sparse",
    ]);
    // under the old per-list max normalization both best hits scored 1 and the tie went to the id
  });

  it("merges lists into the best `limit`, ties broken by id, one chunk of one list counted once", () => {
    const merged = mergeByRelevance(
      [
        { key: "a", source: "a", mode: "dense", hits: [hit("x", 0.5), hit("x", 0.5), hit("y", 0.4)] },
        { key: "b", source: "b", mode: "dense", hits: [hit("w", 0.5)] },
      ],
      3,
      CLAIM,
    );
    expect(merged.map((m) => `${m.listKey}/${m.hit.id}`)).toEqual(["b/w", "a/x", "a/y"]);
  });

  it("returns a chunk once when two requested names search one collection (a meta-collection and a member)", () => {
    const viaMeta = {
      key: "biomedical\u0000scifact",
      source: "scifact",
      mode: "hybrid" as const,
      hits: [hit("p", 0.7), hit("q", 0.5)],
    };
    const direct = {
      key: "scifact\u0000scifact",
      source: "scifact",
      mode: "hybrid" as const,
      hits: [hit("p", 0.7), hit("q", 0.5)],
    };
    const other = { key: "openalex\u0000openalex", source: "openalex", mode: "sparse" as const, hits: [hit("p", 0.2)] };
    const merged = mergeByRelevance([direct, viaMeta, other], 10, CLAIM);
    // the same id in another physical collection is another chunk; the limit counts distinct chunks
    expect(merged.map((m) => `${m.listKey.split("\u0000")[0]}/${m.hit.id}`).sort()).toEqual([
      "biomedical/p",
      "biomedical/q",
      "openalex/p",
    ]);
    expect(merged.map((m) => m.calibrated)).toEqual(merged.map((m) => m.calibrated).sort((a, b) => b - a));
    expect(mergeByRelevance([direct, viaMeta], 2, CLAIM).map((m) => m.hit.id)).toEqual(["p", "q"]);
  });
});
