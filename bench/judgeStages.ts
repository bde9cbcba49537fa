// The judge's second stage, which bench/calibrateJudge.ts tries and the service does not run
// (src/reasoner/builtin/judge.ts has one stage): two readers (a cross-encoder, and the index's bi-encoder reading title
// and chunk) read the pool's chunks of the first stage's best documents with the query, and a second model (boosted
// trees, or a second logistic regression) judges with the evidence features and their reading. The readers need `bash
// scripts/provision-bge-small.sh --reranker`.
import type { Config } from "../src/app/config.js";
import { embeddingModelManifestPath } from "../src/embedding/modelManifest.js";
import { probabilityOfOwn, type FittedJudge, type JudgeModel, type JudgeRule } from "../src/reasoner/builtin/judge.js";
import {
  candidateFeatures,
  documentKeyOf,
  FEATURE_NAMES,
  type FeatureName,
  type JudgeInputs,
} from "../src/reasoner/builtin/judgeFeatures.js";
import { boostedProbability, type BoostedTrees } from "./boostedTrees.js";
import { createBiEncoderRelevance } from "./judgeReaders/biEncoder.js";
import { createCrossEncoder, crossEncoderManifestPath, type RelevanceModel } from "./judgeReaders/crossEncoder.js";

/** The models that read the shortlist with the query: a cross-encoder and a second bi-encoder. */
export const READERS = ["crossEncoder", "biEncoder"] as const;
export type ReaderName = (typeof READERS)[number];

/** One reader's three features: its score of the chunk, the score's gap to the best read, the best of its document. */
function readerFeatureNames<R extends ReaderName>(reader: R): [R, `${R}Gap`, `document${Capitalize<R>}`] {
  return [reader, `${reader}Gap`, `document${(reader.charAt(0).toUpperCase() + reader.slice(1)) as Capitalize<R>}`];
}

/**
 * The features of the shortlist's reading (the second stage's; the first stage reads none of them), reader by reader.
 */
export const READING_FEATURES = READERS.flatMap(readerFeatureNames);
export type ReadingFeature = (typeof READING_FEATURES)[number];

/**
 * Every feature a stage may read, in the order of `stageFeatures` vectors: the service's evidence features, then the
 * reading's.
 */
export const STAGE_FEATURES = [...FEATURE_NAMES, ...READING_FEATURES] as const;
export type StageFeature = FeatureName | ReadingFeature;

/** Per reader, per candidate: its score of (query, chunk), null when it did not read the chunk. */
export type Readings = Record<ReaderName, (number | null)[]>;

/**
 * A chunk a reader did not read scores `margin` below the lowest score it read (or `noneRead` when it read none):
 * the first stage ranked it lower than every chunk read.
 */
export const UNREAD: Record<ReaderName, { margin: number; noneRead: number }> = {
  crossEncoder: { margin: 1, noneRead: -12 },
  biEncoder: { margin: 0.05, noneRead: 0 },
};

/** Nothing read: every reader's score of every candidate null. */
export const unread = (candidates: number): Readings =>
  Object.fromEntries(
    READERS.map((reader) => [reader, Array.from({ length: candidates }, () => null)]),
  ) as unknown as Readings;

/** One reader's features of each candidate, from its scores (null: not read) and each candidate's document. */
export function readingFeatures(
  scores: readonly (number | null)[],
  documentKeys: readonly string[],
  unreadScore: { margin: number; noneRead: number },
): { score: number; gap: number; document: number }[] {
  const read = scores.filter((x): x is number => x !== null);
  const floor = read.length > 0 ? Math.min(...read) - unreadScore.margin : unreadScore.noneRead;
  const filled = scores.map((x) => x ?? floor);
  const best = Math.max(...filled);
  const byDocument = new Map<string, number>();
  filled.forEach((x, i) =>
    byDocument.set(documentKeys[i]!, Math.max(byDocument.get(documentKeys[i]!) ?? -Infinity, x)),
  );
  return filled.map((x, i) => ({ score: x, gap: x - best, document: byDocument.get(documentKeys[i]!)! }));
}

/** Every reader's features of each candidate, from their scores (null: not read) and each candidate's document. */
export function readingFeaturesOf(
  readings: Readings,
  documentKeys: readonly string[],
): Record<ReadingFeature, number>[] {
  const perReader = READERS.map((reader) => ({
    names: readerFeatureNames(reader),
    values: readingFeatures(readings[reader], documentKeys, UNREAD[reader]),
  }));
  return documentKeys.map((_, i) => {
    const row = {} as Record<ReadingFeature, number>;
    for (const {
      names: [score, gap, document],
      values,
    } of perReader) {
      row[score] = values[i]!.score;
      row[gap] = values[i]!.gap;
      row[document] = values[i]!.document;
    }
    return row;
  });
}

/** One vector per candidate in STAGE_FEATURES order: the judge's evidence features, then the reading's. */
export function stageFeatures(inputs: JudgeInputs, readings: Readings): number[][] {
  const reading = readingFeaturesOf(readings, inputs.candidates.map(documentKeyOf));
  return candidateFeatures(inputs).map((evidence, i) => [
    ...evidence,
    ...READING_FEATURES.map((name) => reading[i]![name]),
  ]);
}

/** Gradient-boosted trees on the features (a tree's feature k is the model's k-th feature). */
export interface TreesJudge extends JudgeRule<StageFeature>, BoostedTrees {
  kind: "trees";
}

/** A stage's model: a logistic regression, as the service runs, or boosted trees. */
export type StageModel = JudgeModel<StageFeature> | TreesJudge;
export type FittedStage = FittedJudge<StageFeature> | Omit<TreesJudge, "threshold" | "relativeCut">;

/** The probability from the values of the model's own features, in its order. */
export const probabilityOfStage = (model: FittedStage, x: readonly number[]): number =>
  model.kind === "trees" ? boostedProbability(model, x) : probabilityOfOwn(model, x);

/** The two stages' models and the size of the shortlist between them (bench/judgeFolds.json keeps one per fold). */
export interface JudgeModels {
  /** the evidence features alone: chooses the shortlist, and is the whole judge when there is no second stage */
  firstStage: StageModel;
  /** the evidence features and the readers' reading of the shortlist; null: one stage */
  withReader: StageModel | null;
  /** documents whose chunks in the pool the readers read */
  shortlistDocuments: number;
}

const isEvidenceFeature = (name: StageFeature): name is FeatureName =>
  (FEATURE_NAMES as readonly string[]).includes(name);

/**
 * The judge the service runs for `models`; refused when they need the second stage, which the service does not have.
 */
export function serviceJudgeOf(models: JudgeModels): JudgeModel {
  const first = models.firstStage;
  if (models.withReader !== null || first.kind !== "logistic" || !first.features.every(isEvidenceFeature)) {
    throw new Error(
      "these judge models need a second stage (readers or trees): the service runs one logistic stage on the " +
        "evidence features (src/reasoner/builtin/judge.ts)",
    );
  }
  return first as JudgeModel;
}

/**
 * Indexes of the candidates of the `documents` best documents, by probability (documentKeys: each candidate's
 * documentKeyOf): every chunk of theirs in the pool, since the passage that answers may be any of them.
 */
export function shortlist(
  documentKeys: readonly string[],
  probabilities: readonly number[],
  documents: number,
): number[] {
  const order = probabilities.map((_, i) => i).sort((a, b) => probabilities[b]! - probabilities[a]! || a - b);
  const best = new Set<string>();
  for (const i of order) {
    if (best.size >= documents) break;
    best.add(documentKeys[i]!);
  }
  return order.filter((i) => best.has(documentKeys[i]!));
}

/** The models that read the shortlist with the query. */
export type JudgeReaders = Record<ReaderName, RelevanceModel>;

/** The readers, each on its own worker thread. Close them when done. */
export async function openJudgeReaders(
  config: Pick<Config, "cacheDir">,
): Promise<JudgeReaders & { close(): Promise<void> }> {
  const crossEncoder = await createCrossEncoder({ manifest: crossEncoderManifestPath(config.cacheDir) });
  const biEncoder = await createBiEncoderRelevance(embeddingModelManifestPath(config.cacheDir)).catch(
    async (err: unknown) => {
      await crossEncoder.close();
      throw err;
    },
  );
  return {
    crossEncoder,
    biEncoder,
    close: async () => void (await Promise.all([crossEncoder.close(), biEncoder.close()])),
  };
}
