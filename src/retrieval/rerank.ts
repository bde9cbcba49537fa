// The reranker: puts every candidate of every searched collection on one relevance scale (0..1) and merges them.
import { compareRanked } from "./fusion.js";
import type { RetrievalMode, SearchHit } from "./port.js";

/**
 * Logistic calibration of one retrieval mode's engine score: relevance = 1 / (1 + exp(-(intercept + slope * score))).
 * Engine scores are absolute (fusion.ts: cosine, BM25 over the query's BM25 ceiling, or their convex combination),
 * but the three modes spread differently: a cosine of 0.5 and a BM25 share of 0.5 do not mean the same. Fitted per
 * mode on the SciFact train judgements (bench/quality.ts --fit), the curves turn each mode's score into an estimate
 * of the probability that the chunk's document is relevant, which is one scale whatever the collection or mode.
 */
export interface ModeCalibration {
  intercept: number;
  slope: number;
}

/**
 * Fitted by `npm run bench:quality -- --fit`: logistic regression of "the chunk's document is judged relevant" on
 * the engine score of the first 30 chunks of each of the 809 SciFact train queries (24,270 samples per mode, about
 * 1,600 positive), with bge-small-en-v1.5 vectors and HYBRID_ALPHA 0.85. Refit whenever fusion.ts or the embedding
 * model changes how engine scores are made (bge's cosines sit in a narrow band, hence the steep dense curve).
 */
export const CALIBRATION: Readonly<Record<RetrievalMode, ModeCalibration>> = {
  sparse: { intercept: -6.18, slope: 13.48 },
  dense: { intercept: -28.05, slope: 34.14 },
  hybrid: { intercept: -22.88, slope: 30.57 },
};

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
  /** calibrated relevance before rounding */
  calibrated: number;
  /** what the API returns: 0..1, three decimals */
  relevance: number;
}

export const roundRelevance = (x: number): number => Math.round(Math.min(1, Math.max(0, x)) * 1000) / 1000;

/** The calibrated relevance of an engine score in a mode; strictly increasing in the score (slopes are positive). */
export function calibratedRelevance(
  mode: RetrievalMode,
  engineScore: number,
  calibration: Readonly<Record<RetrievalMode, ModeCalibration>> = CALIBRATION,
): number {
  const { intercept, slope } = calibration[mode];
  return 1 / (1 + Math.exp(-(intercept + slope * engineScore)));
}

/**
 * Merges per-collection hit lists into the best `limit` on the calibrated scale. Each list is already the best of
 * its collection by engine score, and calibration is monotone per mode, so the top `limit` of each list is enough.
 * Ties break as the engines break them (score, cosine, BM25, chunk id), then by list key, so the order is total.
 * A chunk is one result however it was reached: a meta-collection requested beside one of its members searches that
 * member twice, and the chunk stands once, under the first list key in that order (each row is billed).
 */
export function mergeByRelevance(
  lists: readonly RankedList[],
  limit: number,
  calibration: Readonly<Record<RetrievalMode, ModeCalibration>> = CALIBRATION,
): MergedHit[] {
  const all: MergedHit[] = [];
  for (const list of lists) {
    for (const hit of list.hits) {
      const calibrated = calibratedRelevance(list.mode, hit.score, calibration);
      all.push({ listKey: list.key, source: list.source, hit, calibrated, relevance: roundRelevance(calibrated) });
    }
  }
  all.sort(
    (a, b) =>
      b.calibrated - a.calibrated ||
      // where calibration cannot tell two scores apart, the engine order stands (fusion.ts compareRanked)
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
