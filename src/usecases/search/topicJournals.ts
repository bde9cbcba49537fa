// How much relevant content each journal of a collection holds on a topic: the weights that rank a topic-scoped
// journals listing where no journal matches the topic by title or subject (subjectMatch.ts). Retrieval is the search
// pipeline's own step, so the weights read like search relevance.
import type { PlainCollection } from "../../domain/collectionDefinitions.js";
import { searchCollections } from "./collectionSearch.js";
import type { SearchDeps } from "./pipeline.js";
import { journalKey } from "../../domain/inventory.js";

/**
 * Chunks retrieved per topic. A listing ranks journals, not chunks, so it looks far deeper than a search page: at 300
 * a journal with a handful of relevant documents still shows up beside one holding dozens, and past the first few
 * hundred chunks the calibrated relevance is near zero and would add nothing but noise.
 */
const TOPIC_RETRIEVAL_DEPTH = 300;

interface JournalTopicWeight {
  /** sum over the journal's retrieved documents of each document's best calibrated relevance (0..1 each) */
  weight: number;
  /** retrieved chunks of the journal's documents */
  chunks: number;
  /** retrieved documents of the journal */
  documents: number;
}

/**
 * Weights per journal key (journalKey: the smallest canonical ISSN, else the lower-cased title) for `topic` in one
 * physical collection, retrieved in the collection's own mode through searchCollections (fragments dropped, engine
 * scores calibrated by the reranker; nothing billed or recorded). A document counts once, at its best chunk: a long
 * article cut into many chunks is not more relevant than a short one, and the same rule scores the quality bench.
 * Chunks without ISSN or title belong to no journal and are left out.
 */
export async function journalWeightsForTopic(
  deps: Pick<SearchDeps, "engine" | "embedder">,
  collection: PlainCollection,
  topic: string,
): Promise<Map<string, JournalTopicWeight>> {
  const hits = await searchCollections(deps, [{ key: collection.name, collection }], topic, TOPIC_RETRIEVAL_DEPTH);
  const weights = new Map<string, JournalTopicWeight>();
  const counted = new Set<string>();
  // best first, so a document's first hit is its best chunk
  for (const { hit, calibrated } of hits) {
    const key = journalKey(hit.chunk.metadata);
    if (key === null) continue;
    let weight = weights.get(key);
    if (!weight) {
      weight = { weight: 0, chunks: 0, documents: 0 };
      weights.set(key, weight);
    }
    weight.chunks += 1;
    if (counted.has(hit.chunk.metadata.doc_id)) continue;
    counted.add(hit.chunk.metadata.doc_id);
    weight.documents += 1;
    weight.weight += calibrated;
  }
  return weights;
}
