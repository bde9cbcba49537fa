// Tool calls behind POST /api/v1/tools/{prefix}/{tool}: the port a tool implements and the registry that finds it.
// No tool ships with the service; a deployment registers its own (for example an MCP bridge) in the composition root.

/** A tool ran and answered with a domain error; the API returns it as 422 TOOL_ERROR with the tool's message. */
export class ToolError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ToolError';
  }
}

export interface ToolCall {
  orgId: string;
  keyId: string;
  payload: unknown;
}

export type ToolHandler = (call: ToolCall) => Promise<unknown>;

export interface ToolRegistry {
  find(prefix: string, tool: string): ToolHandler | undefined;
}

export function createToolRegistry(tools: Record<string, ToolHandler> = {}): ToolRegistry {
  const byName = new Map(Object.entries(tools));
  return { find: (prefix, tool) => byName.get(`${prefix}/${tool}`) };
}
