// Which verified rows an assisted search delivers: chosen by the verdicts' priority, one chunk per document (the rule
// a search with one_per_document delivers by, src/retrieval/rowSelection.ts), in the judge's order. Pure and
// deterministic: the workflow runs it (workflows/assisted.ts).
import type { VerifiedRow } from "./assistedTypes.js";
import {
  documentOf,
  firstPerDocument,
  passageKeyOf,
  titleKeysOf,
  workKeysOf,
  type DocumentRow,
} from "../src/retrieval/rowSelection.js";

/**
 * How a run tells works apart: by every key a work is known by (DOI, PMID, the collection's id), by the words of its
 * passages, two works holding one passage being one (a conference abstract under two DOIs is one delivery, whichever
 * of its chunks each record's row shows: it is sold once), and by its title and year (titleKeysOf: a reprint, or a
 * paper and its conference abstract, is one study sold once); for a run begun before titles were keyed, by all but
 * the titles; before passages were, by every key but the passages'; for one begun earlier still, by documentOf's one
 * key (a history replays as it ran).
 */
export type WorkKeys = "title" | "passage" | "all" | "documentOf";
type Row = DocumentRow & { text: string; metadata: { title?: unknown; publication_date?: unknown } };
function keysFor(keys: WorkKeys, rows: readonly VerifiedRow[]): (row: Row) => string[] {
  if (keys === "documentOf") return (row) => [documentOf(row)];
  if (keys === "all") return workKeysOf;
  const group = worksSharingPassages(
    rows.map((r) => r.candidate.row),
    keys === "title",
  );
  return (row) => [group(row)];
}

/**
 * Each row's work among `rows`, rows joined when they share a work key or a passage (passageKeyOf), and with
 * `titles` a title and year (titleKeysOf), directly or through others: chunk 0 of one record and chunk 1 of another
 * are one work when the records share either chunk.
 */
function worksSharingPassages(rows: readonly Row[], titles: boolean): (row: Row) => string {
  const parent = new Map<string, string>();
  const root = (key: string): string => {
    let k = key;
    for (let up = parent.get(k); up !== undefined && up !== k; up = parent.get(k)) k = up;
    if (k !== key) parent.set(key, k);
    return k;
  };
  const keysOf = (row: Row) => {
    const passage = passageKeyOf(row.text);
    return [
      ...workKeysOf(row),
      ...(passage === undefined ? [] : [passage]),
      ...(titles ? titleKeysOf(row.metadata) : []),
    ];
  };
  // each row's keys, normalized once (a passage's key reads its whole text)
  const keyed = new Map(rows.map((row) => [row, keysOf(row)] as const));
  for (const keys of keyed.values()) {
    for (const key of keys) if (!parent.has(key)) parent.set(key, key);
    for (const key of keys.slice(1)) parent.set(root(key), root(keys[0]!));
  }
  return (row) => root((keyed.get(row) ?? keysOf(row))[0]!);
}

export function distinctDocuments(rows: VerifiedRow[], keys: WorkKeys = "title"): number {
  return firstPerDocument(rows, (r) => r.candidate.row, Infinity, keysFor(keys, rows)).length;
}

/**
 * The documents to deliver: the best by the verdicts' priority (the judge's probability unless the judge set another
 * order: a request for literature's verified rows are chosen on the relevance scale), one chunk per document (its
 * best; a work held by two collections, two works holding the same passage, or one study's records under one
 * title, are one document), at most `limit`.
 * They are delivered best first by the judge's probability, the `judgeScore` each row carries, so a client that reads
 * the rows in order reads them by the score it sees. Verdicts recorded without a priority are chosen and ordered as
 * they were when delivered.
 */
export function deliverable(rows: VerifiedRow[], limit: number, keys: WorkKeys = "title"): VerifiedRow[] {
  const priority = (r: VerifiedRow) => r.verdict.priority ?? r.verdict.judgeScore;
  const byJudge = (a: VerifiedRow, b: VerifiedRow) =>
    b.verdict.judgeScore - a.verdict.judgeScore ||
    (b.candidate.row.relevance ?? 0) - (a.candidate.row.relevance ?? 0) ||
    (a.candidate.row.id < b.candidate.row.id ? -1 : 1);
  const chosen = firstPerDocument(
    [...rows].sort((a, b) => priority(b) - priority(a) || byJudge(a, b)),
    (r) => r.candidate.row,
    limit,
    keysFor(keys, rows),
  );
  return chosen.sort(byJudge);
}
