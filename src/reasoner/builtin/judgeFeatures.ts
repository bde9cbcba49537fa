// Evidence features of one candidate chunk for the built-in judge: embedding similarity of the query and of the
// sub-questions with the chunk, BM25-style coverage of the query terms by the chunk and by its best sentence, entity
// matches, and the retrieval score, each absolute, relative to the best candidate of the same call, and the best of
// the chunk's document. (Embedding the best sentence as well was tried and dropped: on SciFact train it added nothing
// over the chunk's stored vector, at about a second of inference per call on 2 cores. Reading a shortlist with a
// cross-encoder and a second bi-encoder was tried as a second stage, bench/judgeStages.ts, and is not shipped: see
// judge.ts.)
import { splitSentences } from "../../ingest/sentences.js";
import { analyzeEnglish } from "../../text/englishAnalyzer.js";
import type { Candidate } from "../port.js";

/** Names of the features, in the order of the vectors `candidateFeatures` returns (the calibration file keys them). */
export const FEATURE_NAMES = [
  "cosQuery",
  "cosSubQuestion",
  "retrieval",
  "termCoverage",
  "sentenceCoverage",
  "entityCoverage",
  "cosQueryGap",
  "retrievalGap",
  "sentenceCoverageGap",
  "logRank",
  "documentChunks",
  "documentCosQuery",
  "documentSentenceCoverage",
  "documentRetrieval",
  "bigramCoverage",
  "titleCoverage",
] as const;

export type FeatureName = (typeof FEATURE_NAMES)[number];

/** A chunk's text cut into sentences (the title first, when it has one), each with its analyzed terms. */
interface SentenceTerms {
  text: string;
  terms: Set<string>;
  /** adjacent analyzed terms, "a b" */
  bigrams: Set<string>;
}

function bigramsOf(terms: readonly string[]): Set<string> {
  const pairs = new Set<string>();
  for (let i = 1; i < terms.length; i++) pairs.add(`${terms[i - 1]} ${terms[i]}`);
  return pairs;
}

export function sentencesOf(candidate: Pick<Candidate, "text" | "title">): SentenceTerms[] {
  const sentences = candidate.title
    ? [candidate.title, ...splitSentences(candidate.text)]
    : splitSentences(candidate.text);
  return sentences
    .filter((s) => s.trim().length > 0)
    .map((text) => {
      const terms = analyzeEnglish(text);
      return { text, terms: new Set(terms), bigrams: bigramsOf(terms) };
    });
}

/** Query terms weighted by how rare they are among the call's candidates (a local idf: common to all says little). */
export function termWeights(
  queryTerms: readonly string[],
  candidateTerms: readonly Set<string>[],
): Map<string, number> {
  const weights = new Map<string, number>();
  const n = candidateTerms.length;
  for (const term of new Set(queryTerms)) {
    let df = 0;
    for (const terms of candidateTerms) if (terms.has(term)) df++;
    weights.set(term, Math.log(1 + (n + 1) / (df + 0.5)));
  }
  return weights;
}

function weightedCoverage(weights: ReadonlyMap<string, number>, terms: ReadonlySet<string>): number {
  let total = 0;
  let found = 0;
  for (const [term, weight] of weights) {
    total += weight;
    if (terms.has(term)) found += weight;
  }
  return total > 0 ? found / total : 0;
}

/** An entity's analyzed terms; it matches a chunk that holds all of them (a one-term entity: that term). */
export function entityTerms(entities: readonly string[]): string[][] {
  return entities.map((entity) => [...new Set(analyzeEnglish(entity))]).filter((terms) => terms.length > 0);
}

function entityMatches(entities: readonly string[][], terms: ReadonlySet<string>): number {
  let matched = 0;
  for (const entity of entities) {
    const hits = entity.filter((t) => terms.has(t)).length;
    matched += hits === entity.length ? 1 : hits / entity.length / 2;
  }
  return matched;
}

export function cosine(a: Float32Array, b: Float32Array): number {
  let sum = 0;
  for (let i = 0; i < a.length; i++) sum += a[i]! * b[i]!;
  return sum;
}

/** What the feature computation needs for one call, computed once. */
export interface JudgeInputs {
  queryTerms: string[];
  entities: string[][];
  candidates: readonly Candidate[];
  sentences: SentenceTerms[][];
  /** per candidate: cosine of the query and of the chunk (stored or embedded vector), null when unknown */
  cosQuery: (number | null)[];
  /** per candidate: best cosine of any sub-question with the chunk, null when unknown */
  cosSubQuestion: (number | null)[];
}

/** Index of the sentence that covers the most query weight (ties: the earlier one; the title only when alone). */
export function bestSentenceIndex(
  weights: ReadonlyMap<string, number>,
  sentences: readonly SentenceTerms[],
  hasTitle: boolean,
): number {
  let best = -1;
  let bestScore = -1;
  sentences.forEach((sentence, index) => {
    const score = weightedCoverage(weights, sentence.terms) - (hasTitle && index === 0 ? 0.001 : 0);
    if (score > bestScore) {
      bestScore = score;
      best = index;
    }
  });
  return best;
}

/** The document a chunk belongs to, as far as a candidate tells: its title, else its own id. */
export const documentKeyOf = (candidate: Pick<Candidate, "title" | "id" | "collection">): string =>
  candidate.title
    ? `${candidate.collection}\u0000${candidate.title.trim().toLowerCase()}`
    : `${candidate.collection}\u0000${candidate.id}`;

/** One feature vector per candidate, in FEATURE_NAMES order. A missing cosine counts as 0 (no evidence of meaning). */
export function candidateFeatures(inputs: JudgeInputs): number[][] {
  const chunkTerms = inputs.sentences.map((sentences) => {
    const all = new Set<string>();
    for (const s of sentences) for (const t of s.terms) all.add(t);
    return all;
  });
  const weights = termWeights(inputs.queryTerms, chunkTerms);
  const queryBigrams = bigramsOf(inputs.queryTerms);
  const perDocument = new Map<string, number>();
  for (const candidate of inputs.candidates)
    perDocument.set(documentKeyOf(candidate), (perDocument.get(documentKeyOf(candidate)) ?? 0) + 1);
  const rows = inputs.candidates.map((candidate, i) => {
    const sentences = inputs.sentences[i]!;
    const termCoverage = weightedCoverage(weights, chunkTerms[i]!);
    const sentenceCoverage = sentences.reduce((best, s) => Math.max(best, weightedCoverage(weights, s.terms)), 0);
    const entityCoverage =
      inputs.entities.length > 0
        ? entityMatches(inputs.entities, chunkTerms[i]!) / inputs.entities.length
        : termCoverage;
    const cosQuery = inputs.cosQuery[i] ?? 0;
    // phrases of the query said the same way in one sentence ("vitamin D supplementation")
    const bigramCoverage =
      queryBigrams.size > 0
        ? sentences.reduce((best, s) => Math.max(best, [...queryBigrams].filter((b) => s.bigrams.has(b)).length), 0) /
          queryBigrams.size
        : 0;
    const titleCoverage = candidate.title && sentences[0] ? weightedCoverage(weights, sentences[0].terms) : 0;
    return {
      bigramCoverage,
      titleCoverage,
      cosQuery,
      cosSubQuestion: inputs.cosSubQuestion[i] ?? cosQuery,
      retrieval: candidate.retrievalScore,
      termCoverage,
      sentenceCoverage,
      entityCoverage,
      logRank: Math.log1p(candidate.rank),
      documentChunks: Math.min(3, perDocument.get(documentKeyOf(candidate)) ?? 1),
    };
  });
  const maxOf = (pick: (r: (typeof rows)[number]) => number) => rows.reduce((m, r) => Math.max(m, pick(r)), -Infinity);
  // the best of each document's chunks: a document is delivered once, for its best chunk
  const documentBest = new Map<string, { cos: number; coverage: number; retrieval: number }>();
  rows.forEach((r, i) => {
    const key = documentKeyOf(inputs.candidates[i]!);
    const known = documentBest.get(key) ?? { cos: -Infinity, coverage: -Infinity, retrieval: -Infinity };
    documentBest.set(key, {
      cos: Math.max(known.cos, r.cosQuery),
      coverage: Math.max(known.coverage, r.sentenceCoverage),
      retrieval: Math.max(known.retrieval, r.retrieval),
    });
  });
  const bestCos = maxOf((r) => r.cosQuery);
  const bestRetrieval = maxOf((r) => r.retrieval);
  const bestSentence = maxOf((r) => r.sentenceCoverage);
  return rows.map((r, i) => {
    const document = documentBest.get(documentKeyOf(inputs.candidates[i]!))!;
    const named: Record<FeatureName, number> = {
      ...r,
      documentCosQuery: document.cos,
      documentSentenceCoverage: document.coverage,
      documentRetrieval: document.retrieval,
      cosQueryGap: r.cosQuery - bestCos,
      retrievalGap: r.retrieval - bestRetrieval,
      sentenceCoverageGap: r.sentenceCoverage - bestSentence,
    };
    return FEATURE_NAMES.map((name) => named[name]);
  });
}
