// Configuration, read once from the environment; nothing else in the service reads process.env.
import { parseCreditPrice } from "../usecases/dashboard/overviewRules.js";
import type { DashboardSettings } from "../http/dashboardAccess.js";
import type { ToolUpstreamConfig } from "../usecases/tools/upstreamTools.js";
import { randomBytes } from "node:crypto";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { availableParallelism, homedir } from "node:os";
import { join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { z } from "zod";
import { formatCredits, parseCredits } from "../domain/money.js";
import { parseRetrySchedule } from "../domain/webhooks.js";
import { DEFAULT_SEARCH_DEADLINE_MS } from "../retrieval/searchDeadline.js";
import { EMBEDDING_PROTOCOLS, embeddingServerUrls, type EmbeddingProtocol } from "../embedding/remoteProtocol.js";

export const REPO_ROOT = resolve(fileURLToPath(new URL("../..", import.meta.url)));
/** The collection definitions and the demo data beside the clone, when COLLECTIONS_CONFIG and DATA_ROOT are unset. */
export const DEFAULT_COLLECTIONS_CONFIG = join(REPO_ROOT, "config", "collections.json");
/**
 * The demo collections' source data and vectors, shipped in the repository (scripts/demo-data.ts,
 * scripts/demo-vectors.ts).
 */
export const DEFAULT_DATA_ROOT = join(REPO_ROOT, "demo-data");

/**
 * Every environment variable loadConfig reads, and nothing else (test/config/configVariables.unit.spec.ts proves it by
 * recording what loadConfig touches); deploy/ may set only these (test/deploy/deployManifests.unit.spec.ts).
 */
export const CONFIG_VARIABLES = [
  "PORT",
  "HOST",
  "DATA_DIR",
  "ADMIN_TOKEN",
  "DATABASE_URL",
  "OPENSEARCH_URL",
  "OPENSEARCH_SHARDS",
  "OPENSEARCH_REPLICAS",
  "SEARCH_DEADLINE_MS",
  "TEMPORAL_ADDRESS",
  "TEMPORAL_NAMESPACE",
  "WORKER_MODE",
  "LITSEARCH_CACHE",
  "COLLECTIONS_CONFIG",
  "DATA_ROOT",
  "LOG_LEVEL",
  "INGEST_DEMO",
  "EMBEDDING_WORKERS",
  "EMBEDDING_URL",
  "EMBEDDING_PROTOCOL",
  "EMBEDDING_MODEL",
  "EMBEDDING_API_KEY",
  "EMBEDDING_BATCH_SIZE",
  "EMBEDDING_CONCURRENCY",
  "EMBEDDING_TIMEOUT_MS",
  "EMBEDDING_RETRY_SECONDS",
  "INGEST_BATCH_SIZE",
  "INGEST_PARALLELISM",
  "UPLOAD_MAX_MB",
  "FAULT_INGEST_BATCH_DELAY_MS",
  "FAULT_AFTER_CHARGE_DELAY_MS",
  "TRUST_PROXY",
  "CORS_ORIGINS",
  "ADMIN_FAILED_AUTH_PER_MINUTE",
  "ADMIN_REQUESTS_PER_MINUTE",
  "TOOL_PRICES",
  "TOOL_UPSTREAMS",
  "FAULT_FAN_OUT_DELAY_MS",
  "FAULT_ALERT_WAITER_DELAY_MS",
  "ASSISTED_WAIT_SECONDS",
  "ASSISTED_DELIVERY_WAIT_SECONDS",
  "LLM_BASE_URL",
  "LLM_MODEL",
  "LLM_API_KEY",
  "LLM_TIMEOUT_MS",
  "LLM_RETRIES",
  "PUBLIC_URL",
  "TLS",
  "DASHBOARD_REQUESTS_PER_MINUTE",
  "DASHBOARD_FAILED_LOGINS_PER_MINUTE",
  "DASHBOARD_FAILED_LOGINS_PER_ACCOUNT",
  "WEBHOOK_SECRET_KEY",
  "WEBHOOK_RETRY_SECONDS",
  "WEBHOOK_DISABLE_AFTER_SECONDS",
  "WEBHOOK_ALLOW_PRIVATE_URLS",
  "FAULT_WEBHOOK_AFTER_SEND_DELAY_MS",
  "DASHBOARD_SESSION_HOURS",
  "DASHBOARD_CREDIT_PRICE",
] as const;

type ConfigVariable = (typeof CONFIG_VARIABLES)[number];

export interface Config {
  port: number;
  host: string;
  dataDir: string;
  adminToken: string;
  /** true when the token was generated on this start (printed once) */
  adminTokenGenerated: boolean;
  databaseUrl?: string;
  /** the OpenSearch node, or a cluster's nodes comma-separated (OPENSEARCH_URL); unset: the embedded engine */
  opensearchUrl?: string;
  /** shards and replicas of the OpenSearch indexes the service creates (OPENSEARCH_SHARDS, OPENSEARCH_REPLICAS) */
  opensearchLayout: { shards: number; replicas: number };
  /** how long a search waits for OpenSearch before it answers 503 with Retry-After (SEARCH_DEADLINE_MS) */
  searchDeadlineMs: number;
  temporalAddress?: string;
  temporalNamespace: string;
  /** run the Temporal worker inside the API process (default) */
  inProcessWorker: boolean;
  cacheDir: string;
  collectionsConfig: string;
  dataRoot: string;
  logLevel: string;
  /** ingest demo collections on start when absent */
  ingestDemo: boolean;
  /**
   * worker threads that embed passages during ingestion, one ONNX session (one intra-op thread) each
   * (EMBEDDING_WORKERS)
   */
  embeddingWorkers: number;
  /**
   * an operator's inference server that embeds passages during ingestion (EMBEDDING_URL and the others); null:
   * in-process
   */
  embeddingServer: EmbeddingServerConfig | null;
  /** documents per ingestion batch activity (INGEST_BATCH_SIZE) */
  ingestBatchSize: number;
  /** ingestion batches in flight at once, over every worker process (INGEST_PARALLELISM) */
  ingestParallelism: number;
  /** the largest file the operator API takes at PUT /admin/v1/uploads/{name}, in bytes (UPLOAD_MAX_MB) */
  uploadMaxBytes: number;
  /**
   * fault injection for crash tests only: an ingestion batch pauses this long after its engine commit, before it is
   * recorded, and a vector backfill batch this long after embedding, before it writes
   */
  faultIngestBatchDelayMs?: number;
  /** fault injection for crash tests only: the worker pauses this long after an unlock charge commits */
  faultAfterChargeDelayMs?: number;
  /** fault injection for crash tests only: each assisted search step pauses this long before it searches */
  faultFanOutDelayMs?: number;
  /**
   * fault injection for crash tests only: an ingestion's batch of alert runs, on its first try, pauses this long after
   * it published its runs' events and before it starts the waiters of those its receivers did not acknowledge
   */
  faultAlertWaiterDelayMs?: number;
  /**
   * proxies in front of the service whose X-Forwarded-For entries are trusted for the client address; 0: the socket's
   */
  trustProxyHops: number;
  /** browser origins granted CORS on the API-key routes ('*' for any); empty: CORS off */
  corsOrigins: string[];
  /** per client address and minute on the operator API */
  operatorLimits: { failedAttemptsPerMinute: number; requestsPerMinute: number };
  /** price per call of gateway tools, micro-credits by "prefix/tool" (TOOL_PRICES); a tool not named is free */
  toolPrices: ReadonlyMap<string, bigint>;
  /** upstream MCP servers mounted under a prefix of the tool gateway (TOOL_UPSTREAMS) */
  toolUpstreams: ToolUpstreamConfig[];
  /**
   * assisted search: its reasoner, and how long an HTTP call waits for its run before answering 503 with nothing
   * charged
   */
  /** deliveryWaitMs: how long a charged assisted answer waits for proof it reached its caller before it is refunded */
  assisted: { llm: LlmReasonerConfig | null; waitMs: number; deliveryWaitMs: number };
  /** the address users reach the service at (PUBLIC_URL), for invite links; unset: the address a request came to */
  publicUrl?: string;
  /**
   * the dashboard's cookies are Secure (and __Host- named): the service is reached over HTTPS (TLS=1, or an https
   * PUBLIC_URL)
   */
  tls: boolean;
  dashboard: DashboardSettings;
  webhooks: WebhookSettings;
}

/** Webhook deliveries (docs/webhooks.md). */
interface WebhookSettings {
  /**
   * the master key every endpoint's signing secret is derived from (WEBHOOK_SECRET_KEY; else generated into the data
   * directory)
   */
  secretKey: string;
  /** waits between attempts, seconds (WEBHOOK_RETRY_SECONDS) */
  retrySeconds: number[];
  /** an endpoint failing this long when a delivery fails for good is disabled (WEBHOOK_DISABLE_AFTER_SECONDS) */
  disableAfterMs: number;
  /**
   * WEBHOOK_ALLOW_PRIVATE_URLS=1: loopback, private and plain-http receivers pass (tests, on-premise); metadata
   * addresses never
   */
  allowPrivateUrls: boolean;
  /**
   * fault injection for crash tests only: an attempt pauses this long after the receiver answered, before it is
   * recorded
   */
  faultAfterSendDelayMs?: number;
}

/** The OpenAI-compatible chat model of assisted search; set only when LLM_BASE_URL and LLM_MODEL both are. */
interface LlmReasonerConfig {
  baseUrl: string;
  model: string;
  apiKey?: string;
  /** per attempt (LLM_TIMEOUT_MS, default 20000) */
  timeoutMs: number;
  /** further attempts after a timeout, network error, 429 or 5xx (LLM_RETRIES, default 2) */
  retries: number;
}

const TOOL_PATH = /^[A-Za-z0-9_.-]+\/[A-Za-z0-9_.-]+$/;

/** TOOL_PRICES: comma-separated `prefix/tool=credits` pairs, e.g. "retractions/check=0.001,works/lookup=0". */
export function toolPricesFrom(raw: string | undefined): Map<string, bigint> {
  const prices = new Map<string, bigint>();
  for (const entry of (raw ?? "")
    .split(",")
    .map((e) => e.trim())
    .filter(Boolean)) {
    const [path, price, ...rest] = entry.split("=");
    const micros = price === undefined ? null : parseCredits(price);
    if (rest.length > 0 || !path || !TOOL_PATH.test(path.trim()) || micros === null || micros < 0n) {
      throw new Error(
        `TOOL_PRICES entries must look like prefix/tool=0.001 (credits per call, not negative), got ${entry}`,
      );
    }
    prices.set(path.trim(), micros);
  }
  return prices;
}

const toolUpstreamsSchema = z.array(
  z
    .object({
      prefix: z
        .string()
        .regex(/^[A-Za-z0-9_.]+(?:-[A-Za-z0-9_.]+)*$/, 'a prefix is letters, digits, "_", "." and single "-"'),
      url: z.string().url(),
      authHeader: z.string().min(1).optional(),
    })
    .strict(),
);

/** TOOL_UPSTREAMS: a JSON array of {prefix, url, authHeader?}; each prefix once. */
export function toolUpstreamsFrom(raw: string | undefined): ToolUpstreamConfig[] {
  if (raw === undefined || raw.trim() === "") return [];
  let parsed: unknown;
  try {
    parsed = JSON.parse(raw);
  } catch {
    throw new Error('TOOL_UPSTREAMS must be a JSON array of {"prefix", "url", "authHeader"?}');
  }
  const result = toolUpstreamsSchema.safeParse(parsed);
  if (!result.success)
    throw new Error(
      `TOOL_UPSTREAMS: ${result.error.issues.map((i) => `${i.path.join(".")}: ${i.message}`).join("; ")}`,
    );
  const prefixes = result.data.map((u) => u.prefix);
  const twice = prefixes.find((p, i) => prefixes.indexOf(p) !== i);
  if (twice) throw new Error(`TOOL_UPSTREAMS mounts the prefix ${twice} twice`);
  return result.data;
}

function nonNegativeInteger(env: NodeJS.ProcessEnv, name: string, fallback: number): number {
  const raw = env[name];
  if (raw === undefined || raw === "") return fallback;
  const value = Number(raw);
  if (!Number.isInteger(value) || value < 0) throw new Error(`${name} must be a whole number (0 or more), got ${raw}`);
  return value;
}

/**
 * OPENSEARCH_URL: one node's address, or a cluster's nodes comma-separated; the nodes as a list (empty when unset).
 */
function opensearchNodesFrom(raw: string | undefined): string[] {
  const entries = (raw ?? "")
    .split(",")
    .map((e) => e.trim())
    .filter(Boolean);
  const nodes = entries.map((entry) => {
    let url: URL | undefined;
    try {
      url = new URL(entry);
    } catch {
      url = undefined;
    }
    if (!url || (url.protocol !== "http:" && url.protocol !== "https:") || url.search || url.hash)
      throw new Error(
        "OPENSEARCH_URL must be a node's address, or several comma-separated, such as " +
          `http://os-1:9200,http://os-2:9200; got ${entry}`,
      );
    return `${url.origin}${url.pathname.replace(/\/+$/, "")}`;
  });
  const twice = nodes.find((n, i) => nodes.indexOf(n) !== i);
  if (twice) throw new Error(`OPENSEARCH_URL lists ${twice} twice: name each node once`);
  return nodes;
}

/** OpenSearch indexes: shards 1 to 1024, replicas 0 to 16 (one per further node, at most). */
function opensearchLayoutFrom(env: NodeJS.ProcessEnv): { shards: number; replicas: number } {
  const shards = positiveInteger(env, "OPENSEARCH_SHARDS", 1);
  const replicas = nonNegativeInteger(env, "OPENSEARCH_REPLICAS", 0);
  if (shards > 1024) throw new Error(`OPENSEARCH_SHARDS must be 1024 or fewer, got ${shards}`);
  if (replicas > 16)
    throw new Error(`OPENSEARCH_REPLICAS must be 16 or fewer (each replica is one more node's copy), got ${replicas}`);
  const layoutSet = [env.OPENSEARCH_SHARDS, env.OPENSEARCH_REPLICAS].some((v) => v !== undefined && v !== "");
  if (layoutSet && !env.OPENSEARCH_URL?.trim())
    throw new Error(
      "OPENSEARCH_SHARDS and OPENSEARCH_REPLICAS lay out OpenSearch indexes: set OPENSEARCH_URL too, or unset them",
    );
  return { shards, replicas };
}

/** LLM_BASE_URL and LLM_MODEL turn the chat reasoner on; one without the other is a configuration mistake. */
export function llmReasonerConfigFrom(env: NodeJS.ProcessEnv): LlmReasonerConfig | null {
  const baseUrl = env.LLM_BASE_URL?.trim() || undefined;
  const model = env.LLM_MODEL?.trim() || undefined;
  // every LLM_ variable is read (and checked) whether or not a model is configured: CONFIG_VARIABLES names them all
  const apiKey = env.LLM_API_KEY || undefined;
  const timeoutMs = positiveInteger(env, "LLM_TIMEOUT_MS", 20_000);
  const retries = nonNegativeInteger(env, "LLM_RETRIES", 2);
  if (!baseUrl && !model) return null;
  if (!baseUrl || !model)
    throw new Error(
      "LLM_BASE_URL and LLM_MODEL go together: set both to use a chat model for assisted search, or neither",
    );
  try {
    new URL(baseUrl);
  } catch {
    throw new Error(`LLM_BASE_URL must be a URL such as https://api.example.com/v1, got ${baseUrl}`);
  }
  return {
    baseUrl,
    model,
    apiKey,
    timeoutMs,
    retries,
  };
}

export interface EmbeddingServerConfig {
  /** the servers' base addresses (one or several, of the same model), checked by embeddingServerUrls (http or https) */
  urls: string[];
  protocol: EmbeddingProtocol;
  /** the model name sent to an OpenAI-compatible server and expected back */
  model?: string;
  apiKey?: string;
  /** texts per request */
  batchSize: number;
  /** requests in flight at once to each server, at most */
  concurrency: number;
  /** per request */
  timeoutMs: number;
  /** how long a batch keeps being retried (429, 5xx, timeouts, refused connections) before its activity fails */
  retryForMs: number;
}

const EMBEDDING_SERVER_DEFAULTS = { batchSize: 32, concurrency: 4, timeoutMs: 30_000, retryForMs: 600_000 };

/** EMBEDDING_URL turns the remote embedding port on; every EMBEDDING_ variable is read (and checked) either way. */
function embeddingServerConfigFrom(env: NodeJS.ProcessEnv): EmbeddingServerConfig | null {
  const raw = env.EMBEDDING_URL?.trim() || undefined;
  const protocol = (env.EMBEDDING_PROTOCOL?.trim() || "openai") as EmbeddingProtocol;
  if (!EMBEDDING_PROTOCOLS.includes(protocol))
    throw new Error(`EMBEDDING_PROTOCOL must be one of ${EMBEDDING_PROTOCOLS.join(", ")}, got ${protocol}`);
  const model = env.EMBEDDING_MODEL?.trim() || undefined;
  const apiKey = env.EMBEDDING_API_KEY || undefined;
  const batchSize = positiveInteger(env, "EMBEDDING_BATCH_SIZE", EMBEDDING_SERVER_DEFAULTS.batchSize);
  const concurrency = positiveInteger(env, "EMBEDDING_CONCURRENCY", EMBEDDING_SERVER_DEFAULTS.concurrency);
  const timeoutMs = positiveInteger(env, "EMBEDDING_TIMEOUT_MS", EMBEDDING_SERVER_DEFAULTS.timeoutMs);
  const retryForMs =
    positiveInteger(env, "EMBEDDING_RETRY_SECONDS", EMBEDDING_SERVER_DEFAULTS.retryForMs / 1000) * 1000;
  if (!raw) return null;
  return {
    urls: embeddingServerUrls(raw).map((url) => url.href),
    protocol,
    ...(model ? { model } : {}),
    ...(apiKey ? { apiKey } : {}),
    batchSize,
    concurrency,
    timeoutMs,
    retryForMs,
  };
}

function positiveInteger(env: NodeJS.ProcessEnv, name: string, fallback: number): number {
  const raw = env[name];
  if (raw === undefined || raw === "") return fallback;
  const value = Number(raw);
  if (!Number.isInteger(value) || value < 1) throw new Error(`${name} must be a positive integer, got ${raw}`);
  return value;
}

/**
 * TRUST_PROXY is a count of hops, never "true": Koa would then take the leftmost X-Forwarded-For entry, which the
 * client writes.
 */
function trustProxyHopsFrom(raw: string | undefined): number {
  if (raw === undefined || raw === "" || raw === "0" || raw === "false") return 0;
  const hops = Number(raw);
  if (!Number.isInteger(hops) || hops < 1)
    throw new Error(`TRUST_PROXY must be the number of proxies in front of the service (1, 2, ...) or 0, got ${raw}`);
  return hops;
}

function corsOriginsFrom(raw: string | undefined): string[] {
  const origins = (raw ?? "")
    .split(",")
    .map((o) => o.trim())
    .filter(Boolean);
  for (const origin of origins) {
    if (origin === "*") continue;
    let canonical: string | undefined;
    try {
      canonical = new URL(origin).origin;
    } catch {
      canonical = undefined;
    }
    if (canonical !== origin)
      throw new Error(
        `CORS_ORIGINS entries must be origins like https://app.example.org (no path, no trailing /), got ${origin}`,
      );
  }
  return origins;
}

/**
 * A master key given must be long enough to be a key; one generated is kept in the data directory like the admin token.
 */
function webhookSecretKeyFrom(env: NodeJS.ProcessEnv, dataDir: string): string {
  if (env.WEBHOOK_SECRET_KEY && env.WEBHOOK_SECRET_KEY.length >= 32) return env.WEBHOOK_SECRET_KEY;
  if (env.WEBHOOK_SECRET_KEY)
    throw new Error("WEBHOOK_SECRET_KEY must be at least 32 characters (for example: openssl rand -hex 32)");
  const file = join(dataDir, "webhook-secret-key");
  if (existsSync(file)) return readFileSync(file, "utf8").trim();
  mkdirSync(dataDir, { recursive: true });
  const key = randomBytes(32).toString("hex");
  writeFileSync(file, `${key}\n`, { mode: 0o600 });
  return key;
}

function flagFrom(env: NodeJS.ProcessEnv, name: string): boolean {
  const raw = env[name];
  if (raw === undefined || raw === "" || raw === "0" || raw === "false") return false;
  if (raw === "1" || raw === "true") return true;
  throw new Error(`${name} must be 1 or 0, got ${raw}`);
}

function adminTokenFrom(env: NodeJS.ProcessEnv, dataDir: string): { token: string; generated: boolean } {
  if (env.ADMIN_TOKEN && env.ADMIN_TOKEN.length >= 16) return { token: env.ADMIN_TOKEN, generated: false };
  if (env.ADMIN_TOKEN) throw new Error("ADMIN_TOKEN must be at least 16 characters");
  const file = join(dataDir, "admin-token");
  if (existsSync(file)) return { token: readFileSync(file, "utf8").trim(), generated: false };
  mkdirSync(dataDir, { recursive: true });
  const token = `adm_${randomBytes(24).toString("hex")}`;
  writeFileSync(file, `${token}\n`, { mode: 0o600 });
  return { token, generated: true };
}

/**
 * Where provisioning installs the components and the embedding model: $LITSEARCH_CACHE, else ~/.cache/litsearch (the
 * rule scripts/provision.sh follows).
 */
export function cacheDirFrom(env: NodeJS.ProcessEnv): string {
  return env.LITSEARCH_CACHE || join(homedir(), ".cache", "litsearch");
}

function publicUrlFrom(raw: string | undefined): string | undefined {
  if (raw === undefined || raw.trim() === "") return undefined;
  let url: URL;
  try {
    url = new URL(raw.trim());
  } catch {
    throw new Error(`PUBLIC_URL must be an http(s) URL such as https://search.example.org, got ${raw}`);
  }
  if (url.protocol !== "http:" && url.protocol !== "https:")
    throw new Error(`PUBLIC_URL must be an http(s) URL, got ${raw}`);
  return `${url.origin}${url.pathname.replace(/\/+$/, "")}`;
}

/** Where the event store is: the database at DATABASE_URL, else PGlite under DATA_DIR. Reads, never creates. */
export interface StoreLocation {
  dataDir: string;
  databaseUrl?: string;
}

export function storeLocationFrom(env: NodeJS.ProcessEnv): StoreLocation {
  return { dataDir: resolve(env.DATA_DIR ?? join(REPO_ROOT, "data")), databaseUrl: env.DATABASE_URL || undefined };
}

/**
 * Which server the operator CLI sends its commands to: `url` unset means the one running on this data directory, if
 * any.
 */
export interface OperatorTarget {
  url?: string;
  adminToken?: string;
}

/** --url (else LITSEARCH_URL) and --admin-token (else ADMIN_TOKEN); a named server needs its token. */
export function operatorTargetFrom(
  flags: { url?: string; adminToken?: string },
  env: NodeJS.ProcessEnv,
): OperatorTarget {
  const rawUrl = flags.url ?? (env.LITSEARCH_URL || undefined);
  const adminToken = flags.adminToken ?? (env.ADMIN_TOKEN || undefined);
  if (rawUrl === undefined) return { adminToken };
  let url: URL;
  try {
    url = new URL(rawUrl.trim());
  } catch {
    throw new Error(
      `--url (or LITSEARCH_URL) must be the server's address such as https://search.example.org, got ${rawUrl}`,
    );
  }
  if (url.protocol !== "http:" && url.protocol !== "https:")
    throw new Error(`--url (or LITSEARCH_URL) must be an http(s) address, got ${rawUrl}`);
  if (adminToken === undefined)
    throw new Error(`${url.origin} needs its operator token: pass --admin-token TOKEN or set ADMIN_TOKEN`);
  return { url: `${url.origin}${url.pathname.replace(/\/+$/, "")}`, adminToken };
}

export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const store = storeLocationFrom(env);
  const dataDir = store.dataDir;
  const port = Number(env.PORT ?? 8080);
  if (!Number.isInteger(port) || port < 0 || port > 65535)
    throw new Error(`PORT must be a port number, got ${env.PORT}`);
  const admin = adminTokenFrom(env, dataDir);
  const publicUrl = publicUrlFrom(env.PUBLIC_URL);
  if (env.TLS !== undefined && !["", "0", "1", "true", "false"].includes(env.TLS))
    throw new Error(`TLS must be 1 or 0, got ${env.TLS}`);
  return {
    port,
    host: env.HOST ?? "127.0.0.1",
    dataDir,
    adminToken: admin.token,
    adminTokenGenerated: admin.generated,
    databaseUrl: store.databaseUrl,
    opensearchUrl: opensearchNodesFrom(env.OPENSEARCH_URL).join(",") || undefined,
    opensearchLayout: opensearchLayoutFrom(env),
    searchDeadlineMs: positiveInteger(env, "SEARCH_DEADLINE_MS", DEFAULT_SEARCH_DEADLINE_MS),
    temporalAddress: env.TEMPORAL_ADDRESS || undefined,
    temporalNamespace: env.TEMPORAL_NAMESPACE || "default",
    inProcessWorker: env.WORKER_MODE !== "separate",
    cacheDir: cacheDirFrom(env),
    collectionsConfig: resolve(env.COLLECTIONS_CONFIG ?? DEFAULT_COLLECTIONS_CONFIG),
    dataRoot: resolve(env.DATA_ROOT ?? DEFAULT_DATA_ROOT),
    logLevel: env.LOG_LEVEL ?? "info",
    ingestDemo: env.INGEST_DEMO !== "0",
    // one per core, at most 8: each holds its own copy of the model
    embeddingWorkers: positiveInteger(env, "EMBEDDING_WORKERS", Math.min(availableParallelism(), 8)),
    embeddingServer: embeddingServerConfigFrom(env),
    ingestBatchSize: positiveInteger(env, "INGEST_BATCH_SIZE", 256),
    ingestParallelism: positiveInteger(env, "INGEST_PARALLELISM", 4),
    uploadMaxBytes: positiveInteger(env, "UPLOAD_MAX_MB", 2048) * 1024 * 1024,
    faultIngestBatchDelayMs: env.FAULT_INGEST_BATCH_DELAY_MS ? Number(env.FAULT_INGEST_BATCH_DELAY_MS) : undefined,
    faultAfterChargeDelayMs: env.FAULT_AFTER_CHARGE_DELAY_MS ? Number(env.FAULT_AFTER_CHARGE_DELAY_MS) : undefined,
    faultFanOutDelayMs: env.FAULT_FAN_OUT_DELAY_MS ? Number(env.FAULT_FAN_OUT_DELAY_MS) : undefined,
    faultAlertWaiterDelayMs: env.FAULT_ALERT_WAITER_DELAY_MS ? Number(env.FAULT_ALERT_WAITER_DELAY_MS) : undefined,
    trustProxyHops: trustProxyHopsFrom(env.TRUST_PROXY),
    corsOrigins: corsOriginsFrom(env.CORS_ORIGINS),
    operatorLimits: {
      failedAttemptsPerMinute: positiveInteger(env, "ADMIN_FAILED_AUTH_PER_MINUTE", 20),
      requestsPerMinute: positiveInteger(env, "ADMIN_REQUESTS_PER_MINUTE", 600),
    },
    toolPrices: toolPricesFrom(env.TOOL_PRICES),
    toolUpstreams: toolUpstreamsFrom(env.TOOL_UPSTREAMS),
    assisted: {
      llm: llmReasonerConfigFrom(env),
      waitMs: positiveInteger(env, "ASSISTED_WAIT_SECONDS", 90) * 1000,
      deliveryWaitMs: positiveInteger(env, "ASSISTED_DELIVERY_WAIT_SECONDS", 15 * 60) * 1000,
    },
    publicUrl,
    tls: env.TLS === "1" || env.TLS === "true" || publicUrl?.startsWith("https:") === true,
    dashboard: {
      requestsPerMinute: positiveInteger(env, "DASHBOARD_REQUESTS_PER_MINUTE", 300),
      failedLoginsPerMinute: positiveInteger(env, "DASHBOARD_FAILED_LOGINS_PER_MINUTE", 10),
      failedLoginsPerAccount: positiveInteger(env, "DASHBOARD_FAILED_LOGINS_PER_ACCOUNT", 5),
      sessionHours: positiveInteger(env, "DASHBOARD_SESSION_HOURS", 12),
      creditPrice: parseCreditPrice(env.DASHBOARD_CREDIT_PRICE),
    },
    webhooks: {
      secretKey: webhookSecretKeyFrom(env, dataDir),
      retrySeconds: parseRetrySchedule(env.WEBHOOK_RETRY_SECONDS),
      disableAfterMs: positiveInteger(env, "WEBHOOK_DISABLE_AFTER_SECONDS", 3 * 24 * 3600) * 1000,
      allowPrivateUrls: flagFrom(env, "WEBHOOK_ALLOW_PRIVATE_URLS"),
      faultAfterSendDelayMs: env.FAULT_WEBHOOK_AFTER_SEND_DELAY_MS
        ? Number(env.FAULT_WEBHOOK_AFTER_SEND_DELAY_MS)
        : undefined,
    },
  };
}

/**
 * The environment that makes loadConfig read `config` back (loadConfig(configEnvironment(c)) equals c): how a launcher
 * hands its configuration, changed where it means to, to the processes it starts (src/app/scaledTopology.ts).
 */
export function configEnvironment(config: Config): Record<ConfigVariable, string> {
  return {
    PORT: String(config.port),
    HOST: config.host,
    DATA_DIR: config.dataDir,
    ADMIN_TOKEN: config.adminToken,
    DATABASE_URL: config.databaseUrl ?? "",
    OPENSEARCH_URL: config.opensearchUrl ?? "",
    // read only beside OPENSEARCH_URL (without it the layout is the default)
    OPENSEARCH_SHARDS: config.opensearchUrl ? String(config.opensearchLayout.shards) : "",
    OPENSEARCH_REPLICAS: config.opensearchUrl ? String(config.opensearchLayout.replicas) : "",
    SEARCH_DEADLINE_MS: String(config.searchDeadlineMs),
    TEMPORAL_ADDRESS: config.temporalAddress ?? "",
    TEMPORAL_NAMESPACE: config.temporalNamespace,
    WORKER_MODE: config.inProcessWorker ? "in-process" : "separate",
    LITSEARCH_CACHE: config.cacheDir,
    COLLECTIONS_CONFIG: config.collectionsConfig,
    DATA_ROOT: config.dataRoot,
    LOG_LEVEL: config.logLevel,
    INGEST_DEMO: config.ingestDemo ? "1" : "0",
    EMBEDDING_WORKERS: String(config.embeddingWorkers),
    EMBEDDING_URL: config.embeddingServer?.urls.join(",") ?? "",
    EMBEDDING_PROTOCOL: config.embeddingServer?.protocol ?? "openai",
    EMBEDDING_MODEL: config.embeddingServer?.model ?? "",
    EMBEDDING_API_KEY: config.embeddingServer?.apiKey ?? "",
    EMBEDDING_BATCH_SIZE: String(config.embeddingServer?.batchSize ?? EMBEDDING_SERVER_DEFAULTS.batchSize),
    EMBEDDING_CONCURRENCY: String(config.embeddingServer?.concurrency ?? EMBEDDING_SERVER_DEFAULTS.concurrency),
    EMBEDDING_TIMEOUT_MS: String(config.embeddingServer?.timeoutMs ?? EMBEDDING_SERVER_DEFAULTS.timeoutMs),
    EMBEDDING_RETRY_SECONDS: String(
      (config.embeddingServer?.retryForMs ?? EMBEDDING_SERVER_DEFAULTS.retryForMs) / 1000,
    ),
    INGEST_BATCH_SIZE: String(config.ingestBatchSize),
    INGEST_PARALLELISM: String(config.ingestParallelism),
    UPLOAD_MAX_MB: String(config.uploadMaxBytes / (1024 * 1024)),
    FAULT_INGEST_BATCH_DELAY_MS:
      config.faultIngestBatchDelayMs === undefined ? "" : String(config.faultIngestBatchDelayMs),
    FAULT_AFTER_CHARGE_DELAY_MS:
      config.faultAfterChargeDelayMs === undefined ? "" : String(config.faultAfterChargeDelayMs),
    TRUST_PROXY: String(config.trustProxyHops),
    CORS_ORIGINS: config.corsOrigins.join(","),
    ADMIN_FAILED_AUTH_PER_MINUTE: String(config.operatorLimits.failedAttemptsPerMinute),
    ADMIN_REQUESTS_PER_MINUTE: String(config.operatorLimits.requestsPerMinute),
    TOOL_PRICES: [...config.toolPrices].map(([tool, micros]) => `${tool}=${formatCredits(micros)}`).join(","),
    TOOL_UPSTREAMS: config.toolUpstreams.length === 0 ? "" : JSON.stringify(config.toolUpstreams),
    FAULT_FAN_OUT_DELAY_MS: config.faultFanOutDelayMs === undefined ? "" : String(config.faultFanOutDelayMs),
    FAULT_ALERT_WAITER_DELAY_MS:
      config.faultAlertWaiterDelayMs === undefined ? "" : String(config.faultAlertWaiterDelayMs),
    ASSISTED_WAIT_SECONDS: String(config.assisted.waitMs / 1000),
    ASSISTED_DELIVERY_WAIT_SECONDS: String(config.assisted.deliveryWaitMs / 1000),
    LLM_BASE_URL: config.assisted.llm?.baseUrl ?? "",
    LLM_MODEL: config.assisted.llm?.model ?? "",
    LLM_API_KEY: config.assisted.llm?.apiKey ?? "",
    LLM_TIMEOUT_MS: String(config.assisted.llm?.timeoutMs ?? 20_000),
    LLM_RETRIES: String(config.assisted.llm?.retries ?? 2),
    PUBLIC_URL: config.publicUrl ?? "",
    TLS: config.tls ? "1" : "0",
    DASHBOARD_REQUESTS_PER_MINUTE: String(config.dashboard.requestsPerMinute),
    DASHBOARD_FAILED_LOGINS_PER_MINUTE: String(config.dashboard.failedLoginsPerMinute),
    DASHBOARD_FAILED_LOGINS_PER_ACCOUNT: String(config.dashboard.failedLoginsPerAccount),
    DASHBOARD_SESSION_HOURS: String(config.dashboard.sessionHours),
    DASHBOARD_CREDIT_PRICE: config.dashboard.creditPrice
      ? `${formatCredits(config.dashboard.creditPrice.microsPerCredit)} ${config.dashboard.creditPrice.currency}`
      : "",
    WEBHOOK_SECRET_KEY: config.webhooks.secretKey,
    WEBHOOK_RETRY_SECONDS: config.webhooks.retrySeconds.join(","),
    WEBHOOK_DISABLE_AFTER_SECONDS: String(config.webhooks.disableAfterMs / 1000),
    WEBHOOK_ALLOW_PRIVATE_URLS: config.webhooks.allowPrivateUrls ? "1" : "0",
    FAULT_WEBHOOK_AFTER_SEND_DELAY_MS:
      config.webhooks.faultAfterSendDelayMs === undefined ? "" : String(config.webhooks.faultAfterSendDelayMs),
  };
}
