// The judge's pool of one request in the benchmarks, as an assisted search's first round gathers it: each planned
// sub-question searched in one collection with its share of the candidate budget, the hits merged by chunk id (a
// chunk found twice keeps its better score), the best `budget` by retrieval score.
import type { Embedder } from "../src/embedding/port.js";
import type { PlainCollection } from "../src/domain/collectionDefinitions.js";
import type { Candidate } from "../src/reasoner/port.js";
import type { SearchEngine } from "../src/retrieval/port.js";
import { searchCollections } from "../src/usecases/search/collectionSearch.js";
import { candidatesPerSubQuestion } from "../workflows/candidateBudget.js";

export interface PooledCandidate {
  candidate: Candidate;
  docId: string;
}

export async function judgePool(
  deps: { engine: SearchEngine; embedder: Embedder },
  key: string,
  collection: PlainCollection,
  subQuestions: readonly string[],
  budget: number,
): Promise<PooledCandidate[]> {
  const perSub = candidatesPerSubQuestion(subQuestions.length, budget);
  const merged = new Map<string, PooledCandidate>();
  for (const subQuestion of subQuestions) {
    const hits = await searchCollections(deps, [{ key, collection }], subQuestion, perSub);
    hits.forEach(({ hit, relevance }, rank) => {
      const known = merged.get(hit.id);
      if (known && known.candidate.retrievalScore >= relevance) return;
      merged.set(hit.id, {
        docId: String(hit.chunk.metadata.doc_id),
        candidate: {
          id: hit.id,
          collection: key,
          text: hit.chunk.text,
          section: (hit.chunk.metadata.section as string | null | undefined) ?? null,
          title: (hit.chunk.metadata.title as string | null | undefined) ?? null,
          subQuestion,
          retrievalScore: relevance,
          rank,
        },
      });
    });
  }
  return [...merged.values()].sort((a, b) => b.candidate.retrievalScore - a.candidate.retrievalScore).slice(0, budget);
}
