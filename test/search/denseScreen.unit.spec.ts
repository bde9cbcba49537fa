// The int8 dense screen: its error bound holds, and dense search through it selects exactly what the full f64 scan
// does.
import { describe, expect, it } from "vitest";
import { createDenseScreen } from "../../src/retrieval/engines/embedded/denseScreen.js";
import { emptySegment, mergeSegment, type IndexSegment } from "../../src/retrieval/engines/embedded/indexSegment.js";
import { searchDense } from "../../src/retrieval/engines/embedded/segmentSearch.js";
import { dotProduct } from "../../src/retrieval/fusion.js";
import { pseudoRandomVector } from "./scifactFixture.js";

function segmentOf(vectors: Array<Float32Array | undefined>, dims: number): IndexSegment {
  return mergeSegment(
    emptySegment(dims),
    vectors.map((vector, i) => ({
      chunk: {
        id: `c${String(i).padStart(4, "0")}`,
        text: `chunk ${i}`,
        tokens: 2,
        metadata: { doc_id: `d${i}`, chunk_index: 0 },
        fingerprint: `f${i}`,
      },
      vector,
      termFreqs: new Map([["chunk", 1]]),
      length: 1,
    })),
  );
}

describe("dense screen", () => {
  it("bounds the error of every estimate, for any width, scale and sign", () => {
    for (const dims of [1, 13, 16, 384, 1000]) {
      const vectors = Array.from({ length: 61 }, (_, i) => {
        const vector = pseudoRandomVector(`row ${i}`, dims);
        // unnormalized rows, an all-zero row, and a row with one large component
        return vector.map((value, d) => (i === 0 ? 0 : i === 1 && d === 0 ? 40 : value * (1 + (i % 7))));
      });
      const segment = segmentOf(vectors, dims);
      const screen = createDenseScreen(segment.matrix);
      expect(screen).toBeDefined();
      for (const seed of ["q1", "q2", "q3"]) {
        const query = pseudoRandomVector(seed, dims).map((value) => value * 3);
        const { estimates, errors } = screen!.estimate(query)!;
        for (let row = 0; row < vectors.length; row++) {
          const exact = dotProduct(query, segment.matrix.vectors, row * dims, dims);
          expect(Math.abs(exact - estimates[row])).toBeLessThanOrEqual(errors[row]);
        }
      }
    }
  });

  it("selects the same chunks with the same cosines as the full scan, with ties, gaps and filters", () => {
    const dims = 40;
    const vectors = Array.from({ length: 500 }, (_, i) =>
      // every fifth chunk has no vector; many share a vector, so keys tie and the id decides
      i % 5 === 0 ? undefined : pseudoRandomVector(`row ${i % 37}`, dims),
    );
    const screened = segmentOf(vectors, dims);
    const unscreened: IndexSegment = { ...screened, screen: undefined };
    for (const seed of ["a", "b", "c", "row 3"]) {
      const query = pseudoRandomVector(seed, dims);
      for (const count of [1, 7, 100, 1000]) {
        for (const passes of [undefined, (ordinal: number) => ordinal % 3 !== 0]) {
          expect(searchDense(screened, query, count, passes)).toEqual(searchDense(unscreened, query, count, passes));
        }
      }
    }
  });
});
