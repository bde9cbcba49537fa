// What the chat-model reasoner's stages share: its configuration and dependencies, the context the factory builds from
// them, and asking the model (one attempt per timeout, retries on timeouts, network errors, 429 and 5xx, the answer
// checked against its schema), with the built-in reasoner answering whatever still fails. The stages live in
// llmStages.ts; llmReasoner.ts puts them together.
import type { z } from "zod";
import { isRetryableStatus, jsonPostInit, retryDelayMs } from "../../infra/httpRetry.js";
import type { JournalRecord } from "../../journals/table.js";
import type { Reasoner } from "../port.js";
import { RESPONSE_SCHEMAS, SYSTEM_PROMPT } from "./llmSchemas.js";

export interface LlmConfig {
  /** e.g. https://api.openai.com/v1 (the adapter appends /chat/completions) */
  baseUrl: string;
  model: string;
  apiKey?: string;
  /** per attempt */
  timeoutMs: number;
  /** further attempts after a timeout, network error, 429 or 5xx */
  retries: number;
  /** judgeScore at or above which the model's verdict counts as verified */
  verifyThreshold?: number;
}

export interface LlmReasonerDeps {
  /** answers whenever the model cannot */
  fallback: Reasoner;
  journals: readonly JournalRecord[];
  /** told of every fallback (the composition root logs it) */
  onFallback?: (stage: LlmStage, error: Error) => void;
  fetch?: typeof fetch;
}

type LlmStage = "understand" | "plan" | "judge";

/** What every stage reads: built once by createLlmReasoner. */
export interface LlmContext {
  config: LlmConfig;
  deps: LlmReasonerDeps;
  /** `llm:<model>`, the answeredBy of the model's answers */
  name: string;
  doFetch: typeof fetch;
  endpoint: string;
  threshold: number;
  /** the journals by lower-cased title without a leading "the " */
  titles: Map<string, JournalRecord>;
}

export function llmContext(config: LlmConfig, deps: LlmReasonerDeps): LlmContext {
  const titles = new Map<string, JournalRecord>();
  for (const journal of deps.journals)
    if (journal.title) titles.set(journal.title.toLowerCase().replace(/^the /, ""), journal);
  return {
    config,
    deps,
    name: `llm:${config.model}`,
    doFetch: deps.fetch ?? fetch,
    endpoint: `${config.baseUrl.replace(/\/+$/, "")}/chat/completions`,
    threshold: config.verifyThreshold ?? 0.5,
    titles,
  };
}

export class LlmCallError extends Error {
  constructor(
    message: string,
    readonly retryable: boolean,
  ) {
    super(message);
    this.name = "LlmCallError";
  }
}

/** 200 ms before the first retry, doubling up to 2 s, without jitter (one reasoner call per search step) */
function backoff(tryNumber: number): Promise<void> {
  const wait = retryDelayMs(tryNumber + 1, { baseMs: 200, maxMs: 2000 }, undefined, () => 1);
  return new Promise((resolve) => setTimeout(resolve, wait));
}

/** One attempt: the parsed JSON content of the first choice, or an LlmCallError saying whether to retry. */
async function attempt(ctx: LlmContext, schemaName: keyof typeof RESPONSE_SCHEMAS, user: string): Promise<unknown> {
  const { config } = ctx;
  let response: Response;
  try {
    const body = {
      model: config.model,
      temperature: 0,
      messages: [
        { role: "system", content: SYSTEM_PROMPT },
        { role: "user", content: user },
      ],
      response_format: {
        type: "json_schema",
        json_schema: { name: schemaName, strict: true, schema: RESPONSE_SCHEMAS[schemaName] },
      },
    };
    response = await ctx.doFetch(ctx.endpoint, jsonPostInit(body, config.apiKey, config.timeoutMs));
  } catch (err) {
    const timedOut = (err as Error).name === "TimeoutError" || (err as Error).name === "AbortError";
    throw new LlmCallError(
      timedOut ? `no answer within ${config.timeoutMs} ms` : `request failed: ${(err as Error).message}`,
      true,
    );
  }
  let raw: string;
  try {
    raw = await response.text();
  } catch (err) {
    throw new LlmCallError(`reading the answer failed: ${(err as Error).message}`, true);
  }
  if (!response.ok)
    throw new LlmCallError(`HTTP ${response.status}: ${raw.slice(0, 200)}`, isRetryableStatus(response.status));
  try {
    const body = JSON.parse(raw) as { choices?: { message?: { content?: string | null } }[] };
    const content = body.choices?.[0]?.message?.content;
    if (typeof content !== "string") throw new Error("no message content");
    return JSON.parse(content) as unknown;
  } catch (err) {
    throw new LlmCallError(`malformed answer: ${(err as Error).message}`, false);
  }
}

/** The model's answer following `schema`, after the retries the configuration allows; the last error otherwise. */
export async function ask<T>(
  ctx: LlmContext,
  schemaName: keyof typeof RESPONSE_SCHEMAS,
  schema: z.ZodType<T>,
  user: string,
): Promise<T> {
  let lastError: Error | undefined;
  for (let tryNumber = 0; tryNumber <= ctx.config.retries; tryNumber++) {
    if (tryNumber > 0) await backoff(tryNumber);
    try {
      const parsed = schema.safeParse(await attempt(ctx, schemaName, user));
      if (!parsed.success)
        throw new LlmCallError(
          `answer does not follow the schema: ${parsed.error.issues[0]?.message ?? "invalid"}`,
          false,
        );
      return parsed.data;
    } catch (err) {
      lastError = err as Error;
      if (!(err instanceof LlmCallError) || !err.retryable) break;
    }
  }
  throw lastError ?? new Error("no attempt made");
}

/** The model's answer, or the fallback's when asking failed (onFallback told why). */
export async function withFallback<T>(
  ctx: LlmContext,
  stage: LlmStage,
  run: () => Promise<T>,
  fallback: () => Promise<T>,
): Promise<T> {
  try {
    return await run();
  } catch (err) {
    ctx.deps.onFallback?.(stage, err as Error);
    return fallback();
  }
}
