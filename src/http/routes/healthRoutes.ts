// Liveness (/healthz) and readiness (/readyz: the event store, Temporal and the search engine all answer; the details
// say how vector search runs and which collections are ready or still ingesting, and never decide readiness).
import { declareRoute } from "../routeDeclaration.js";

export type ReadinessCheck = () => Promise<boolean>;

/** What `work` gives within `timeoutMs`, else `fallback` (a check that throws or hangs counts as the fallback). */
async function within<T>(work: () => Promise<T>, fallback: T, timeoutMs = 2000): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  try {
    return await Promise.race([
      work(),
      new Promise<T>((resolve) => (timer = setTimeout(() => resolve(fallback), timeoutMs))),
    ]);
  } catch {
    return fallback;
  } finally {
    clearTimeout(timer);
  }
}

/**
 * Readiness details: facts about how the service runs (searchKnn: 'lucene-hnsw' | 'exact'; collections: ready and
 * ingesting), shown beside the checks; they never decide readiness: a service whose collections are still ingesting
 * is ready, and answers 503 for those collections alone.
 */
export type ReadinessDetails = () => Promise<Record<string, unknown>>;

export interface HealthRouteDeps {
  readiness: Record<string, ReadinessCheck>;
  /** shown as /readyz details (how vector search runs, ...) */
  readinessDetails?: ReadinessDetails;
}

export const HEALTH_ROUTES = [
  declareRoute<HealthRouteDeps>({
    method: "get",
    path: "/healthz",
    tag: "health",
    access: "public",
    operationId: "liveness",
    summary: "Liveness",
    response: "Liveness",
    errors: [],
    handler: (ctx) => {
      ctx.body = { status: "ok" };
    },
  }),
  declareRoute<HealthRouteDeps>({
    method: "get",
    path: "/readyz",
    tag: "health",
    access: "public",
    operationId: "readiness",
    summary: "Readiness: the event store, Temporal and the search engine answer",
    response: "Readiness",
    responseDescription: "Ready; 503 with the same body when a dependency is down",
    errors: [503],
    handler: async (ctx, { readiness: checks, readinessDetails: details }) => {
      const names = Object.keys(checks);
      const [results, facts] = await Promise.all([
        Promise.all(names.map((n) => within(checks[n]!, false))),
        details ? within<Record<string, unknown> | undefined>(details, undefined) : undefined,
      ]);
      const status = Object.fromEntries(names.map((n, i) => [n, results[i] ? "up" : "down"]));
      const ready = results.every(Boolean);
      ctx.status = ready ? 200 : 503;
      ctx.body = { status: ready ? "ready" : "not_ready", checks: status, ...(facts ? { details: facts } : {}) };
    },
  }),
];
