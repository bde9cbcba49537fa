// What an assisted search delivers: best first by the judge (or the priority the judge set), one chunk per document,
// a work held by two collections (the same DOI) delivered and charged once.
import { describe, expect, it } from "vitest";
import { deliverable, distinctDocuments } from "../../workflows/deliverableRows.js";
import type { VerifiedRow } from "../../workflows/assistedTypes.js";

function verified(
  id: string,
  physical: string,
  docId: string,
  judgeScore: number,
  doi?: string,
  priority?: number,
): VerifiedRow {
  return {
    candidate: {
      row: {
        id,
        collection: physical,
        physical,
        text: "t",
        teaser: "t",
        metadata: { chunk_index: 0, doc_id: docId, ...(doi ? { doi } : {}) },
        relevance: 0.5,
        tokens: 10,
        costMicros: "10",
        pricePer1000Micros: "1000",
        figureCount: 0,
      },
      subQuestion: "q",
      rank: 0,
    },
    verdict: {
      id,
      judgeScore,
      matchedTerms: [],
      rationale: "r",
      verified: true,
      answeredBy: "builtin",
      ...(priority === undefined ? {} : { priority }),
    },
  } as VerifiedRow;
}

describe("delivery", () => {
  it("delivers one chunk per document, best first, at most the limit", () => {
    const rows = [
      verified("a1", "c", "A", 0.6),
      verified("a2", "c", "A", 0.9),
      verified("b1", "c", "B", 0.7),
      verified("c1", "c", "C", 0.5),
    ];
    expect(deliverable(rows, 10).map((r) => r.candidate.row.id)).toEqual(["a2", "b1", "c1"]);
    expect(deliverable(rows, 2).map((r) => r.candidate.row.id)).toEqual(["a2", "b1"]);
    expect(distinctDocuments(rows)).toBe(3);
  });

  it("chooses by the verdicts' priority (literature), then delivers the chosen in the judge's order", () => {
    const rows = [
      verified("a", "c", "A", 0.9, undefined, 0.3),
      verified("b", "c", "B", 0.2, undefined, 0.8),
      verified("c", "c", "C", 0.5, undefined, 0.3),
      verified("d", "c", "D", 0.95, undefined, 0.1),
    ];
    expect(deliverable(rows, 1).map((r) => r.candidate.row.id)).toEqual(["b"]);
    expect(deliverable(rows, 2).map((r) => r.candidate.row.id)).toEqual(["a", "b"]);
    expect(deliverable(rows, 3).map((r) => r.candidate.row.id)).toEqual(["a", "c", "b"]);
    expect(deliverable(rows, 10).map((r) => r.candidate.row.id)).toEqual(["d", "a", "c", "b"]);
  });

  it("counts a work in two collections once (by DOI, any case); a doc id in two without a DOI is two works", () => {
    const rows = [
      verified("x-open", "openalex-open-access", "W1", 0.8, "10.1001/JAMA.288.3.334"),
      verified("x-syn", "openalex-synergy", "W1", 0.7, "10.1001/jama.288.3.334"),
      verified("y-open", "openalex-open-access", "W2", 0.6),
      verified("y-syn", "openalex-synergy", "W2", 0.5),
    ];
    expect(deliverable(rows, 10).map((r) => r.candidate.row.id)).toEqual(["x-open", "y-open", "y-syn"]);
    expect(distinctDocuments(rows)).toBe(3);
  });
});
