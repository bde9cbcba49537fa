// /api/v1/tools/{prefix}/{tool}: tool calls that share the per-minute budget with search. HTTP translation only.
import Router from '@koa/router';
import type { Context } from 'koa';
import { ApiError } from '../errors.js';
import type { RequestState } from '../requestContext.js';
import type { Db } from '../../eventstore/db.js';
import { takeMinuteBudget } from '../../limits/quotas.js';
import { ToolError, type ToolRegistry } from '../../tools/toolRegistry.js';
import { Rejection } from '../../domain/rejection.js';
import { setBillingHeaders } from './billingHeaders.js';

export interface ToolRouteDeps {
  db: Db;
  tools: ToolRegistry;
  clock: () => Date;
}

export function toolRoutes(deps: ToolRouteDeps): Router {
  const router = new Router({ prefix: '/api/v1/tools' });
  router.post('/:prefix/:tool', async (ctx: Context) => {
    const auth = (ctx.state as RequestState).auth;
    if (!auth) throw new ApiError(401, 'UNAUTHORIZED', 'missing API key');
    if (auth.billingMode === 'sandbox') throw new Rejection('SANDBOX_UNSUPPORTED_ENDPOINT', 'tool calls have no sandbox behaviour; use a live key');
    // the call is a request against the shared budget whether or not the tool exists
    await takeMinuteBudget(deps.db, auth.org, deps.clock());
    const { prefix, tool } = ctx.params as { prefix: string; tool: string };
    const handler = deps.tools.find(prefix, tool);
    if (!handler) throw new ApiError(404, 'NOT_FOUND', `no tool ${prefix}/${tool} is configured on this service`);
    try {
      const result = await handler({ orgId: auth.org.id, keyId: auth.key.id, payload: ctx.request.body ?? null });
      setBillingHeaders(ctx, auth, { mode: auth.billingMode, tokens: 0, costMicros: 0n, balanceMicros: auth.org.balanceMicros });
      ctx.body = result ?? {};
    } catch (err) {
      if (err instanceof ToolError) throw new ApiError(422, 'TOOL_ERROR', err.message);
      throw err;
    }
  });
  return router;
}
