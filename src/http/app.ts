// Assembles the Koa application: middleware in one visible order, then the route groups with the access each requires.
import Koa from 'koa';
import type { Logger } from 'pino';
import { errorRenderer, requestIdentity } from './middleware.js';
import { jsonBody } from './jsonBody.js';
import { apiKeyAuthentication, operatorAuthentication } from './authentication.js';
import { searchRoutes, type SearchRouteDeps } from './routes/searchRoutes.js';
import { adminRoutes } from './routes/adminRoutes.js';
import { toolRoutes } from './routes/toolRoutes.js';
import type { ToolRegistry } from '../tools/toolRegistry.js';
import { healthRoutes, type ReadinessCheck } from './routes/healthRoutes.js';
import type { Accounts } from '../billing/accounts.js';
import type { Operations } from '../admin/operations.js';
import { routeGroups } from './routeGroups.js';
import { canonicalPath } from './canonicalPath.js';

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

  const requireOperator = operatorAuthentication(deps.adminToken);
  const requireKey = apiKeyAuthentication(deps.accounts);
  const groups = routeGroups([
    { router: healthRoutes(deps.readiness), access: 'public' },
    { router: adminRoutes(deps.operations), access: requireOperator },
    { router: searchRoutes(deps), access: requireKey },
    { router: toolRoutes(deps), access: requireKey },
  ]);

  app.use(requestIdentity(deps.log));
  app.use(errorRenderer());
  app.use(canonicalPath());
  app.use(groups.authorize);
  app.use(jsonBody(deps.bodyLimitBytes ?? 4 * 1024 * 1024));
  app.use(groups.dispatch);
  return app;
}
