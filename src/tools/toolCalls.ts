// The tool-call use case behind POST /api/v1/tools/{prefix}/{tool}: refuses sandbox keys, takes the call's slot of the
// per-minute budget shared with search (whether or not the tool exists), then runs the registered tool.
import type { Db } from '../eventstore/db.js';
import type { AuthContext } from '../auth/context.js';
import { Rejection } from '../domain/rejection.js';
import { takeMinuteBudget } from '../limits/quotas.js';
import { refuseSandbox } from '../search/sandbox.js';
import { ToolError, type ToolRegistry } from './toolRegistry.js';

export interface ToolCallDeps {
  db: Db;
  tools: ToolRegistry;
  clock: () => Date;
}

export function createToolCalls(deps: ToolCallDeps) {
  return {
    /** The tool's answer; 404 NOT_FOUND for a tool not registered, 422 TOOL_ERROR for a tool's domain error. */
    async call(auth: AuthContext, prefix: string, tool: string, payload: unknown): Promise<unknown> {
      refuseSandbox(auth, 'tool calls');
      await takeMinuteBudget(deps.db, auth.org, deps.clock());
      const handler = deps.tools.find(prefix, tool);
      if (!handler) throw new Rejection('NOT_FOUND', `no tool ${prefix}/${tool} is configured on this service`);
      try {
        return await handler({ orgId: auth.org.id, keyId: auth.key.id, payload });
      } catch (err) {
        if (err instanceof ToolError) throw new Rejection('TOOL_ERROR', err.message);
        throw err;
      }
    },
  };
}

export type ToolCalls = ReturnType<typeof createToolCalls>;
