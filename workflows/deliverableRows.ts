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
 * key (a history replays as it ran). "original" groups as "title" does, and delivers each work as its original record
 * (originalFirst); a run begun before it delivers the group's best-scored record, a reprint included.
 */
export type WorkKeys = "original" | "title" | "passage" | "all" | "documentOf";
type Row = DocumentRow & { text: string; metadata: { title?: unknown; publication_date?: unknown } };
function keysFor(keys: WorkKeys, rows: readonly VerifiedRow[]): (row: Row) => string[] {
  if (keys === "documentOf") return (row) => [documentOf(row)];
  if (keys === "all") return workKeysOf;
  const group = worksSharingPassages(
    rows.map((r) => r.candidate.row),
    keys === "title" || keys === "original",
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

export function distinctDocuments(rows: VerifiedRow[], keys: WorkKeys = "original"): number {
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
export function deliverable(rows: VerifiedRow[], limit: number, keys: WorkKeys = "original"): VerifiedRow[] {
  const priority = (r: VerifiedRow) => r.verdict.priority ?? r.verdict.judgeScore;
  const byJudge = (a: VerifiedRow, b: VerifiedRow) =>
    b.verdict.judgeScore - a.verdict.judgeScore ||
    (b.candidate.row.relevance ?? 0) - (a.candidate.row.relevance ?? 0) ||
    (a.candidate.row.id < b.candidate.row.id ? -1 : 1);
  const ranked = [...rows].sort((a, b) => priority(b) - priority(a) || byJudge(a, b));
  const keysOf = keysFor(keys, rows);
  const chosen = firstPerDocument(ranked, (r) => r.candidate.row, limit, keysOf);
  return (keys === "original" ? originalFirst(chosen, ranked, keysOf) : chosen).sort(byJudge);
}

/** A record that says it reprints another ("This reprinted article originally appeared in ..."). */
const REPRINT = /\b(reprinted (article|paper|with permission)|originally (appeared|published) in)\b/i;

/**
 * How surely a verified record is its work's original, to cite and to find again: not a reprint's record (its text
 * does not say it reprints another), then one that PubMed indexes (it has a PMID).
 */
function originality(row: { text: string; metadata: { pmid?: unknown } }): number {
  const pmid = row.metadata.pmid;
  const indexed = (typeof pmid === "string" || typeof pmid === "number") && String(pmid) !== "";
  return (REPRINT.test(row.text) ? 0 : 2) + (indexed ? 1 : 0);
}

/**
 * Each chosen work delivered as its most original verified record (originality), the best by priority among equals:
 * a reprint chosen for its score gives way to its original when the original is verified too. Each work stays one
 * row, so the count and the works delivered do not change; only which of a work's records is sold.
 */
function originalFirst(
  chosen: readonly VerifiedRow[],
  ranked: readonly VerifiedRow[],
  keysOf: (row: Row) => string[],
): VerifiedRow[] {
  return chosen.map((pick) => {
    const work = keysOf(pick.candidate.row)[0];
    let best = pick;
    for (const r of ranked) {
      if (keysOf(r.candidate.row)[0] !== work) continue;
      if (originality(r.candidate.row) > originality(best.candidate.row)) best = r;
    }
    return best;
  });
}
