// Which verified rows an assisted search delivers: best first by the verdicts' priority, one chunk per document (the
// rule a search with one_per_document delivers by, src/retrieval/rowSelection.ts). Pure and deterministic: the
// workflow runs it (workflows/assisted.ts).
import type { VerifiedRow } from "./assistedTypes.js";
import { documentOf, firstPerDocument } from "../src/retrieval/rowSelection.js";

export function distinctDocuments(rows: VerifiedRow[]): number {
  return new Set(rows.map((r) => documentOf(r.candidate.row))).size;
}

/**
 * Best first by the verdict's priority (the judge's probability unless the judge set another order: a request for
 * literature goes by the relevance scale), one chunk per document (its best; a work held by two collections is one
 * document), at most `limit`. Verdicts recorded without a priority keep the order they were delivered in.
 */
export function deliverable(rows: VerifiedRow[], limit: number): VerifiedRow[] {
  const priority = (r: VerifiedRow) => r.verdict.priority ?? r.verdict.judgeScore;
  const sorted = [...rows].sort(
    (a, b) =>
      priority(b) - priority(a) ||
      b.verdict.judgeScore - a.verdict.judgeScore ||
      (b.candidate.row.relevance ?? 0) - (a.candidate.row.relevance ?? 0) ||
      (a.candidate.row.id < b.candidate.row.id ? -1 : 1),
  );
  return firstPerDocument(sorted, (r) => r.candidate.row, limit);
}
