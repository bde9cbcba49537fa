// Liveness (/healthz) and readiness (/readyz: the event store, Temporal and the search engine all answer).
import Router from '@koa/router';

export type ReadinessCheck = () => Promise<boolean>;

async function probe(check: ReadinessCheck, timeoutMs = 2000): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  try {
    return await Promise.race([check(), new Promise<boolean>((resolve) => (timer = setTimeout(() => resolve(false), timeoutMs)))]);
  } catch {
    return false;
  } finally {
    clearTimeout(timer);
  }
}

export function healthRoutes(checks: Record<string, ReadinessCheck>): Router {
  const router = new Router({ sensitive: true, strict: true });
  router.get('/healthz', (ctx) => {
    ctx.body = { status: 'ok' };
  });
  router.get('/readyz', async (ctx) => {
    const names = Object.keys(checks);
    const results = await Promise.all(names.map((n) => probe(checks[n]!)));
    const status = Object.fromEntries(names.map((n, i) => [n, results[i] ? 'up' : 'down']));
    const ready = results.every(Boolean);
    ctx.status = ready ? 200 : 503;
    ctx.body = { status: ready ? 'ready' : 'not_ready', checks: status };
  });
  return router;
}
