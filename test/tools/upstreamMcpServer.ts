// A real MCP server for the gateway's upstream tests: McpServer with two tools on a stateless streamable-HTTP
// transport in a plain node http server on 127.0.0.1, refusing requests without the expected Authorization header.
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { z } from "zod";
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { StreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/streamableHttp.js";

export interface UpstreamMcpServer {
  url: string;
  /** tool calls the server answered, with their arguments */
  calls: { tool: string; args: unknown }[];
  close(): Promise<void>;
}

function mcpServer(calls: UpstreamMcpServer["calls"]): McpServer {
  const server = new McpServer({ name: "test-upstream", version: "1.0.0" });
  server.registerTool(
    "shout",
    { description: "Upper-cases a text", inputSchema: { text: z.string() } },
    async ({ text }) => {
      calls.push({ tool: "shout", args: { text } });
      return {
        content: [{ type: "text", text: text.toUpperCase() }],
        structuredContent: { shouted: text.toUpperCase() },
      };
    },
  );
  server.registerTool(
    "refuse",
    { description: "Always answers with a domain error", inputSchema: { why: z.string() } },
    async ({ why }) => {
      calls.push({ tool: "refuse", args: { why } });
      return { isError: true, content: [{ type: "text", text: `refused: ${why}` }] };
    },
  );
  return server;
}

export async function startUpstreamMcpServer(authorization: string, port = 0): Promise<UpstreamMcpServer> {
  const calls: UpstreamMcpServer["calls"] = [];
  const http: Server = createServer(async (req, res) => {
    if (req.headers.authorization !== authorization) {
      res.writeHead(401, { "Content-Type": "application/json" }).end(JSON.stringify({ error: "unauthorized" }));
      return;
    }
    // stateless: a server and a transport per request
    const server = mcpServer(calls);
    const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
    res.on("close", () => {
      void transport.close();
      void server.close();
    });
    await server.connect(transport);
    await transport.handleRequest(req, res);
  });
  await new Promise<void>((resolve) => http.listen(port, "127.0.0.1", resolve));
  const address = http.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${address.port}/mcp`,
    calls,
    close: () =>
      new Promise<void>((resolve) => {
        http.closeAllConnections();
        http.close(() => resolve());
      }),
  };
}
