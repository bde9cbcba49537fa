// Tool calls behind POST /api/v1/tools/{prefix}/{tool}: the port a tool implements and the registry that finds it.
// The shipped tools and the mounted upstream MCP tools are registered in the composition root (tools/shippedTools.ts).

/** A tool ran and answered with a domain error; the API returns it as 422 TOOL_ERROR with the tool's message. */
export class ToolError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "ToolError";
  }
}

interface ToolCall {
  orgId: string;
  keyId: string;
  payload: unknown;
  /**
   * the calling key's collection scope (plain or meta names; null: every collection); absent: none, so a tool reading
   * collections fails closed
   */
  keyScope?: readonly string[] | null;
}

type ToolHandler = (call: ToolCall) => Promise<unknown>;

/**
 * What a client sees of a gateway tool (MCP find-tools, inspect-tool): named `prefix--tool`, called at
 * /api/v1/tools/{prefix}/{tool}.
 */
interface ToolDescription {
  prefix: string;
  tool: string;
  /** `${prefix}--${tool}` */
  name: string;
  description: string;
  /** JSON Schema of the arguments (the request body) */
  inputSchema: Record<string, unknown>;
  /** price per call in micro-credits; 0 for a free tool */
  priceMicros: bigint;
}

export interface RegisteredTool {
  handler: ToolHandler;
  description: string;
  inputSchema: Record<string, unknown>;
  priceMicros?: bigint;
}

export interface ToolRegistry {
  find(prefix: string, tool: string): ToolHandler | undefined;
  /** every tool, for discovery */
  describe(): ToolDescription[];
}

export function createToolRegistry(tools: Record<string, ToolHandler | RegisteredTool> = {}): ToolRegistry {
  const entries = Object.entries(tools).map(([path, t]) => {
    const [prefix, tool] = path.split("/") as [string, string];
    const registered: RegisteredTool =
      typeof t === "function" ? { handler: t, description: "", inputSchema: { type: "object" } } : t;
    return { prefix, tool, registered };
  });
  const byName = new Map(entries.map((e) => [`${e.prefix}/${e.tool}`, e.registered.handler]));
  return {
    find: (prefix, tool) => byName.get(`${prefix}/${tool}`),
    describe: () =>
      entries.map(({ prefix, tool, registered }) => ({
        prefix,
        tool,
        name: `${prefix}--${tool}`,
        description: registered.description,
        inputSchema: registered.inputSchema,
        priceMicros: registered.priceMicros ?? 0n,
      })),
  };
}
