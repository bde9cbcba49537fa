// MCP clients for end-to-end tests: a client connected with a key, and a tool call that must succeed, its JSON answer.
import { expect } from "vitest";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";

/** A client of the service's /mcp with this key; kept in `clients` so the test closes it. */
export async function mcpClient(baseUrl: string, key: string, clients: Client[]): Promise<Client> {
  const transport = new StreamableHTTPClientTransport(new URL(`${baseUrl}/mcp`), {
    requestInit: { headers: { Authorization: `Bearer ${key}` } },
  });
  const client = new Client({ name: "litsearch-test", version: "0.0.0" });
  await client.connect(transport);
  clients.push(client);
  return client;
}

/** Calls a tool that must succeed and returns its JSON answer. */
export async function tool(client: Client, name: string, args: Record<string, unknown>): Promise<any> {
  const res = await client.callTool({ name, arguments: args });
  const text = (res.content as { text: string }[])[0]!.text;
  expect(res.isError, text).not.toBe(true);
  return JSON.parse(text);
}
