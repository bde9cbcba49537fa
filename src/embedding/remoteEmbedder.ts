// Embedder adapter for an operator's inference servers (OpenAI-compatible /v1/embeddings or TEI /embed), one or several
// serving the same model: passages go in batches, a few at once to each server, each batch to the server with the
// most room; 429 and 5xx, timeouts and refused connections are retried with backoff (Retry-After honoured) for as long
// as EMBEDDING_RETRY_SECONDS, on another server when one is free, and a throttling server is sent fewer batches at
// once, so a busy, restarting or lost server slows ingestion down instead of failing it.
import {
  isRetryableStatus,
  isThrottleStatus,
  retryAfterMs,
  retryDelayMs,
  type RetryPolicy,
  jsonPostInit,
} from "../infra/httpRetry.js";
import type { Embedder } from "./port.js";
import {
  cosineOfUnit,
  embeddingEndpoint,
  embeddingRequestBody,
  parseEmbeddingAnswer,
  type EmbeddingProtocol,
} from "./remoteProtocol.js";

export interface RemoteEmbedderOptions {
  /** the servers' base addresses (embeddingServerUrls checked them), each serving the same model */
  urls: readonly URL[];
  protocol: EmbeddingProtocol;
  /** the model name sent to an OpenAI-compatible server, and the one its answers must name */
  model?: string;
  /** sent as Authorization: Bearer */
  apiKey?: string;
  /** the embedding path the server must produce (the in-process model's): its name and width */
  path: { modelName: string; dims: number };
  /** prepended to a query before it is embedded (the model's instruction) */
  queryPrefix?: string;
  /** texts per request (default 32) */
  batchSize?: number;
  /** requests in flight at once to each server, at most (default 4); a throttling server gets fewer */
  concurrency?: number;
  /** per request (default 30 s) */
  timeoutMs?: number;
  /** how long one batch keeps being retried before the call fails (default 10 minutes) */
  retryForMs?: number;
  retry?: RetryPolicy;
  fetch?: typeof fetch;
  sleep?: (ms: number) => Promise<void>;
  now?: () => number;
  /** hears each failed attempt that will be retried, and the wait before it */
  onRetry?: (reason: string, waitMs: number) => void;
}

export interface RemoteEmbedder extends Embedder {
  /** "model at address, ... (protocol)": what the index's vectors were made by */
  readonly servedBy: string;
  /** the servers' origins, in the order EMBEDDING_URL gives them */
  readonly servers: readonly string[];
  /**
   * one batch as a server answers it: the model it names and one normalized vector per text; `server`: that one (an
   * index into `servers`, retried there only), else the one with the most room
   */
  embedBatch(texts: readonly string[], server?: number): Promise<{ vectors: Float32Array[]; model?: string }>;
}

/** The server's vectors are not the index's embedding path: another model, width, or arithmetic. */
export class EmbeddingServerMismatchError extends Error {
  constructor(detail: string, path: string) {
    super(
      `the embedding server does not embed as this index does (${path}): ${detail}. Serve the same model from the ` +
        "provisioned files at EMBEDDING_URL (and name it in EMBEDDING_MODEL), or unset EMBEDDING_URL to embed " +
        "in-process",
    );
    this.name = "EmbeddingServerMismatchError";
  }
}

/** The server did not answer a batch for the whole retry window. */
class EmbeddingServerUnavailableError extends Error {
  constructor(detail: string, options?: ErrorOptions) {
    super(`the embedding server did not answer: ${detail}`, options);
    this.name = "EmbeddingServerUnavailableError";
  }
}

/** One failed attempt: why, whether another may succeed, whether the server asked for less, how long it asked. */
interface AttemptFailure {
  reason: string;
  retryable: boolean;
  throttled: boolean;
  retryAfter?: number;
}

const DEFAULT_RETRY: RetryPolicy = { baseMs: 250, maxMs: 15_000, retryAfterCapMs: 60_000 };

/**
 * Requests allowed in flight after an answer: half as many after a throttle (at least one), one more after a success
 * (at most `max`); additive increase, multiplicative decrease, as TCP does.
 */
export function nextConcurrency(current: number, max: number, throttled: boolean): number {
  return throttled ? Math.max(1, Math.floor(current / 2)) : Math.min(max, current + 1);
}

/** A server's load as the port sees it: requests in flight, how many it allows now, until when it rests (ms). */
interface ServerLoad {
  inFlight: number;
  allowed: number;
  restingUntil: number;
}

/** A server's record of failures: how many of its answers in a row failed, and until when it rests (ms). */
export interface ServerHealth {
  failures: number;
  restingUntil: number;
}

/**
 * A server's health after an answer. A success clears its failures and its rest. A failure counts one more in a row and
 * rests the server for a wait that doubles with them, up to the policy's longest, and at least what the server asked
 * (Retry-After): a server that is gone is tried ever more rarely while others work, and a rest already longer (batches
 * in flight failing together) is kept.
 */
export function serverHealthAfter(
  health: ServerHealth,
  failed: boolean,
  now: number,
  policy: RetryPolicy,
  retryAfter?: number,
  random: () => number = Math.random,
): ServerHealth {
  if (!failed) return { failures: 0, restingUntil: 0 };
  const failures = health.failures + 1;
  const rest = retryDelayMs(failures + 1, policy, retryAfter, random);
  return { failures, restingUntil: Math.max(health.restingUntil, now + rest) };
}

/**
 * The server the next batch goes to, or undefined when it must wait for room: the least loaded (in flight over allowed)
 * of those with room, the first listed on a tie. While any server is awake, a server resting after failures gets
 * nothing (a batch waits for an awake one's room rather than meet a server that is likely gone); when every one rests,
 * any with room may be tried.
 */
export function pickServer(servers: readonly ServerLoad[], now: number): number | undefined {
  const anyAwake = servers.some((s) => s.restingUntil <= now);
  const candidates = servers.flatMap((s, i) =>
    s.inFlight < s.allowed && (!anyAwake || s.restingUntil <= now) ? [i] : [],
  );
  const load = (i: number) => servers[i]!.inFlight / servers[i]!.allowed;
  return candidates.reduce<number | undefined>(
    (best, i) => (best === undefined || load(i) < load(best) ? i : best),
    undefined,
  );
}

/** Probe texts whose vectors a server must give as in-process does: short and long, prose and symbols. */
export const PROBE_TEXTS = [
  "Vitamin D supplementation and fracture risk in older adults: a randomized controlled trial.",
  "BRCA1 mutations (c.68_69delAG) increase the lifetime risk of breast cancer to 60-80%.",
  "Effect of statins on muscle pain",
];

/** A server's vectors agree with the path's when every probe's cosine is at least this. */
const PROBE_MIN_COSINE = 0.999;

/**
 * Why the server's probe vectors are not the reference's, or undefined when they are: the width, then each probe's
 * cosine against PROBE_MIN_COSINE.
 */
export function probeDisagreement(
  server: readonly Float32Array[],
  reference: readonly Float32Array[],
  minCosine = PROBE_MIN_COSINE,
): string | undefined {
  const width = server[0]?.length ?? 0;
  const expected = reference[0]?.length ?? 0;
  if (width !== expected) return `its vectors have ${width} dimensions, the index's ${expected}`;
  const cosines = server.map((vector, i) => cosineOfUnit(vector, reference[i]!));
  const worst = Math.min(...cosines);
  if (worst < minCosine)
    return `its vector of a probe text is at cosine ${worst.toFixed(4)} to the in-process one (at least ${minCosine})`;
  return undefined;
}

/**
 * The servers a remote embedder sends to, each with its endpoint and load: `admit` waits for room (on `only`, else on
 * the server pickServer chooses) and takes it; `release` gives it back, with the concurrency step its answer earned.
 */
function serverPool(
  urls: readonly URL[],
  protocol: EmbeddingProtocol,
  maxConcurrency: number,
  policy: RetryPolicy,
  now: () => number,
) {
  const servers = urls.map((url) => ({
    endpoint: embeddingEndpoint(url, protocol),
    origin: url.origin,
    allowed: maxConcurrency,
    inFlight: 0,
    failures: 0,
    restingUntil: 0,
  }));
  const waiting: (() => void)[] = [];
  const admit = async (only?: number): Promise<number> => {
    for (;;) {
      const chosen =
        only === undefined
          ? pickServer(servers, now())
          : servers[only]!.inFlight < servers[only]!.allowed
            ? only
            : undefined;
      if (chosen !== undefined) {
        servers[chosen]!.inFlight++;
        return chosen;
      }
      await new Promise<void>((resolve) => waiting.push(resolve));
    }
  };
  const release = (server: number, failed: AttemptFailure | undefined): void => {
    const s = servers[server]!;
    s.inFlight--;
    s.allowed = nextConcurrency(s.allowed, maxConcurrency, failed?.throttled ?? false);
    Object.assign(s, serverHealthAfter(s, failed !== undefined, now(), policy, failed?.retryAfter));
    waiting.splice(0).forEach((wake) => wake());
  };
  return { servers, admit, release };
}

export function createRemoteEmbedder(options: RemoteEmbedderOptions): RemoteEmbedder {
  if (options.urls.length === 0) throw new RangeError("urls must name at least one server");
  const batchSize = options.batchSize ?? 32;
  const maxConcurrency = options.concurrency ?? 4;
  const timeoutMs = options.timeoutMs ?? 30_000;
  const retryForMs = options.retryForMs ?? 600_000;
  const policy = options.retry ?? DEFAULT_RETRY;
  const doFetch = options.fetch ?? fetch;
  const sleep = options.sleep ?? ((ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms)));
  const now = options.now ?? Date.now;
  for (const [name, value] of [
    ["batchSize", batchSize],
    ["concurrency", maxConcurrency],
    ["timeoutMs", timeoutMs],
  ] as const)
    if (!Number.isInteger(value) || value < 1) throw new RangeError(`${name} must be a positive integer, got ${value}`);
  const { servers, admit, release } = serverPool(options.urls, options.protocol, maxConcurrency, policy, now);
  const origins = servers.map((s) => s.origin);
  const servedBy = `${options.model ?? "the served model"} at ${origins.join(", ")} (${options.protocol})`;
  let closed = false;

  async function attempt(
    server: number,
    texts: readonly string[],
  ): Promise<{ vectors: Float32Array[]; model?: string }> {
    const { endpoint, origin } = servers[server]!;
    // several servers: each failure names the one that failed
    const at = servers.length > 1 ? ` (${origin})` : "";
    let response: Response;
    try {
      const body = embeddingRequestBody(options.protocol, texts, options.model);
      response = await doFetch(endpoint, jsonPostInit(body, options.apiKey, timeoutMs));
    } catch (err) {
      const name = (err as Error).name;
      const timedOut = name === "TimeoutError" || name === "AbortError";
      // a request that outlasts its timeout met a server with more work than it can do: send it less at once, or the
      // retries of timed-out batches only add to its queue
      throw failure(
        (timedOut ? `no answer within ${timeoutMs} ms` : `request failed: ${describe(err)}`) + at,
        true,
        timedOut,
      );
    }
    let raw: string;
    try {
      raw = await response.text();
    } catch (err) {
      throw failure(`reading the answer failed: ${describe(err)}${at}`, true, false);
    }
    if (!response.ok) {
      const f = failure(
        `HTTP ${response.status}: ${raw.slice(0, 200)}${at}`,
        isRetryableStatus(response.status),
        isThrottleStatus(response.status),
      );
      f.retryAfter = retryAfterMs(response.headers.get("retry-after"), now());
      throw f;
    }
    let body: unknown;
    try {
      body = JSON.parse(raw);
    } catch {
      throw failure(`the answer is not JSON: ${raw.slice(0, 200)}${at}`, false, false);
    }
    const answer = parseEmbeddingAnswer(options.protocol, body, texts.length);
    refuseOtherEmbedding(answer, options);
    return answer;
  }

  /**
   * One batch, retried while the failures are passing ones and the window lasts: after its wait, on the server with the
   * most room that is not resting after a failure of its own (the same one when it is the only one).
   */
  async function embedBatch(
    texts: readonly string[],
    only?: number,
  ): Promise<{ vectors: Float32Array[]; model?: string }> {
    if (closed) throw new Error("embedder is closed");
    if (only !== undefined && servers[only] === undefined) throw new RangeError(`no server ${only}`);
    const started = now();
    for (let attemptNumber = 1; ; attemptNumber++) {
      const server = await admit(only);
      let answer: { vectors: Float32Array[]; model?: string };
      try {
        answer = await attempt(server, texts);
      } catch (err) {
        release(server, isAttemptFailure(err) ? err : undefined);
        if (!isAttemptFailure(err)) throw err;
        if (!err.retryable) throw new Error(`the embedding server refused a batch: ${err.reason}`, { cause: err });
        const wait = retryDelayMs(attemptNumber + 1, policy, err.retryAfter);
        const spentSeconds = Math.round((now() - started) / 1000);
        if (now() + wait - started > retryForMs)
          throw new EmbeddingServerUnavailableError(
            `${err.reason} (still failing after ${attemptNumber} attempts in ${spentSeconds} s)`,
            { cause: err },
          );
        options.onRetry?.(err.reason, wait);
        await sleep(wait);
        continue;
      }
      release(server, undefined);
      return answer;
    }
  }

  async function embedPassages(texts: string[], onEmbedded?: (done: number) => void): Promise<Float32Array[]> {
    const batches: { start: number; texts: string[] }[] = [];
    for (let start = 0; start < texts.length; start += batchSize)
      batches.push({ start, texts: texts.slice(start, start + batchSize) });
    const vectors = new Array<Float32Array>(texts.length);
    let next = 0;
    let done = 0;
    await Promise.all(
      Array.from({ length: Math.min(maxConcurrency * servers.length, batches.length) }, async () => {
        while (next < batches.length) {
          const batch = batches[next++]!;
          const answer = await embedBatch(batch.texts);
          answer.vectors.forEach((vector, i) => (vectors[batch.start + i] = vector));
          done += batch.texts.length;
          onEmbedded?.(done);
        }
      }),
    );
    return vectors;
  }

  return {
    modelName: options.path.modelName,
    dims: options.path.dims,
    servedBy,
    servers: origins,
    embedBatch,
    embedPassages,
    async embedQuery(text) {
      const { vectors } = await embedBatch([(options.queryPrefix ?? "") + text]);
      return vectors[0]!;
    },
    async close() {
      closed = true;
    },
  };
}

/** An answer whose vectors are not the index's (another width, or another model than EMBEDDING_MODEL) is refused. */
function refuseOtherEmbedding(
  answer: { vectors: Float32Array[]; model?: string },
  options: Pick<RemoteEmbedderOptions, "path" | "model">,
): void {
  const width = answer.vectors[0]?.length ?? 0;
  if (width !== options.path.dims)
    throw new EmbeddingServerMismatchError(
      `its vectors have ${width} dimensions, the index's ${options.path.dims}`,
      options.path.modelName,
    );
  if (options.model && answer.model && answer.model !== options.model)
    throw new EmbeddingServerMismatchError(
      `it answered with model ${answer.model}, EMBEDDING_MODEL names ${options.model}`,
      options.path.modelName,
    );
}

function failure(reason: string, retryable: boolean, throttled: boolean): AttemptFailure & Error {
  return Object.assign(new Error(reason), { reason, retryable, throttled, attemptFailure: true });
}

function isAttemptFailure(err: unknown): err is AttemptFailure {
  return typeof err === "object" && err !== null && (err as { attemptFailure?: boolean }).attemptFailure === true;
}

function describe(err: unknown): string {
  const cause = (err as { cause?: { code?: string } }).cause;
  return cause?.code ?? (err as Error).message;
}

/**
 * Checks that every server gives the path's vectors: each one's vectors of the probe texts against `reference`'s (the
 * in-process model); a server that differs is refused with an EmbeddingServerMismatchError naming it.
 */
export async function verifyEmbeddingServer(remote: RemoteEmbedder, reference: Embedder): Promise<void> {
  const [answers, expected] = await Promise.all([
    Promise.all(remote.servers.map((_, i) => remote.embedBatch(PROBE_TEXTS, i))),
    reference.embedPassages([...PROBE_TEXTS]),
  ]);
  answers.forEach(({ vectors }, i) => {
    const disagreement = probeDisagreement(vectors, expected);
    const which = remote.servers.length > 1 ? ` (the server at ${remote.servers[i]})` : "";
    if (disagreement) throw new EmbeddingServerMismatchError(disagreement + which, reference.modelName);
  });
}
