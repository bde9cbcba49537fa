// Which verified rows an assisted search delivers: chosen by the verdicts' priority, one chunk per document (the rule
// a search with one_per_document delivers by, src/retrieval/rowSelection.ts), in the judge's order. Pure and
// deterministic: the workflow runs it (workflows/assisted.ts).
import type { VerifiedRow } from "./assistedTypes.js";
import {
  documentOf,
  firstPerDocument,
  passageKeyOf,
  workKeysOf,
  type DocumentRow,
} from "../src/retrieval/rowSelection.js";

/**
 * How a run tells works apart: by every key a work is known by (DOI, PMID, the collection's id) and by the words of
 * the passage it delivers (two works holding the same abstract are one delivery: it is sold once); for a run begun
 * before that, by every key but the passage's; for one begun earlier still, by documentOf's one key (a history replays
 * as it ran).
 */
export type WorkKeys = "passage" | "all" | "documentOf";
type Row = DocumentRow & { text: string };
function keysFor(keys: WorkKeys): (row: Row) => string[] {
  if (keys === "documentOf") return (row) => [documentOf(row)];
  if (keys === "all") return workKeysOf;
  return (row) => {
    const passage = passageKeyOf(row.text);
    return passage === undefined ? workKeysOf(row) : [...workKeysOf(row), passage];
  };
}

export function distinctDocuments(rows: VerifiedRow[], keys: WorkKeys = "passage"): number {
  return firstPerDocument(rows, (r) => r.candidate.row, Infinity, keysFor(keys)).length;
}

/**
 * The documents to deliver: the best by the verdicts' priority (the judge's probability unless the judge set another
 * order: a request for literature's verified rows are chosen on the relevance scale), one chunk per document (its
 * best; a work held by two collections, or two works holding the same passage, are one document), at most `limit`.
 * They are delivered best first by the judge's probability, the `judgeScore` each row carries, so a client that reads
 * the rows in order reads them by the score it sees. Verdicts recorded without a priority are chosen and ordered as
 * they were when delivered.
 */
export function deliverable(rows: VerifiedRow[], limit: number, keys: WorkKeys = "passage"): VerifiedRow[] {
  const priority = (r: VerifiedRow) => r.verdict.priority ?? r.verdict.judgeScore;
  const byJudge = (a: VerifiedRow, b: VerifiedRow) =>
    b.verdict.judgeScore - a.verdict.judgeScore ||
    (b.candidate.row.relevance ?? 0) - (a.candidate.row.relevance ?? 0) ||
    (a.candidate.row.id < b.candidate.row.id ? -1 : 1);
  const chosen = firstPerDocument(
    [...rows].sort((a, b) => priority(b) - priority(a) || byJudge(a, b)),
    (r) => r.candidate.row,
    limit,
    keysFor(keys),
  );
  return chosen.sort(byJudge);
}
