// Document-level retrieval metrics for the quality benchmark: chunk rankings folded to documents, nDCG@k, Recall@k.

/** Distinct document ids in order of their best-ranked chunk (a document counts once, at its first chunk). */
export function documentRanking(chunkDocIds: readonly string[]): string[] {
  const seen = new Set<string>();
  const ranking: string[] = [];
  for (const docId of chunkDocIds) {
    if (seen.has(docId)) continue;
    seen.add(docId);
    ranking.push(docId);
  }
  return ranking;
}

/** nDCG@k with binary gains (every SciFact judgement is 1), log2 discount. */
export function ndcgAt(ranking: readonly string[], relevant: ReadonlySet<string>, k: number): number {
  let dcg = 0;
  for (let i = 0; i < Math.min(k, ranking.length); i++) if (relevant.has(ranking[i]!)) dcg += 1 / Math.log2(i + 2);
  let ideal = 0;
  for (let i = 0; i < Math.min(k, relevant.size); i++) ideal += 1 / Math.log2(i + 2);
  return ideal > 0 ? dcg / ideal : 0;
}

/** Share of the relevant documents found in the first k. */
export function recallAt(ranking: readonly string[], relevant: ReadonlySet<string>, k: number): number {
  if (relevant.size === 0) return 0;
  let found = 0;
  for (let i = 0; i < Math.min(k, ranking.length); i++) if (relevant.has(ranking[i]!)) found++;
  return found / relevant.size;
}

export const mean = (values: readonly number[]): number =>
  values.length === 0 ? 0 : values.reduce((sum, v) => sum + v, 0) / values.length;
