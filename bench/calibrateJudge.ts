// Fits and calibrates the built-in judge on SciFact train (never the test split) and writes
// src/reasoner/builtin/judgeCalibration.json, bench/judgeFolds.json and docs/judge-calibration.svg. Each train claim
// (and each off-topic question of offTopicQuestions.ts) runs through the built-in understanding and planning, the
// hybrid retrieval of the scifact collection (searchCollections, a candidate budget per call split over the
// sub-questions) and the judge's feature computation; candidates are labelled relevant when their document is in the
// train qrels. Two stages are tried (bench/judgeStages.ts): a logistic regression on the evidence features, the judge
// the service runs; then two readers (a cross-encoder and a second bi-encoder) read the pool's chunks of the first
// stage's best documents (the shortlist, chosen by the held-out first-stage model), and gradient-boosted trees
// (--second logistic: a second regression) judge with the evidence features and the readings. The service has no second
// stage: when it wins, this says so and the service keeps judging with the first (bring the stage back into
// src/reasoner/builtin/judge.ts to use it). The readers need `bash scripts/provision-bge-small.sh --reranker`. Both are
// cross-validated with 5 folds of claims, claims that share a relevant document kept in one fold (claimFolds in
// judgeFolds.ts): each fold's model is fitted on the other four, and its delivery rule chosen on their own held-out
// probabilities (a cross-validation inside the four); the figures reported are those of the held-out folds, and
// bench/judgeFolds.json keeps each fold's models for bench/assisted.ts. The final models are fitted on everything, with
// the rule chosen on the held-out probabilities. Shortlists of several sizes are compared. Readings are cached per
// reader in data/bench/judge-reads.json. --first-only fits and reports the first stage alone (no readers needed; the
// report says the second was not tried). The judge in bench/judgeFolds.json (each fold's model and rule) is first
// judged on the same claims and pool, held out as before: the files are rewritten only when the re-fit's held-out
// balance beats it (or with --write), so a change of retrieval is met by a re-fit only where one helps. Usage: npx tsx
// bench/calibrateJudge.ts [--queries N] [--refresh] [--budget 50] [--features a,b,c] [--shortlist N]
//   [--second trees|logistic] [--first-only] [--write]
import { existsSync } from "node:fs";
import { mkdir, readFile, writeFile } from "node:fs/promises";
import { dirname, join } from "node:path";
import { loadavg } from "node:os";
import { parseArgs } from "node:util";
import { REPO_ROOT } from "../src/app/config.js";
import { loadJournalTable } from "../src/filters/planner.js";
import { splitSentences } from "../src/ingest/sentences.js";
import { CatalogueVocabulary } from "../src/reasoner/builtin/constraints.js";
import { planByRules } from "../src/reasoner/builtin/builtinReasoner.js";
import { understandByRules } from "../src/reasoner/builtin/understanding.js";
import { CANDIDATES_PER_CALL } from "../workflows/candidateBudget.js";
import { chunkPassage, prepareJudgement } from "../src/reasoner/builtin/judge.js";
import { documentKeyOf } from "../src/reasoner/builtin/judgeFeatures.js";
import {
  openJudgeReaders,
  probabilityOfStage,
  READERS,
  READING_FEATURES,
  readingFeaturesOf,
  shortlist,
  STAGE_FEATURES,
  stageFeatures,
  unread,
  type FittedStage,
  type ReaderName,
  type Readings,
  type StageFeature,
  type StageModel,
} from "./judgeStages.js";
import type { Candidate } from "../src/reasoner/port.js";
import type { ChunkRecord } from "../src/retrieval/port.js";
import { fitBoostedTrees } from "./boostedTrees.js";
import { judgePool } from "./judgePool.js";
import { claimFolds, FOLDS, JUDGE_FOLDS_PATH, loadJudgeFolds, type JudgeFolds } from "./judgeFolds.js";
import { fitLogistic, type LogisticFit, type Sample } from "./logisticRegression.js";
import { OFF_TOPIC_QUESTIONS } from "./offTopicQuestions.js";
import { loadScifactJudgements, openScifactIndex, SCIFACT_COLLECTION } from "./scifactBench.js";

const { values: args } = parseArgs({
  options: {
    queries: { type: "string" },
    refresh: { type: "boolean", default: false },
    budget: { type: "string", default: String(CANDIDATES_PER_CALL) },
    features: { type: "string" },
    limit: { type: "string", default: "10" },
    shortlist: { type: "string" },
    second: { type: "string", default: "trees" },
    "first-only": { type: "boolean", default: false },
    write: { type: "boolean", default: false },
  },
});

const BUDGET = Number(args.budget);
/** rows an assisted call delivers at most (the endpoint's default limit) */
const LIMIT = Number(args.limit);
const CACHE_VERSION = 6;
/** shortlist sizes compared (documents the cross-encoder reads per call) */
const SHORTLISTS = [5, 8, 10];
/** shortlists each reader reads whole with the clock on (cached ones again) */
const TIMED_READS = 100;
const READS_PATH = join(REPO_ROOT, "data", "bench", "judge-reads.json");
const OUT_JSON = join(REPO_ROOT, "src", "reasoner", "builtin", "judgeCalibration.json");
const OUT_SVG = join(REPO_ROOT, "docs", "judge-calibration.svg");

interface CandidateRow {
  docId: string;
  chunkId: string;
  /** documentKeyOf the candidate: which chunks are one document for the judge */
  documentKey: string;
  label: 0 | 1;
  /** the chunk holds one of the claim's evidence sentences (SciFact rationale), as split by splitSentences */
  evidence: boolean;
  /** the judge's best sentence is one of those evidence sentences */
  quotesEvidence: boolean;
  features: number[];
}

interface QueryRow {
  id: string;
  text: string;
  offTopic: boolean;
  relevant: string[];
  subQuestions: number;
  filtered: boolean;
  retrievalMs: number;
  judgeMs: number;
  candidates: CandidateRow[];
}

interface FeatureCache {
  version: number;
  budget: number;
  featureNames: readonly string[];
  /** one-minute load average before and after collecting (the machine is shared) */
  loadAverage: { before: number; after: number };
  queries: QueryRow[];
}

async function evidenceSentences(
  dataRoot: string,
): Promise<{ corpus: Map<string, string[]>; evidence: Map<string, Map<string, number[]>> }> {
  const corpus = new Map<string, string[]>();
  for (const line of (await readFile(join(dataRoot, "scifact", "corpus.jsonl"), "utf8")).split("\n")) {
    if (!line.trim()) continue;
    const doc = JSON.parse(line) as { _id: string; text: string };
    corpus.set(String(doc._id), splitSentences(doc.text));
  }
  const evidence = new Map<string, Map<string, number[]>>();
  for (const line of (await readFile(join(dataRoot, "scifact", "queries.jsonl"), "utf8")).split("\n")) {
    if (!line.trim()) continue;
    const q = JSON.parse(line) as { _id: string; metadata: Record<string, { sentences: number[] }[]> };
    const byDoc = new Map<string, number[]>();
    for (const [doc, sets] of Object.entries(q.metadata ?? {}))
      byDoc.set(
        doc,
        sets.flatMap((s) => s.sentences),
      );
    evidence.set(String(q._id), byDoc);
  }
  return { corpus, evidence };
}

async function collect(): Promise<FeatureCache> {
  const loadBefore = loadavg()[0]!;
  const index = await openScifactIndex();
  try {
    const { queries: all, relevant } = await loadScifactJudgements(index.config.dataRoot);
    const claims = args.queries ? all.slice(0, Number(args.queries)) : all;
    const { corpus, evidence } = await evidenceSentences(index.config.dataRoot);
    const vocabulary = new CatalogueVocabulary(
      (await loadJournalTable(index.config.dataDir, index.config.dataRoot)).journals,
    );
    const now = new Date();
    const collection = index.collection;
    const chunkVectors = async (candidates: readonly Candidate[]) => {
      const chunks = await index.embedded.getChunks(
        SCIFACT_COLLECTION,
        candidates.map((c) => c.id),
      );
      return new Map(chunks.filter((c) => c.vector).map((c) => [c.id, c.vector!]));
    };
    const deps = { embedder: index.embedder, chunkVectors };
    const items = [
      ...claims.map((q) => ({ id: q.id, text: q.text, offTopic: false })),
      ...OFF_TOPIC_QUESTIONS.map((text, i) => ({ id: `off-${i}`, text, offTopic: true })),
    ];
    const rows: QueryRow[] = [];
    let done = 0;
    for (const item of items) {
      const understanding = understandByRules({ query: item.text, callerFilters: null }, { vocabulary, now });
      const subQuestions = planByRules({ query: item.text, understanding, round: 1, searched: [] });
      const t0 = performance.now();
      const pool = await judgePool(
        { engine: index.embedded, embedder: index.embedder },
        SCIFACT_COLLECTION,
        collection,
        subQuestions,
        BUDGET,
      );
      const t1 = performance.now();
      const prepared = await prepareJudgement(
        deps,
        item.text,
        understanding,
        pool.map((p) => p.candidate),
      );
      // the readings are filled in later from the reads (withReadings); the cache holds the evidence features
      const features = stageFeatures(prepared, unread(prepared.candidates.length));
      const t2 = performance.now();
      const judged = relevant.get(item.id) ?? new Set<string>();
      const evidenceByDoc = evidence.get(item.id) ?? new Map<string, number[]>();
      rows.push({
        id: item.id,
        text: item.text,
        offTopic: item.offTopic,
        relevant: [...judged],
        subQuestions: subQuestions.length,
        filtered: understanding.queryFilter !== null,
        retrievalMs: t1 - t0,
        judgeMs: t2 - t1,
        candidates: pool.map((p, i) => {
          const wanted = (evidenceByDoc.get(p.docId) ?? [])
            .map((s) => corpus.get(p.docId)?.[s])
            .filter((s): s is string => Boolean(s));
          const best = prepared.bestSentence[i]!;
          const bestText = best >= 0 ? prepared.sentences[i]![best]!.text : "";
          return {
            docId: p.docId,
            chunkId: p.candidate.id,
            documentKey: documentKeyOf(p.candidate),
            label: judged.has(p.docId) ? 1 : 0,
            evidence: wanted.some((s) => p.candidate.text.includes(s.slice(0, 60))),
            quotesEvidence: wanted.some((s) => bestText.includes(s.slice(0, 60)) || s.includes(bestText.slice(0, 60))),
            features: features[i]!,
          };
        }),
      });
      if (++done % 50 === 0) console.error(`[calibrate] ${done}/${items.length} queries`);
    }
    return {
      version: CACHE_VERSION,
      budget: BUDGET,
      featureNames: STAGE_FEATURES,
      loadAverage: { before: round3(loadBefore), after: round3(loadavg()[0]!) },
      queries: rows,
    };
  } finally {
    await index.close();
  }
}

// ---- evaluation ---------------------------------------------------------------------------------------------

interface Rule {
  threshold: number;
  relativeCut: number;
}

interface Figures {
  precision: number;
  recall: number;
  macroPrecision: number;
  macroRecall: number;
  /** claims with at least one delivered document */
  answered: number;
  offTopicRejected: number;
  deliveredPerClaim: number;
}

/** Documents delivered for one query: verified chunks, deduplicated per document (best chunk), at most LIMIT. */
function delivered(query: QueryRow, probabilities: number[], rule: Rule): string[] {
  const best = Math.max(0, ...probabilities);
  const docs: { doc: string; p: number }[] = [];
  query.candidates.forEach((c, i) => {
    const p = probabilities[i]!;
    if (p >= rule.threshold && p >= rule.relativeCut * best) docs.push({ doc: c.docId, p });
  });
  docs.sort((a, b) => b.p - a.p);
  return [...new Set(docs.map((d) => d.doc))].slice(0, LIMIT);
}

function figuresOf(
  queries: QueryRow[],
  probabilities: Map<string, number[]>,
  rule: Rule | ((query: QueryRow) => Rule),
): Figures {
  let hits = 0;
  let deliveredCount = 0;
  let relevantCount = 0;
  let answered = 0;
  const precisions: number[] = [];
  const recalls: number[] = [];
  let offTopic = 0;
  let offTopicRejected = 0;
  for (const q of queries) {
    const docs = delivered(q, probabilities.get(q.id)!, typeof rule === "function" ? rule(q) : rule);
    if (q.offTopic) {
      offTopic++;
      if (docs.length === 0) offTopicRejected++;
      continue;
    }
    const relevant = new Set(q.relevant);
    const h = docs.filter((d) => relevant.has(d)).length;
    hits += h;
    deliveredCount += docs.length;
    relevantCount += relevant.size;
    if (docs.length > 0) {
      answered++;
      precisions.push(h / docs.length);
    }
    recalls.push(relevant.size > 0 ? h / relevant.size : 0);
  }
  const claims = queries.filter((q) => !q.offTopic).length;
  const mean = (xs: number[]) => (xs.length > 0 ? xs.reduce((s, x) => s + x, 0) / xs.length : 0);
  return {
    precision: deliveredCount > 0 ? hits / deliveredCount : 0,
    recall: relevantCount > 0 ? hits / relevantCount : 0,
    macroPrecision: mean(precisions),
    macroRecall: mean(recalls),
    answered: claims > 0 ? answered / claims : 0,
    offTopicRejected: offTopic > 0 ? offTopicRejected / offTopic : 1,
    deliveredPerClaim: claims > 0 ? deliveredCount / claims : 0,
  };
}

/**
 * Precision and recall when each claim delivers exactly as many documents as it has relevant ones, best first by
 * `probabilities`: a delivery rule told each claim's count by an oracle. It measures the ranking more than the rule: a
 * ranking whose oracle count falls below the target leaves a rule little to win by choosing how many to deliver.
 */
function oracleCountFigures(
  queries: QueryRow[],
  probabilities: Map<string, number[]>,
): { precision: number; recall: number } {
  let hits = 0;
  let deliveredCount = 0;
  let relevantCount = 0;
  for (const q of queries) {
    if (q.offTopic) continue;
    const relevant = new Set(q.relevant);
    const docs = delivered(q, probabilities.get(q.id)!, { threshold: 0, relativeCut: 0 }).slice(0, relevant.size);
    hits += docs.filter((d) => relevant.has(d)).length;
    deliveredCount += docs.length;
    relevantCount += relevant.size;
  }
  return {
    precision: round4(deliveredCount > 0 ? hits / deliveredCount : 0),
    recall: round4(relevantCount > 0 ? hits / relevantCount : 0),
  };
}

const THRESHOLDS = Array.from({ length: 60 }, (_, i) => 0.05 + i * 0.015);
const RELATIVE_CUTS = [0, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9];

/**
 * The rule with the best balance of precision and recall (their minimum, then F1) that rejects the off-topic questions.
 */
function chooseRule(queries: QueryRow[], probabilities: Map<string, number[]>): { rule: Rule; figures: Figures } {
  let best: { rule: Rule; figures: Figures; score: number } | undefined;
  for (const threshold of THRESHOLDS) {
    for (const relativeCut of RELATIVE_CUTS) {
      const rule = { threshold: round3(threshold), relativeCut };
      const figures = figuresOf(queries, probabilities, rule);
      const f1 = (2 * figures.precision * figures.recall) / (figures.precision + figures.recall || 1);
      const offTopicPenalty = figures.offTopicRejected < 0.97 ? 1 : 0;
      const score = Math.min(figures.precision, figures.recall) + 0.1 * f1 - offTopicPenalty;
      if (!best || score > best.score) best = { rule, figures, score };
    }
  }
  return { rule: best!.rule, figures: best!.figures };
}

const round3 = (x: number): number => Math.round(x * 1000) / 1000;
const ruleOfModel = (model: StageModel): Rule => ({ threshold: model.threshold, relativeCut: model.relativeCut });
const round4 = (x: number): number => Math.round(x * 10000) / 10000;
const round6 = (x: number): number => Math.round(x * 1e6) / 1e6;

function samplesOf(queries: QueryRow[], columns: number[]): Sample[] {
  return queries.flatMap((q) => q.candidates.map((c) => ({ x: columns.map((k) => c.features[k]!), y: c.label })));
}

/** A fitted model's probability of one sample's features. */
type Predictor = (x: number[]) => number;

function probabilitiesOf(queries: QueryRow[], predictor: Predictor, columns: number[]): Map<string, number[]> {
  return new Map(
    queries.map((q) => [q.id, q.candidates.map((c) => round3(predictor(columns.map((k) => c.features[k]!))))]),
  );
}

/** The kinds of model a stage can be, each fitted to samples as a FittedStage (a StageModel without its rule). */
type ModelKind = StageModel["kind"];

function fitModel(kind: ModelKind, samples: Sample[], names: StageFeature[]): FittedStage {
  if (kind === "trees") {
    const { base, trees } = fitBoostedTrees(samples);
    return {
      kind,
      features: names,
      base: round6(base),
      trees: trees.map((t) => ({ ...t, threshold: t.threshold.map(round6), value: t.value.map(round6) })),
    };
  }
  const fit: LogisticFit = fitLogistic(samples);
  return {
    kind,
    features: names,
    intercept: round4(fit.intercept),
    weights: fit.weights.map(round4),
    means: fit.means.map(round4),
    scales: fit.scales.map(round4),
  };
}

const predictorOf =
  (model: FittedStage): Predictor =>
  (x) =>
    probabilityOfStage(model, x);

interface ReliabilityBin {
  from: number;
  to: number;
  candidates: number;
  meanPredicted: number;
  observedRelevant: number;
}

function reliability(queries: QueryRow[], probabilities: Map<string, number[]>): ReliabilityBin[] {
  const bins: ReliabilityBin[] = Array.from({ length: 10 }, (_, i) => ({
    from: i / 10,
    to: (i + 1) / 10,
    candidates: 0,
    meanPredicted: 0,
    observedRelevant: 0,
  }));
  for (const q of queries) {
    probabilities.get(q.id)!.forEach((p, i) => {
      const bin = bins[Math.min(9, Math.floor(p * 10))]!;
      bin.candidates++;
      bin.meanPredicted += p;
      bin.observedRelevant += q.candidates[i]!.label;
    });
  }
  return bins.map((b) => ({
    ...b,
    meanPredicted: b.candidates ? round4(b.meanPredicted / b.candidates) : 0,
    observedRelevant: b.candidates ? round4(b.observedRelevant / b.candidates) : 0,
  }));
}

function svgOf(bins: ReliabilityBin[], caption: string): string {
  const size = 360;
  const pad = 48;
  const x = (p: number) => pad + p * size;
  const y = (p: number) => pad + (1 - p) * size;
  // the bars (candidates per bin) stand in their own strip under the axis label; the width leaves room for the title
  // and caption
  const barsBottom = pad + size + 104;
  const width = size + 2 * pad + 300;
  const maxCount = Math.max(...bins.map((b) => b.candidates), 1);
  const bars = bins
    .map((b) => {
      const h = (Math.log1p(b.candidates) / Math.log1p(maxCount)) * 60;
      return (
        `<rect x="${x(b.from) + 2}" y="${barsBottom - h}" width="${size / 10 - 4}" height="${h}" ` +
        `fill="#c8d6e5"><title>${b.candidates} candidates</title></rect>`
      );
    })
    .join("");
  const used = bins.filter((b) => b.candidates > 0);
  const line = used
    .map((b, i) => `${i === 0 ? "M" : "L"}${x(b.meanPredicted).toFixed(1)},${y(b.observedRelevant).toFixed(1)}`)
    .join(" ");
  const dots = used
    .map(
      (b) =>
        `<circle cx="${x(b.meanPredicted).toFixed(1)}" cy="${y(b.observedRelevant).toFixed(1)}" r="4" ` +
        `fill="#1f4e79"><title>predicted ${b.meanPredicted}, observed ${b.observedRelevant}, n=${b.candidates}` +
        "</title></circle>",
    )
    .join("");
  const ticks = [0, 0.25, 0.5, 0.75, 1]
    .map(
      (t) =>
        `<text x="${x(t)}" y="${pad + size + 16}" font-size="11" text-anchor="middle">${t}</text><text x="` +
        `${pad - 8}" y="${y(t) + 4}" font-size="11" text-anchor="end">${t}</text>`,
    )
    .join("");
  return `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${barsBottom + 30}" font-family="sans-serif">
<rect width="100%" height="100%" fill="white"/>
<text x="${pad}" y="24" font-size="14"
  font-weight="bold">Built-in judge: reliability on held-out SciFact train folds</text>
<rect x="${pad}" y="${pad}" width="${size}" height="${size}" fill="none" stroke="#888"/>
<line x1="${x(0)}" y1="${y(0)}" x2="${x(1)}" y2="${y(1)}" stroke="#bbb" stroke-dasharray="4 4"/>
${ticks}
<path d="${line}" fill="none" stroke="#1f4e79" stroke-width="2"/>${dots}
<text x="${pad + size / 2}" y="${pad + size + 32}" font-size="12" text-anchor="middle">judgeScore (mean per bin)</text>
<text x="14" y="${pad + size / 2}" font-size="12" text-anchor="middle"
  transform="rotate(-90 14 ${pad + size / 2})">share of candidates relevant</text>
${bars}
<text x="${pad}" y="${barsBottom + 20}" font-size="11">${caption}</text>
</svg>
`;
}

interface CrossValidation {
  heldOut: Map<string, number[]>;
  ruleOf: Map<string, Rule>;
  /** each fold's model (fitted on the other folds) with its rule */
  foldModels: StageModel[];
  figures: Figures;
}

/** A query's fold (claimFolds over every query of the run, so that an inner cross-validation keeps the same groups). */
type FoldOf = (id: string) => number;

/**
 * Each query's probabilities from the model fitted on the queries of the other folds (of those present), and those
 * models.
 */
function heldOutProbabilities(
  queries: QueryRow[],
  names: StageFeature[],
  kind: ModelKind,
  foldOf: FoldOf,
): { heldOut: Map<string, number[]>; models: FittedStage[] } {
  const columns = names.map((name) => STAGE_FEATURES.indexOf(name));
  const heldOut = new Map<string, number[]>();
  const models: FittedStage[] = [];
  for (let fold = 0; fold < FOLDS; fold++) {
    const train = queries.filter((q) => foldOf(q.id) !== fold);
    const test = queries.filter((q) => foldOf(q.id) === fold);
    if (test.length === 0) continue;
    const fitted = fitModel(kind, samplesOf(train, columns), names);
    models[fold] = fitted;
    for (const [id, p] of probabilitiesOf(test, predictorOf(fitted), columns)) heldOut.set(id, p);
  }
  return { heldOut, models };
}

/**
 * For each fold: the model fitted on the other four, and its rule chosen on their own held-out probabilities (a
 * cross-validation inside the four), since a model's probabilities of the queries it was fitted on are more
 * confident than those of queries it has not seen; probabilities and figures of the fold.
 */
function crossValidate(queries: QueryRow[], names: StageFeature[], kind: ModelKind, foldOf: FoldOf): CrossValidation {
  const { heldOut, models } = heldOutProbabilities(queries, names, kind, foldOf);
  const foldModels: StageModel[] = [];
  const ruleOf = new Map<string, Rule>();
  for (let fold = 0; fold < FOLDS; fold++) {
    const train = queries.filter((q) => foldOf(q.id) !== fold);
    const { rule } = chooseRule(train, heldOutProbabilities(train, names, kind, foldOf).heldOut);
    foldModels.push({ ...models[fold]!, ...rule } as StageModel);
    for (const q of queries) if (foldOf(q.id) === fold) ruleOf.set(q.id, rule);
  }
  return { heldOut, ruleOf, foldModels, figures: figuresOf(queries, heldOut, (q) => ruleOf.get(q.id)!) };
}

/** The final model, fitted on every query, with the rule chosen on the cross-validation's held-out probabilities. */
function finalModel(
  queries: QueryRow[],
  names: StageFeature[],
  kind: ModelKind,
  cv: CrossValidation,
): { model: StageModel; trainFigures: Figures } {
  const columns = names.map((name) => STAGE_FEATURES.indexOf(name));
  const fitted = fitModel(kind, samplesOf(queries, columns), names);
  const { rule } = chooseRule(queries, cv.heldOut);
  return {
    model: { ...fitted, threshold: rule.threshold, relativeCut: rule.relativeCut } as StageModel,
    trainFigures: figuresOf(queries, probabilitiesOf(queries, predictorOf(fitted), columns), rule),
  };
}

interface Reads {
  /** reader model name -> query id -> chunk id -> its score of (claim, chunk) */
  scores: Record<string, Record<string, Record<string, number>>>;
  /** reader model name -> milliseconds per chunk of each shortlist it read whole (one reader, one call at a time) */
  msPerChunk: Record<string, number[]>;
}

/** Every reader's reading of each query's shortlist (the held-out first stage's best documents); cached per reader. */
async function readShortlists(
  queries: QueryRow[],
  firstStage: Map<string, number[]>,
  documents: number,
): Promise<{ reads: Reads; models: Record<ReaderName, string> }> {
  const index = await openScifactIndex();
  const readers = await openJudgeReaders(index.config);
  const reads: Reads = existsSync(READS_PATH)
    ? (JSON.parse(await readFile(READS_PATH, "utf8")) as Reads)
    : { scores: {}, msPerChunk: {} };
  try {
    let done = 0;
    for (const q of queries) {
      const ids = shortlist(
        q.candidates.map((c) => c.documentKey),
        firstStage.get(q.id)!,
        documents,
      ).map((i) => q.candidates[i]!.chunkId);
      // the chunks are fetched once a reader has something to read: a fully cached shortlist needs none
      let chunks: Map<string, ChunkRecord> | undefined;
      for (const reader of READERS) {
        const model = readers[reader].modelName;
        const known = ((reads.scores[model] ??= {})[q.id] ??= {});
        const timed = (reads.msPerChunk[model] ??= []);
        // a cached shortlist is read again until TIMED_READS are timed; its scores must come out the same
        const wanted = timed.length < TIMED_READS ? ids : ids.filter((id) => !(id in known));
        if (wanted.length === 0) continue;
        const byId = (chunks ??= new Map(
          (await index.embedded.getChunks(SCIFACT_COLLECTION, ids)).map((c) => [c.id, c]),
        ));
        const passages = wanted.map((id) => {
          const chunk = byId.get(id);
          if (!chunk) throw new Error(`chunk ${id} is not in the bench index`);
          return chunkPassage({ title: (chunk.metadata.title as string | null | undefined) ?? null, text: chunk.text });
        });
        const t0 = performance.now();
        const scores = await readers[reader].score(q.text, passages);
        if (wanted.length === ids.length) timed.push(round3((performance.now() - t0) / wanted.length));
        wanted.forEach((id, k) => {
          if (id in known && Math.abs(known[id]! - scores[k]!) > 1e-3)
            throw new Error(
              `${model} read ${id} for ${q.id} as ${scores[k]}, cached ${known[id]}: the cache is stale ` +
                `(delete ${READS_PATH})`,
            );
          known[id] = round4(scores[k]!);
        });
      }
      if (++done % 100 === 0) {
        console.error(`[calibrate] read ${done}/${queries.length} shortlists`);
        await writeFile(READS_PATH, JSON.stringify(reads));
      }
    }
    await writeFile(READS_PATH, JSON.stringify(reads));
    return {
      reads,
      models: Object.fromEntries(READERS.map((reader) => [reader, readers[reader].modelName])) as Record<
        ReaderName,
        string
      >,
    };
  } finally {
    await readers.close();
    await index.close();
  }
}

/** The queries with the readers' features of the first `documents` of each shortlist (the rest unread). */
function withReadings(
  queries: QueryRow[],
  firstStage: Map<string, number[]>,
  reads: Reads,
  models: Record<ReaderName, string>,
  documents: number,
): QueryRow[] {
  return queries.map((q) => {
    const keys = q.candidates.map((c) => c.documentKey);
    const chosen = new Set(shortlist(keys, firstStage.get(q.id)!, documents));
    const readings = Object.fromEntries(
      READERS.map((reader) => [
        reader,
        q.candidates.map((c, i) =>
          chosen.has(i) ? (reads.scores[models[reader]]?.[q.id]?.[c.chunkId] ?? null) : null,
        ),
      ]),
    ) as unknown as Readings;
    const reading = readingFeaturesOf(readings, keys);
    return {
      ...q,
      candidates: q.candidates.map((c, i) => {
        const features = [...c.features];
        for (const name of READING_FEATURES) features[STAGE_FEATURES.indexOf(name)] = reading[i]![name];
        return { ...c, features };
      }),
    };
  });
}

/** The best balance of precision and recall (their minimum, then F1), as chooseRule scores a rule. */
const balance = (f: Figures): number =>
  Math.min(f.precision, f.recall) + 0.1 * ((2 * f.precision * f.recall) / (f.precision + f.recall || 1));

/**
 * Stage 2: the readers read the first stage's shortlists, and a model judges with their readings, per shortlist size.
 */
async function secondStageOf(
  queries: QueryRow[],
  first: CrossValidation,
  foldOf: FoldOf,
  secondNames: StageFeature[],
  secondKind: ModelKind,
) {
  const { reads, models } = await readShortlists(queries, first.heldOut, Math.max(...SHORTLISTS));
  // the readers read side by side on their worker threads in the service; here one at a time, so the sum bounds a
  // chunk's reading
  const readerMsPerChunk = Object.fromEntries(
    READERS.map((reader) => [reader, pct(reads.msPerChunk[models[reader]] ?? [], 0.5)]),
  ) as Record<ReaderName, number>;
  const msPerChunk = round3(READERS.reduce((sum, reader) => sum + readerMsPerChunk[reader], 0));
  const sweep = SHORTLISTS.map((documents) => {
    const cv = crossValidate(
      withReadings(queries, first.heldOut, reads, models, documents),
      secondNames,
      secondKind,
      foldOf,
    );
    const pairs = pct(
      queries.map(
        (q) =>
          shortlist(
            q.candidates.map((c) => c.documentKey),
            first.heldOut.get(q.id)!,
            documents,
          ).length,
      ),
      0.5,
    );
    return { documents, cv, pairsP50: pairs, readMsP50: round3(msPerChunk * pairs) };
  });
  const chosen = args.shortlist
    ? sweep.find((s) => s.documents === Number(args.shortlist))
    : sweep.reduce((best, s) => (balance(s.cv.figures) > balance(best.cv.figures) + 0.002 ? s : best));
  if (!chosen) throw new Error(`--shortlist must be one of ${SHORTLISTS.join(", ")}`);
  const secondQueries = withReadings(queries, first.heldOut, reads, models, chosen.documents);
  return { models, readerMsPerChunk, sweep, chosen, secondQueries };
}

/**
 * Held-out figures of the judge in bench/judgeFolds.json on these queries: each claim judged by its fold's one-stage
 * model with that fold's rule (the folds are the same: claimFolds depends on the qrels only). Null without the file,
 * or when its folds need a second stage.
 */
async function currentFoldsFigures(queries: QueryRow[], foldOf: FoldOf): Promise<Figures | null> {
  if (!existsSync(JUDGE_FOLDS_PATH)) return null;
  const { folds } = await loadJudgeFolds();
  if (folds.length !== FOLDS || folds.some((f) => f.withReader !== null)) return null;
  const probabilities = new Map(
    queries.map((q) => {
      const model = folds[foldOf(q.id)]!.firstStage;
      const columns = model.features.map((name) => STAGE_FEATURES.indexOf(name as StageFeature));
      return [
        q.id,
        q.candidates.map((c) =>
          round3(
            probabilityOfStage(
              model,
              columns.map((k) => c.features[k]!),
            ),
          ),
        ),
      ];
    }),
  );
  return figuresOf(queries, probabilities, (q) => ruleOfModel(folds[foldOf(q.id)]!.firstStage));
}

async function main(): Promise<void> {
  const cachePath = join(
    REPO_ROOT,
    "data",
    "bench",
    `judge-features.b${BUDGET}${args.queries ? `.q${args.queries}` : ""}.json`,
  );
  let cache: FeatureCache | undefined;
  if (!args.refresh && existsSync(cachePath)) {
    const stored = JSON.parse(await readFile(cachePath, "utf8")) as FeatureCache;
    // the readers' features are filled in from the reads (withReadings); the cache holds the first stage's
    if (
      stored.version === CACHE_VERSION &&
      stored.featureNames.filter((name) => !isReading(name as StageFeature)).join() === FIRST_STAGE_FEATURES.join()
    )
      cache = stored;
  }
  if (!cache) {
    cache = await collect();
    await mkdir(dirname(cachePath), { recursive: true });
    await writeFile(cachePath, JSON.stringify(cache));
  }
  const queries = cache.queries;
  const firstNames = (args.features?.split(",") ?? FIRST_STAGE_FEATURES) as StageFeature[];
  for (const name of firstNames) {
    if (!STAGE_FEATURES.includes(name) || isReading(name))
      throw new Error(`unknown first-stage feature ${name} (${FIRST_STAGE_FEATURES.join(", ")})`);
  }
  const secondKind = args.second as ModelKind;
  if (secondKind !== "logistic" && secondKind !== "trees") throw new Error("--second must be logistic or trees");
  const secondNames = [...firstNames, ...READING_FEATURES];

  // stage 1: the evidence features; its held-out probabilities choose each query's shortlist
  const foldOf = claimFolds(new Map(queries.map((q) => [q.id, q.relevant])));
  const first = crossValidate(queries, firstNames, "logistic", foldOf);
  const current = await currentFoldsFigures(queries, foldOf);
  const tried = args["first-only"] ? null : await secondStageOf(queries, first, foldOf, secondNames, secondKind);
  if (!tried) console.error("[calibrate] --first-only: the second stage (the readers) is not tried");
  const secondStage = tried?.chosen.cv ?? null;
  // the readers are kept only when their held-out figures beat the first stage's: reading costs about half a second a
  // call, and with bge-small-en-v1.5 as the index's model (its cosine already a first-stage feature) they did not
  const twoStages = tried !== null && balance(tried.chosen.cv.figures) > balance(first.figures) + 0.002;
  const second = twoStages ? tried.chosen.cv : first;
  const secondQueries = tried?.secondQueries ?? queries;
  const judgedQueries = twoStages ? secondQueries : queries;

  const { model, trainFigures: firstTrainFigures } = finalModel(queries, firstNames, "logistic", first);
  const fittedSecond = twoStages ? finalModel(secondQueries, secondNames, secondKind, tried.chosen.cv) : null;
  const readerModel = fittedSecond?.model ?? null;
  if (twoStages)
    console.error(
      "[calibrate] the second stage beats the first on held-out claims, but the service runs one stage: it " +
        "keeps judging with the first (src/reasoner/builtin/judge.ts)",
    );
  const trainFigures = fittedSecond?.trainFigures ?? firstTrainFigures;
  const bins = reliability(judgedQueries, second.heldOut);
  const claims = queries.filter((q) => !q.offTopic);
  const top1 = { threshold: 0, relativeCut: 1 };
  const retrievalOnly = new Map(
    queries.map((q) => [q.id, q.candidates.map((c) => c.features[STAGE_FEATURES.indexOf("retrieval")]!)]),
  );
  const evidenceRows = claims.flatMap((q) => q.candidates.filter((c) => c.label === 1 && c.evidence));
  const report = {
    $comment:
      "Written by bench/calibrateJudge.ts (SciFact train only; figures from 5-fold cross-validation, claims " +
      "grouped by shared relevant documents). Do not edit by hand.",
    model,
    readerModel,
    stages: twoStages ? 2 : 1,
    shortlistDocuments: twoStages ? tried.chosen.documents : 0,
    fittedOn: {
      dataset:
        "SciFact (BEIR) train claims, qrels/train.tsv, and the off-topic questions of bench/offTopicQuestions.ts",
      claims: claims.length,
      offTopicQuestions: queries.length - claims.length,
      candidates: queries.reduce((s, q) => s + q.candidates.length, 0),
      relevantCandidates: queries.reduce((s, q) => s + q.candidates.filter((c) => c.label === 1).length, 0),
      candidateBudget: cache.budget,
      limit: LIMIT,
      readers: tried?.models ?? "not read (--first-only)",
      label: "a candidate is relevant when its document is judged relevant to the claim",
    },
    crossValidated: { ...roundAll(second.figures), foldRules: second.foldModels.map(ruleOfModel) },
    firstStageCrossValidated: { ...roundAll(first.figures), foldRules: first.foldModels.map(ruleOfModel) },
    secondStageCrossValidated: tried && {
      shortlistDocuments: tried.chosen.documents,
      ...roundAll(tried.chosen.cv.figures),
      foldRules: tried.chosen.cv.foldModels.map(ruleOfModel),
    },
    shortlistSweep: tried?.sweep.map((s) => ({
      documents: s.documents,
      ...roundAll(s.cv.figures),
      chunksReadP50: s.pairsP50,
      readMsP50: s.readMsP50,
    })),
    trainFit: roundAll(trainFigures),
    baselines: {
      retrievalTop1: roundAll(figuresOf(queries, retrievalOnly, top1)),
      firstStageTop1: roundAll(figuresOf(queries, first.heldOut, top1)),
      judgeTop1: roundAll(figuresOf(judgedQueries, second.heldOut, top1)),
      secondStageTop1: secondStage && roundAll(figuresOf(secondQueries, secondStage.heldOut, top1)),
      judgeOracleCount: oracleCountFigures(judgedQueries, second.heldOut),
      candidatePoolRecall: round4(
        claims.reduce((s, q) => s + new Set(q.candidates.filter((c) => c.label === 1).map((c) => c.docId)).size, 0) /
          claims.reduce((s, q) => s + q.relevant.length, 0),
      ),
    },
    rationale: {
      relevantCandidatesHoldingEvidence: evidenceRows.length,
      bestSentenceIsEvidence:
        evidenceRows.length > 0
          ? round4(evidenceRows.filter((c) => c.quotesEvidence).length / evidenceRows.length)
          : null,
    },
    latencyMs: {
      retrievalP50: pct(
        claims.map((q) => q.retrievalMs),
        0.5,
      ),
      judgeFeaturesP50: pct(
        claims.map((q) => q.judgeMs),
        0.5,
      ),
      judgeFeaturesP95: pct(
        claims.map((q) => q.judgeMs),
        0.95,
      ),
      readerMsPerChunkP50: tried?.readerMsPerChunk ?? null,
      loadAverage: cache.loadAverage,
      note:
        "measured while collecting, on this 2-core machine shared with other work (load average noted), one call " +
        "at a time; the judge time includes the query and sub-question embeddings (cached after the searches), " +
        "reading the stored chunk vectors and the lexical features; readerMsPerChunkP50: each reader alone " +
        "reading one chunk with the query (the cross-encoder one passage a run); the service runs them side by " +
        "side on their worker threads",
    },
    reliability: bins,
  };
  const refitWins =
    current === null ||
    (balance(second.figures) > balance(current) + 0.002 && second.figures.offTopicRejected >= current.offTopicRejected);
  if (!refitWins && !args.write) {
    console.log(
      JSON.stringify(
        {
          kept: "the re-fit does not beat the judge in bench/judgeFolds.json on these held-out claims: nothing written",
          currentJudgeHeldOut: roundAll(current),
          refitHeldOut: report.crossValidated,
          refitRule: { threshold: model.threshold, relativeCut: model.relativeCut },
        },
        null,
        2,
      ),
    );
    return;
  }
  await writeFile(OUT_JSON, `${JSON.stringify(report, null, 2)}\n`);
  const folds: JudgeFolds = {
    $comment:
      "Written by bench/calibrateJudge.ts: fold k holds the judge fitted without fold k's claims (claimFolds " +
      "in bench/judgeFolds.ts); bench/assisted.ts judges each claim with its own fold's. Do not edit by hand.",
    folds: first.foldModels.map((firstStage, k) => ({
      firstStage,
      withReader: twoStages ? tried.chosen.cv.foldModels[k]! : null,
      shortlistDocuments: twoStages ? tried.chosen.documents : 0,
    })),
  };
  await writeFile(JUDGE_FOLDS_PATH, `${JSON.stringify(folds)}\n`);
  await mkdir(dirname(OUT_SVG), { recursive: true });
  const caption =
    `${claims.length} claims, ${report.fittedOn.candidates} candidates; held-out precision ` +
    `${second.figures.precision.toFixed(3)}, recall ${second.figures.recall.toFixed(3)}; bars: candidates per ` +
    "bin (log)";
  await writeFile(OUT_SVG, svgOf(bins, caption));
  console.log(
    JSON.stringify(
      {
        stages: report.stages,
        shortlistDocuments: report.shortlistDocuments,
        crossValidated: report.crossValidated,
        firstStageCrossValidated: report.firstStageCrossValidated,
        secondStageCrossValidated: report.secondStageCrossValidated,
        shortlistSweep: report.shortlistSweep,
        baselines: report.baselines,
        latencyMs: report.latencyMs,
      },
      null,
      2,
    ),
  );
}

const pct = (xs: number[], p: number): number => {
  const sorted = [...xs].sort((a, b) => a - b);
  return round3(sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))] ?? 0);
};

function roundAll(figures: Figures): Figures {
  return Object.fromEntries(Object.entries(figures).map(([k, v]) => [k, round4(v)])) as unknown as Figures;
}

/** the first stage reads every feature but the readers' */
const isReading = (name: StageFeature): boolean => (READING_FEATURES as readonly StageFeature[]).includes(name);
const FIRST_STAGE_FEATURES: StageFeature[] = STAGE_FEATURES.filter((name) => !isReading(name));

await main();
