// The built-in reasoner: rules and the catalogue's vocabularies to understand and plan, the embedding model, lexical
// evidence to judge. No network; everything runs on the CPU beside the search engine.
import type { Embedder } from "../../embedding/port.js";
import type { JournalRecord } from "../../journals/table.js";
import { CatalogueVocabulary } from "./constraints.js";
import { judgeCandidates, type ChunkVectors, type JudgeModel } from "./judge.js";
import type { PlanInput, Reasoner, Understanding, UnderstandInput } from "../port.js";
import { MAX_SUB_QUESTIONS, understandByRules } from "./understanding.js";

export interface BuiltinReasonerDeps {
  embedder: Embedder;
  /** the journals table: titles, ISSNs and publishers a query may name */
  journals: readonly JournalRecord[];
  /** stored chunk vectors (chunkVectors.ts); without it the judge embeds the best-ranked chunks itself */
  chunkVectors?: ChunkVectors;
  /** "the last 5 years" is read against this clock */
  clock?: () => Date;
}

export interface BuiltinReasonerOptions {
  /** the fitted judge (default: judgeCalibration.json's) */
  judgeModel?: JudgeModel;
  /** see JudgeDeps */
  maxEmbeddedChunks?: number;
}

const BUILTIN_REASONER_NAME = "builtin";

/** The rounds the built-in planner proposes: the understanding's sub-questions, then one broadened round. */
export function planByRules(input: PlanInput): string[] {
  const searched = new Set(input.searched.map((s) => s.subQuestion.toLowerCase()));
  const fresh = (questions: string[]) => [
    ...new Set(questions.map((q) => q.trim()).filter((q) => q && !searched.has(q.toLowerCase()))),
  ];
  if (input.round <= 1) return fresh(input.understanding.subQuestions).slice(0, MAX_SUB_QUESTIONS);
  if (input.round > 2 || input.searched.some((s) => s.verified > 0)) return [];
  // nothing verified: search the entities on their own, then together with each aspect
  const { entities, aspects } = input.understanding;
  const broadened = [
    entities.join(" "),
    ...entities
      .slice(0, 3)
      .map((entity) => (aspects[0] ? `${entity} ${aspects[0].replace(/^study design: /, "")}` : entity)),
  ];
  return fresh(broadened).slice(0, MAX_SUB_QUESTIONS - 1);
}

export function createBuiltinReasoner(deps: BuiltinReasonerDeps, options: BuiltinReasonerOptions = {}): Reasoner {
  // built here, not on the first query: indexing ~23,000 journals takes about a second
  const vocabulary = new CatalogueVocabulary(deps.journals);
  const clock = deps.clock ?? (() => new Date());
  return {
    name: BUILTIN_REASONER_NAME,
    async understand(input: UnderstandInput): Promise<Understanding> {
      return understandByRules(input, { vocabulary, now: clock() });
    },
    async plan(input: PlanInput): Promise<string[]> {
      return planByRules(input);
    },
    judge(query, understanding, candidates) {
      return judgeCandidates(
        {
          embedder: deps.embedder,
          chunkVectors: deps.chunkVectors,
          model: options.judgeModel,
          maxEmbeddedChunks: options.maxEmbeddedChunks,
        },
        query,
        understanding,
        candidates,
      );
    },
  };
}
