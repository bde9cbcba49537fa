// The chat-model reasoner: an OpenAI-compatible chat-completions endpoint asked for JSON-schema-constrained answers
// (understanding, plan, verdicts), with a timeout per attempt and retries on timeouts, network errors, 429 and 5xx.
// Whatever still fails (or answers malformed JSON) is answered by the built-in reasoner, and the answer says so
// (`answeredBy: 'builtin'`), so the query record names the reasoner that actually answered. The stages live in
// llmStages.ts, asking the model in llmContext.ts, the schemas in llmSchemas.ts; this factory wires them.
import type { Reasoner } from "../port.js";
import { llmContext, type LlmConfig, type LlmReasonerDeps } from "./llmContext.js";
import { judge, plan, understand } from "./llmStages.js";

export function createLlmReasoner(config: LlmConfig, deps: LlmReasonerDeps): Reasoner {
  const ctx = llmContext(config, deps);
  return {
    name: ctx.name,
    understand: (input) => understand(ctx, input),
    plan: (input) => plan(ctx, input),
    judge: (query, understanding, candidates) => judge(ctx, query, understanding, candidates),
  };
}
