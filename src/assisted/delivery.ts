// Which verified rows an assisted search delivers: best first by the judge, one chunk per document. Pure and
// deterministic: the workflow runs it (workflows/assisted.ts).
import type { VerifiedRow } from '../../workflows/assistedTypes.js';

/** A work is one document wherever it is held: by its DOI when it has one (two collections may hold the same article), else by its collection's id. */
function documentOf(r: VerifiedRow): string {
  const doi = r.candidate.row.metadata.doi;
  return typeof doi === 'string' && doi !== '' ? `doi\u0000${doi.toLowerCase()}` : `${r.candidate.row.physical}\u0000${r.candidate.row.metadata.doc_id}`;
}

export function distinctDocuments(rows: VerifiedRow[]): number {
  return new Set(rows.map(documentOf)).size;
}

/** Best first by the judge, one chunk per document (its best; a work held by two collections is one document), at most `limit`. */
export function deliverable(rows: VerifiedRow[], limit: number): VerifiedRow[] {
  const sorted = [...rows].sort((a, b) => b.verdict.judgeScore - a.verdict.judgeScore || (b.candidate.row.relevance ?? 0) - (a.candidate.row.relevance ?? 0) || (a.candidate.row.id < b.candidate.row.id ? -1 : 1));
  const seen = new Set<string>();
  const out: VerifiedRow[] = [];
  for (const r of sorted) {
    const doc = documentOf(r);
    if (seen.has(doc)) continue;
    seen.add(doc);
    out.push(r);
    if (out.length >= limit) break;
  }
  return out;
}
