// Merges per-collection hit lists into one list on one relevance scale (0..1, three decimals).
import type { SearchHit } from './port.js';

export interface MergedHit {
  listKey: string;
  hit: SearchHit;
  relevance: number;
}

export const roundRelevance = (x: number) => Math.round(Math.min(1, Math.max(0, x)) * 1000) / 1000;

/**
 * Engines return scores already on 0..1 (fusion.ts); the merge sorts every candidate by that score,
 * breaks ties by id so the order is deterministic, and drops duplicates of one chunk reached twice.
 */
export function mergeByRelevance(lists: { key: string; hits: SearchHit[] }[], limit: number): MergedHit[] {
  const all: MergedHit[] = [];
  const seen = new Set<string>();
  for (const l of lists) {
    for (const hit of l.hits) {
      const uniq = `${l.key}\u0000${hit.id}`;
      if (seen.has(uniq)) continue;
      seen.add(uniq);
      all.push({ listKey: l.key, hit, relevance: roundRelevance(hit.score) });
    }
  }
  all.sort((a, b) => b.hit.score - a.hit.score || (a.hit.id < b.hit.id ? -1 : 1));
  return all.slice(0, limit);
}
