// Which verified rows an assisted search delivers: best first by the judge, one chunk per document (the rule a search
// with one_per_document delivers by, src/retrieval/rowSelection.ts). Pure and deterministic: the workflow runs it
// (workflows/assisted.ts).
import type { VerifiedRow } from "./assistedTypes.js";
import { documentOf, firstPerDocument } from "../src/retrieval/rowSelection.js";

export function distinctDocuments(rows: VerifiedRow[]): number {
  return new Set(rows.map((r) => documentOf(r.candidate.row))).size;
}

/**
 * Best first by the judge, one chunk per document (its best; a work held by two collections is one document), at most
 * `limit`.
 */
export function deliverable(rows: VerifiedRow[], limit: number): VerifiedRow[] {
  const sorted = [...rows].sort(
    (a, b) =>
      b.verdict.judgeScore - a.verdict.judgeScore ||
      (b.candidate.row.relevance ?? 0) - (a.candidate.row.relevance ?? 0) ||
      (a.candidate.row.id < b.candidate.row.id ? -1 : 1),
  );
  return firstPerDocument(sorted, (r) => r.candidate.row, limit);
}
