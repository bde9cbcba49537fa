// Assembles the Koa application: middleware in one visible order, then the route groups.
import Koa from 'koa';
import type { Logger } from 'pino';
import { errorRenderer, requestIdentity } from './middleware.js';
import { jsonBody } from './jsonBody.js';
import { requestTargetText } from './requestText.js';
import { apiKeyAuthentication } from './authentication.js';
import { searchRoutes, type SearchRouteDeps } from './routes/searchRoutes.js';
import { adminRoutes } from './routes/adminRoutes.js';
import { toolRoutes } from './routes/toolRoutes.js';
import type { ToolRegistry } from '../tools/toolRegistry.js';
import { healthRoutes, type ReadinessCheck } from './routes/healthRoutes.js';
import type { Accounts } from '../billing/accounts.js';
import type { Operations } from '../admin/operations.js';

export interface AppDeps extends SearchRouteDeps {
  log: Logger;
  accounts: Accounts;
  operations: Operations;
  adminToken: string;
  readiness: Record<string, ReadinessCheck>;
  tools: ToolRegistry;
  /** request body limit; filters may legitimately carry tens of thousands of values */
  bodyLimitBytes?: number;
}

export function createApp(deps: AppDeps): Koa {
  const app = new Koa();
  app.proxy = false;
  // errors are rendered by errorRenderer; Koa's default printer would duplicate them
  app.silent = true;

  const health = healthRoutes(deps.readiness);
  const admin = adminRoutes(deps.operations, deps.adminToken);
  const search = searchRoutes(deps);
  const tools = toolRoutes(deps);
  const requireKey = apiKeyAuthentication(deps.accounts);

  app.use(requestIdentity(deps.log));
  app.use(errorRenderer());
  app.use(requestTargetText());
  app.use(jsonBody(deps.bodyLimitBytes ?? 4 * 1024 * 1024));
  app.use(health.routes());
  app.use(admin.routes());
  app.use(async (ctx, next) => (ctx.path.startsWith('/api/') ? requireKey(ctx, next) : next()));
  app.use(search.routes());
  app.use(search.allowedMethods());
  app.use(tools.routes());
  return app;
}
