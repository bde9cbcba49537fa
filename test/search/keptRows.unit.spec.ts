// A hybrid search on OpenSearch whose caller keeps `rows` rows after demoting repeats fetches only the candidates that
// can reach them, from their estimated scores (within the cosine error of the exact ones) and their documents from doc
// values (lower-cased, or unknown), and fetches the rest when those do not settle the list: the rows it returns are
// always the first of the list every candidate's exact score makes, through its rows-th document.
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { compareRanked, type RankedCandidate } from "../../src/retrieval/fusion.js";
import {
  fetchesIdsFirst,
  fetchFloor,
  fetchKeptRows,
  fetchSettles,
} from "../../src/retrieval/engines/opensearch/keptRows.js";
import { documentsEnd } from "../../src/retrieval/repeats.js";

const ERROR = 1e-3;

describe("the rows a hybrid search fetches for a caller that keeps fewer", () => {
  it("fetch down to twice the error below the first candidate of the rows-th document", () => {
    const byEstimate = [
      { id: "a1", score: 0.9 },
      { id: "a2", score: 0.85 },
      { id: "b1", score: 0.8 },
      { id: "c1", score: 0.7 },
    ];
    const doc = (id: string) => id[0];
    expect(fetchFloor(byEstimate, 2, doc, 0.01)).toBeCloseTo(0.79, 12);
    expect(fetchFloor(byEstimate, 4, doc, 0.01)).toBe(-Infinity);
    // an unknown document counts for none: the floor only goes down
    expect(fetchFloor(byEstimate, 2, (id) => (id === "b1" ? undefined : doc(id)), 0.01)).toBeCloseTo(0.69, 12);
  });

  it("settle the list when every candidate left out ranks below the cut, whatever its exact score", () => {
    const ranked = [{ score: 0.9 }, { score: 0.8 }];
    expect(fetchSettles(ranked, 2, [0.7], 0.01)).toBe(true);
    expect(fetchSettles(ranked, 2, [0.795], 0.01)).toBe(false);
    expect(fetchSettles(ranked, undefined, [0.1], 0.01)).toBe(false);
    expect(fetchSettles(ranked, undefined, [], 0.01)).toBe(true);
  });

  it("return the rows of the list every candidate makes, through its rows-th document", async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(
          fc.record({
            doc: fc.constantFrom("A", "a", "B", "C", "D", "E", "F", "G", "H"),
            estimate: fc.integer({ min: 0, max: 200 }).map((n) => n / 1000 + 0.6),
            offset: fc.double({ min: -1, max: 1, noNaN: true }),
            estimated: fc.integer({ min: 0, max: 9 }).map((n) => n > 0),
            hinted: fc.integer({ min: 0, max: 9 }).map((n) => n > 1),
            dropped: fc.integer({ min: 0, max: 9 }).map((n) => n > 7),
          }),
          { maxLength: 40 },
        ),
        fc.integer({ min: 1, max: 8 }),
        fc.integer({ min: 1, max: 40 }),
        async (candidates, rows, limit) => {
          const byId = new Map(candidates.map((c, i) => [`c${String(i).padStart(2, "0")}`, c]));
          const exactOf = (id: string): number => {
            const c = byId.get(id)!;
            // an estimate stands within the error of the exact score; without one, anything goes
            return c.estimated ? c.estimate + c.offset * ERROR * 0.999 : c.offset;
          };
          // the estimates' order: a candidate without an estimate counted at the low end, as its dense part is 0
          const byEstimate: RankedCandidate[] = [...byId.entries()]
            .map(([id, c]) => ({ id, score: c.estimated ? c.estimate : 0 }))
            .sort(compareRanked);
          const ranking = (ids: Iterable<string>) =>
            [...ids]
              .map((id) => ({ id, score: exactOf(id) }))
              .sort(compareRanked)
              .slice(0, limit);
          const documentOf = (row: { id: string }) => {
            const c = byId.get(row.id)!;
            return c.dropped ? undefined : c.doc;
          };
          const whole = ranking(byId.keys());
          const expected = whole.slice(0, documentsEnd(whole, rows, documentOf));
          const fetched = new Set<string>();
          const got = await fetchKeptRows(byEstimate, {
            rows,
            error: ERROR,
            estimated: (id) => byId.get(id)!.estimated,
            documentHint: (id) => (byId.get(id)!.hinted ? byId.get(id)!.doc.toLowerCase() : undefined),
            rank: async (some) => {
              for (const c of some) {
                expect(fetched.has(c.id)).toBe(false);
                fetched.add(c.id);
              }
              return ranking(fetched);
            },
            documentOf,
          });
          expect(got).toEqual(expected);
        },
      ),
      { numRuns: 1000 },
    );
  });

  it("a BM25 list fetches its ids first only when it holds 100 chunks or more beyond the caller's rows", () => {
    // the pipeline's depths (limit + min(limit, 100)): a page of 10 or 50 rows in one request, 100 rows or a facets
    // list of 600 chunks for 200 works in two
    expect(fetchesIdsFirst(20, 10)).toBe(false);
    expect(fetchesIdsFirst(100, 50)).toBe(false);
    expect(fetchesIdsFirst(199, 100)).toBe(false);
    expect(fetchesIdsFirst(200, 100)).toBe(true);
    expect(fetchesIdsFirst(600, 200)).toBe(true);
  });
});
