// The reasoner factory the composition root calls: the built-in reasoner, or the chat model with the built-in one as
// its fallback when LLM_BASE_URL and LLM_MODEL are configured.
import {
  createBuiltinReasoner,
  type BuiltinReasonerDeps,
  type BuiltinReasonerOptions,
} from "./builtin/builtinReasoner.js";
import type { LlmConfig } from "./llm/llmContext.js";
import { createLlmReasoner } from "./llm/llmReasoner.js";
import type { Reasoner } from "./port.js";

/** The built-in reasoner's dependencies, and what the chat model needs beside them. */
interface ReasonerDeps extends BuiltinReasonerDeps {
  /** told when the chat model failed and the built-in reasoner answered instead */
  onFallback?: (stage: "understand" | "plan" | "judge", error: Error) => void;
  fetch?: typeof fetch;
}

interface ReasonerConfig {
  /** the chat model (Config.assisted.llm); null: the built-in reasoner alone */
  llm: LlmConfig | null;
  builtin?: BuiltinReasonerOptions;
}

export function createReasoner(deps: ReasonerDeps, config: ReasonerConfig): Reasoner {
  const { embedder, journals, chunkVectors, clock } = deps;
  const builtin = createBuiltinReasoner({ embedder, journals, chunkVectors, clock }, config.builtin);
  if (!config.llm) return builtin;
  return createLlmReasoner(config.llm, {
    fallback: builtin,
    journals: deps.journals,
    onFallback: deps.onFallback,
    fetch: deps.fetch,
  });
}
