// Where a service's CPU time goes per request, from the V8 CPU profiles `node --cpu-prof` writes (one per thread):
// samples inside a time window, each charged to a phase of the paid search by the innermost frame of ours on its stack
// (library code runs on behalf of the caller that called it), or by its library when no frame of ours is on it.
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string };
  children?: number[];
}

interface CpuProfile {
  nodes: ProfileNode[];
  /** microseconds on the monotonic clock process.hrtime reads */
  startTime: number;
  samples: number[];
  timeDeltas: number[];
}

/** Phases of one paid search, in the order a request meets them. */
export const PHASES = [
  "parse and validate",
  "catalogue question check",
  "authentication",
  "quota and limits",
  "retrieval",
  "rerank",
  "billing append",
  "query record and response",
  "HTTP and sockets",
  "other service code",
  "garbage collection",
  "V8 and native",
] as const;
export type Phase = (typeof PHASES)[number];

/** Our modules by path prefix under src/, most specific first. */
export const SOURCE_PHASES: Array<[string, Phase]> = [
  ["http/jsonBody", "parse and validate"],
  ["http/requestText", "parse and validate"],
  ["wire/schemas", "parse and validate"],
  ["usecases/search/queryValidation", "parse and validate"],
  ["usecases/catalogue/", "catalogue question check"],
  ["http/authentication", "authentication"],
  ["usecases/auth/", "authentication"],
  ["usecases/limits/", "quota and limits"],
  ["domain/queryQuota", "quota and limits"],
  ["retrieval/rerank", "rerank"],
  ["usecases/search/queryCache", "query record and response"],
  ["usecases/search/searchService", "query record and response"],
  ["wire/presenters/", "query record and response"],
  ["usecases/search/", "retrieval"],
  ["retrieval/", "retrieval"],
  ["embedding/", "retrieval"],
  ["filters/", "retrieval"],
  ["journals/", "retrieval"],
  ["usecases/collections/", "retrieval"],
  ["usecases/accounts/", "billing append"],
  ["eventstore/", "billing append"],
  ["domain/", "billing append"],
  ["http/", "query record and response"],
];

/** Libraries by the path of their package, for samples with no frame of ours on the stack. */
const LIBRARY_PHASES: Array<[string, Phase]> = [
  ["node_modules/zod/", "parse and validate"],
  ["node_modules/@opensearch-project/", "retrieval"],
  ["node_modules/onnxruntime-node/", "retrieval"],
  ["node_modules/pg", "billing append"],
  ["node_modules/@electric-sql/", "billing append"],
  ["node_modules/koa", "HTTP and sockets"],
  ["node_modules/@koa/", "HTTP and sockets"],
  ["node:", "HTTP and sockets"],
];

function phaseOfUrl(url: string): Phase | undefined {
  const source = url.lastIndexOf("/src/");
  if (source >= 0 && !url.includes("node_modules")) {
    const path = url.slice(source + "/src/".length);
    return SOURCE_PHASES.find(([prefix]) => path.startsWith(prefix))?.[1] ?? "other service code";
  }
  return undefined;
}

function phaseOfLibrary(url: string): Phase | undefined {
  return LIBRARY_PHASES.find(([prefix]) => url.includes(prefix))?.[1];
}

export interface ThreadSummary {
  file: string;
  /** CPU milliseconds sampled in the window (idle excluded) */
  busyMs: number;
  byPhase: Map<Phase, number>;
}

/** One profile's CPU time in [fromMicros, toMicros) by phase. */
export function summarizeProfile(file: string, fromMicros: number, toMicros: number): ThreadSummary {
  const profile = JSON.parse(readFileSync(file, "utf8")) as CpuProfile;
  const parent = new Map<number, number>();
  const byId = new Map<number, ProfileNode>();
  for (const node of profile.nodes) {
    byId.set(node.id, node);
    for (const child of node.children ?? []) parent.set(child, node.id);
  }
  const phaseOfNode = new Map<number, Phase | "idle">();
  const resolve = (id: number): Phase | "idle" => {
    const known = phaseOfNode.get(id);
    if (known) return known;
    const leaf = byId.get(id)!.callFrame;
    let phase: Phase | "idle" | undefined;
    if (leaf.functionName === "(idle)") phase = "idle";
    else if (leaf.functionName === "(garbage collector)") phase = "garbage collection";
    else {
      // the innermost package on the stack, Node's own modules only when no package is on it
      let library: Phase | undefined;
      let nodeModule: Phase | undefined;
      for (let at: number | undefined = id; at !== undefined && phase === undefined; at = parent.get(at)) {
        const url = byId.get(at)!.callFrame.url;
        phase = phaseOfUrl(url);
        if (url.startsWith("node:")) nodeModule ??= phaseOfLibrary(url);
        else library ??= phaseOfLibrary(url);
      }
      phase ??= library ?? nodeModule ?? "V8 and native";
    }
    phaseOfNode.set(id, phase);
    return phase;
  };
  const byPhase = new Map<Phase, number>();
  let busy = 0;
  let time = profile.startTime;
  for (let i = 0; i < profile.samples.length; i++) {
    time += profile.timeDeltas[i];
    const next = profile.timeDeltas[i + 1] ?? 0;
    if (time < fromMicros || time >= toMicros) continue;
    const phase = resolve(profile.samples[i]);
    if (phase === "idle") continue;
    // a sample stands for the interval up to the next one
    byPhase.set(phase, (byPhase.get(phase) ?? 0) + next / 1000);
    busy += next / 1000;
  }
  return { file, busyMs: busy, byPhase };
}

/** Every profile in a directory (the main thread's and each worker thread's), summarized over the window. */
export function summarizeProfiles(dir: string, fromMicros: number, toMicros: number): ThreadSummary[] {
  return readdirSync(dir)
    .filter((name) => name.endsWith(".cpuprofile"))
    .map((name) => summarizeProfile(join(dir, name), fromMicros, toMicros))
    .filter((summary) => summary.busyMs > 0)
    .sort((a, b) => b.busyMs - a.busyMs);
}

/** The monotonic clock of profile timestamps, in microseconds. */
export function profileClockMicros(): number {
  return Number(process.hrtime.bigint() / 1000n);
}

/** Finer categories of the main thread's CPU per search (issue 54 point 2), by the stack of each sample. */
export const CATEGORIES = [
  "HTTP/Koa/middleware",
  "auth/keys",
  "rate limits/quotas",
  "query cache",
  "query embedding",
  "engine request building",
  "JSON parse of OpenSearch's answer",
  "re-scoring",
  "row decoration (integrity, works)",
  "presenting/JSON stringify",
  "billing append",
  "query record",
  "logging (pino)",
  "search pipeline, other",
  "garbage collection",
  "V8 and native",
  "other",
] as const;
export type Category = (typeof CATEGORIES)[number];

/** Libraries that own their samples wherever they are called from (checked innermost first). */
const OWNING_LIBRARIES: Array<[string, Category]> = [
  ["node_modules/pino", "logging (pino)"],
  ["node_modules/thread-stream", "logging (pino)"],
  ["node_modules/sonic-boom", "logging (pino)"],
  ["node_modules/secure-json-parse", "JSON parse of OpenSearch's answer"],
  ["node_modules/onnxruntime-node", "query embedding"],
  ["node_modules/pg", "billing append"],
  ["node_modules/@electric-sql/", "billing append"],
];

/** Our modules by path under src/, most specific first. */
export const SOURCE_CATEGORIES: Array<[string, Category]> = [
  ["http/authentication", "auth/keys"],
  ["usecases/auth/", "auth/keys"],
  ["usecases/accounts/apiKeys", "auth/keys"],
  ["usecases/accounts/keyProjection", "auth/keys"],
  ["http/ipLimiter", "rate limits/quotas"],
  ["usecases/limits/", "rate limits/quotas"],
  ["domain/queryQuota", "rate limits/quotas"],
  ["usecases/search/queryCache", "query cache"],
  ["retrieval/queryVectorCache", "query cache"],
  ["embedding/", "query embedding"],
  ["retrieval/engines/opensearch/transport", "JSON parse of OpenSearch's answer"],
  ["retrieval/engines/", "engine request building"],
  ["retrieval/rerank", "re-scoring"],
  ["retrieval/relevance", "re-scoring"],
  ["retrieval/repeats", "re-scoring"],
  ["retrieval/fusion", "re-scoring"],
  ["retrieval/rowSelection", "re-scoring"],
  ["usecases/works/", "row decoration (integrity, works)"],
  ["wire/presenters/", "presenting/JSON stringify"],
  ["usecases/search/payloadDeflate", "query record"],
  ["usecases/accounts/", "billing append"],
  ["eventstore/", "billing append"],
  ["usecases/search/", "search pipeline, other"],
  ["retrieval/", "search pipeline, other"],
  ["http/", "HTTP/Koa/middleware"],
  ["wire/", "presenting/JSON stringify"],
];

function categoryOfStack(frames: ReadonlyArray<{ functionName: string; url: string }>): Category {
  // frames innermost first
  const leaf = frames[0]!;
  if (leaf.functionName === "(garbage collector)") return "garbage collection";
  const json = leaf.url === "" && (leaf.functionName === "parse" || leaf.functionName === "stringify");
  for (const frame of frames) {
    const owning = OWNING_LIBRARIES.find(([prefix]) => frame.url.includes(prefix));
    if (owning) return owning[1];
    if (frame.url.includes("node_modules/@opensearch-project/"))
      return json ? "JSON parse of OpenSearch's answer" : "engine request building";
    if (frame.url.includes("node_modules/koa") || frame.url.includes("node_modules/@koa/"))
      return json ? "presenting/JSON stringify" : "HTTP/Koa/middleware";
    const source = frame.url.lastIndexOf("/src/");
    if (source >= 0 && !frame.url.includes("node_modules")) {
      const path = frame.url.slice(source + "/src/".length);
      return SOURCE_CATEGORIES.find(([prefix]) => path.startsWith(prefix))?.[1] ?? "other";
    }
  }
  if (frames.some((f) => f.url.startsWith("node:"))) return "HTTP/Koa/middleware";
  return "V8 and native";
}

export interface CategorySummary {
  busyMs: number;
  byCategory: Map<Category, number>;
  /** CPU ms by innermost JavaScript frame ("function file:line"), for finding a category's cause */
  byFunction: Map<string, number>;
}

/** One profile's CPU time in [fromMicros, toMicros) by category (CATEGORIES) and by innermost function. */
export function summarizeCategories(file: string, fromMicros: number, toMicros: number): CategorySummary {
  const profile = JSON.parse(readFileSync(file, "utf8")) as CpuProfile;
  const parent = new Map<number, number>();
  const byId = new Map<number, ProfileNode>();
  for (const node of profile.nodes) {
    byId.set(node.id, node);
    for (const child of node.children ?? []) parent.set(child, node.id);
  }
  const known = new Map<number, [Category | "idle", string]>();
  const resolve = (id: number): [Category | "idle", string] => {
    const cached = known.get(id);
    if (cached) return cached;
    const frames: Array<ProfileNode["callFrame"]> = [];
    for (let at: number | undefined = id; at !== undefined; at = parent.get(at)) frames.push(byId.get(at)!.callFrame);
    const leaf = frames[0]!;
    const named = frames.find((f) => f.url !== "") ?? leaf;
    const leafName = leaf.functionName || "(anonymous)";
    const caller = named !== leaf ? ` < ${named.functionName || "(anonymous)"}` : "";
    const where = `${leafName}${caller} ${named.url.split("/").slice(-2).join("/")}`;
    const result: [Category | "idle", string] =
      leaf.functionName === "(idle)" ? ["idle", ""] : [categoryOfStack(frames), where];
    known.set(id, result);
    return result;
  };
  const byCategory = new Map<Category, number>();
  const byFunction = new Map<string, number>();
  let busy = 0;
  let time = profile.startTime;
  for (let i = 0; i < profile.samples.length; i++) {
    time += profile.timeDeltas[i];
    const next = profile.timeDeltas[i + 1] ?? 0;
    if (time < fromMicros || time >= toMicros) continue;
    const [category, where] = resolve(profile.samples[i]);
    if (category === "idle") continue;
    byCategory.set(category, (byCategory.get(category) ?? 0) + next / 1000);
    byFunction.set(where, (byFunction.get(where) ?? 0) + next / 1000);
    busy += next / 1000;
  }
  return { busyMs: busy, byCategory, byFunction };
}
