// The reranker: puts every candidate of every searched collection on one relevance scale (0..1) and merges them.
import { compareRanked } from "./fusion.js";
import type { RetrievalMode, SearchHit } from "./port.js";
import { RELEVANCE_MODEL, relevanceOf, type RelevanceModel, type RequestTraits } from "./relevance.js";

/** One engine's hits for one physical collection, searched in that collection's mode. */
export interface RankedList {
  key: string;
  /** the physical collection (index) the hits come from; several keys may search the same one */
  source: string;
  mode: RetrievalMode;
  hits: SearchHit[];
}

export interface MergedHit {
  listKey: string;
  /** the physical collection of the hit */
  source: string;
  hit: SearchHit;
  /** relevance before rounding (relevance.ts: the probability that the row's work answers the request) */
  calibrated: number;
  /** what the API returns: 0..1, three decimals */
  relevance: number;
}

const roundRelevance = (x: number): number => Math.round(Math.min(1, Math.max(0, x)) * 1000) / 1000;

/**
 * Merges per-collection hit lists into the best `limit` on the relevance scale (relevance.ts). Each list is already
 * the best of its collection by engine score, and relevance rises with the score within a list (one best score, one
 * request), so the top `limit` of each list is enough and each list keeps its engine order. A row's relevance
 * reads its own list only (its score against that list's best), never another collection's rows.
 * Ties break as the engines break them (score, cosine, BM25, chunk id), then by list key, so the order is total.
 * A chunk is one result however it was reached: a meta-collection requested beside one of its members searches that
 * member twice, and the chunk stands once, under the first list key in that order (each row is billed).
 * `wholeBest`: a list searched within some works only (an alert's run: the works new to it) reads its rows against the
 * best score of its whole collection's list (by physical collection), as its rows would read in that list.
 */
export function mergeByRelevance(
  lists: readonly RankedList[],
  limit: number,
  request: RequestTraits,
  model: RelevanceModel = RELEVANCE_MODEL,
  wholeBest?: ReadonlyMap<string, number>,
): MergedHit[] {
  const all: MergedHit[] = [];
  for (const list of lists) {
    // the engine returns its list best first; the maximum guards a list handed over in another order
    const best = list.hits.reduce((max, hit) => Math.max(max, hit.score), wholeBest?.get(list.source) ?? -Infinity);
    for (const hit of list.hits) {
      const calibrated = relevanceOf(model[list.mode], { score: hit.score, best, request });
      all.push({ listKey: list.key, source: list.source, hit, calibrated, relevance: roundRelevance(calibrated) });
    }
  }
  all.sort(
    (a, b) =>
      b.calibrated - a.calibrated ||
      // where relevance cannot tell two rows apart, the engine order stands (fusion.ts compareRanked)
      compareRanked(a.hit, b.hit) ||
      (a.listKey < b.listKey ? -1 : a.listKey > b.listKey ? 1 : 0),
  );
  const seen = new Set<string>();
  const merged: MergedHit[] = [];
  for (const m of all) {
    if (merged.length === limit) break;
    const chunk = `${m.source}\u0000${m.hit.id}`;
    if (seen.has(chunk)) continue;
    seen.add(chunk);
    merged.push(m);
  }
  return merged;
}

/** Raises `best`'s score of `source` (a physical collection) to `score` when that is higher. */
export function keepBest(best: Map<string, number>, source: string, score: number): void {
  best.set(source, Math.max(best.get(source) ?? -Infinity, score));
}

/** The best engine score of each list that has hits, by physical collection (the best of the lists searching one). */
export function bestScores(lists: readonly RankedList[]): Map<string, number> {
  const best = new Map<string, number>();
  for (const list of lists) for (const hit of list.hits) keepBest(best, list.source, hit.score);
  return best;
}
