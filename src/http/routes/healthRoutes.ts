// Liveness (/healthz) and readiness (/readyz: the event store, Temporal and the search engine all answer; the details
// say how vector search runs and which collections are ready or still ingesting, and never decide readiness).
import Router from "@koa/router";

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

export function healthRoutes(checks: Record<string, ReadinessCheck>, details?: ReadinessDetails): Router {
  const router = new Router({ sensitive: true, strict: true });
  router.get("/healthz", (ctx) => {
    ctx.body = { status: "ok" };
  });
  router.get("/readyz", async (ctx) => {
    const names = Object.keys(checks);
    const [results, facts] = await Promise.all([
      Promise.all(names.map((n) => within(checks[n]!, false))),
      details ? within<Record<string, unknown> | undefined>(details, undefined) : undefined,
    ]);
    const status = Object.fromEntries(names.map((n, i) => [n, results[i] ? "up" : "down"]));
    const ready = results.every(Boolean);
    ctx.status = ready ? 200 : 503;
    ctx.body = { status: ready ? "ready" : "not_ready", checks: status, ...(facts ? { details: facts } : {}) };
  });
  return router;
}
