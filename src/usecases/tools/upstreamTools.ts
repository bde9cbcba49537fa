// Upstream MCP servers mounted under a prefix of the tool gateway: their tools are listed once at start and
// registered as prefix/tool; each call opens its own streamable-HTTP session (no state held between calls, so an
// upstream restart costs nothing), forwards the arguments and returns the upstream's answer.
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { ErrorCode, McpError } from "@modelcontextprotocol/sdk/types.js";
import { Rejection } from "../../domain/rejection.js";
import { ToolError, type RegisteredTool } from "./toolRegistry.js";

/** How long one upstream call (connect, call, close) may take before the gateway gives up with 503. */
const UPSTREAM_CALL_TIMEOUT_MS = 30_000;

const TOOL_NAME = /^[A-Za-z0-9_.-]+$/;

type UpstreamClient = Client;

async function withUpstream<T>(mount: ToolUpstreamConfig, run: (client: UpstreamClient) => Promise<T>): Promise<T> {
  const transport = new StreamableHTTPClientTransport(new URL(mount.url), {
    requestInit: mount.authHeader ? { headers: { Authorization: mount.authHeader } } : undefined,
  });
  const client = new Client({ name: "litsearch-tool-gateway", version: "1.0.0" });
  try {
    await client.connect(transport, { timeout: UPSTREAM_CALL_TIMEOUT_MS });
    return await run(client);
  } finally {
    await client.close().catch(() => undefined);
  }
}

/**
 * A JSON-RPC error about the call itself (unknown tool, bad arguments) is the tool's answer; anything else means the
 * upstream cannot answer.
 */
function isCallError(err: unknown): err is McpError {
  return (
    err instanceof McpError &&
    (err.code === ErrorCode.InvalidParams ||
      err.code === ErrorCode.MethodNotFound ||
      err.code === ErrorCode.InvalidRequest)
  );
}

function textOf(content: unknown): string {
  if (!Array.isArray(content)) return "";
  return content
    .flatMap((c) =>
      c &&
      typeof c === "object" &&
      (c as { type?: unknown }).type === "text" &&
      typeof (c as { text?: unknown }).text === "string"
        ? [(c as { text: string }).text]
        : [],
    )
    .join("\n");
}

function upstreamTool(
  mount: ToolUpstreamConfig,
  name: string,
  description: string,
  inputSchema: Record<string, unknown>,
): RegisteredTool {
  const path = `${mount.prefix}/${name}`;
  return {
    description,
    inputSchema,
    async handler({ payload }) {
      const args = payload === null || payload === undefined ? {} : payload;
      if (typeof args !== "object" || Array.isArray(args))
        throw new ToolError(`${path}: the arguments must be a JSON object`);
      let result: Awaited<ReturnType<Client["callTool"]>>;
      try {
        result = await withUpstream(mount, (client) =>
          client.callTool({ name, arguments: args as Record<string, unknown> }, undefined, {
            timeout: UPSTREAM_CALL_TIMEOUT_MS,
          }),
        );
      } catch (err) {
        if (isCallError(err)) throw new ToolError(`${path}: ${err.message}`);
        throw new Rejection(
          "SERVICE_UNAVAILABLE",
          `the upstream tool server of ${mount.prefix} is unreachable; nothing was charged, retry with backoff`,
        );
      }
      if (result.isError) throw new ToolError(textOf(result.content) || `${path} failed upstream`);
      return result.structuredContent !== undefined
        ? { content: result.content, structuredContent: result.structuredContent }
        : { content: result.content };
    },
  };
}

interface MountedUpstream {
  prefix: string;
  /** by "prefix/tool" */
  tools: Record<string, RegisteredTool>;
  /** why the tools could not be listed, when they could not (the mount then has none until the next start) */
  error?: string;
}

/**
 * Lists an upstream's tools; an upstream that cannot be listed is mounted with no tools and the reason, so the service
 * still starts.
 */
export async function mountUpstream(mount: ToolUpstreamConfig): Promise<MountedUpstream> {
  try {
    const listed = await withUpstream(mount, async (client) => {
      const tools: Awaited<ReturnType<Client["listTools"]>>["tools"] = [];
      let cursor: string | undefined;
      do {
        const page = await client.listTools(cursor ? { cursor } : undefined, { timeout: UPSTREAM_CALL_TIMEOUT_MS });
        tools.push(...page.tools);
        cursor = page.nextCursor;
      } while (cursor);
      return tools;
    });
    const tools: Record<string, RegisteredTool> = {};
    for (const t of listed) {
      // a name that cannot be a path segment of /api/v1/tools/{prefix}/{tool} is left out
      if (!TOOL_NAME.test(t.name)) continue;
      tools[`${mount.prefix}/${t.name}`] = upstreamTool(
        mount,
        t.name,
        t.description ?? "",
        t.inputSchema as Record<string, unknown>,
      );
    }
    return { prefix: mount.prefix, tools };
  } catch (err) {
    return { prefix: mount.prefix, tools: {}, error: err instanceof Error ? err.message : String(err) };
  }
}

export interface ToolUpstreamConfig {
  /** the tools appear as `prefix--tool` and are called at /api/v1/tools/{prefix}/{tool} */
  prefix: string;
  /** the upstream's streamable-HTTP MCP endpoint */
  url: string;
  /** value of the Authorization header sent upstream (e.g. "Bearer ..."), when the upstream wants one */
  authHeader?: string;
}
