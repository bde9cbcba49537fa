// The reasoner factory the composition root calls: the built-in reasoner, or the chat model with the built-in one as
// its fallback when LLM_BASE_URL and LLM_MODEL are configured.
import type { Embedder } from '../embedding/port.js';
import type { JournalRecord } from '../journals/table.js';
import { createBuiltinReasoner, type BuiltinReasonerOptions } from './builtinReasoner.js';
import type { ChunkVectors, JudgeReaders } from './judge.js';
import { createLlmReasoner, type LlmConfig } from './llmReasoner.js';
import type { Reasoner } from './reasoner.js';

export interface ReasonerDeps {
  embedder: Embedder;
  /** the journals table (loadJournals): journal titles, ISSNs and publishers a query may name */
  journals: readonly JournalRecord[];
  /** stored chunk vectors, e.g. chunkVectorsFromEngine({ engine, catalog }) */
  chunkVectors?: ChunkVectors;
  /** the built-in judge's reading models (openJudgeReaders) */
  readers?: JudgeReaders;
  /** told when a reader failed on a call */
  onReaderFailure?: (error: Error) => void;
  clock?: () => Date;
  /** told when the chat model failed and the built-in reasoner answered instead */
  onFallback?: (stage: 'understand' | 'plan' | 'judge', error: Error) => void;
  fetch?: typeof fetch;
}

export interface ReasonerConfig {
  /** the chat model (Config.assisted.llm); null: the built-in reasoner alone */
  llm: LlmConfig | null;
  builtin?: BuiltinReasonerOptions;
}

export function createReasoner(deps: ReasonerDeps, config: ReasonerConfig): Reasoner {
  const { embedder, journals, chunkVectors, readers, onReaderFailure, clock } = deps;
  const builtin = createBuiltinReasoner({ embedder, journals, chunkVectors, readers, onReaderFailure, clock }, config.builtin);
  if (!config.llm) return builtin;
  return createLlmReasoner(config.llm, { fallback: builtin, journals: deps.journals, onFallback: deps.onFallback, fetch: deps.fetch });
}
