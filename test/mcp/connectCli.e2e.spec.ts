// /mcp as the reference service's command-line client (connect-cli) speaks to it, against the real service: plain
// HTTP POSTs with `Accept: application/json` alone, protocol 2025-03-26, clientInfo connect-cli, JSON-RPC messages
// singly and in batches, then DELETE /mcp. It reads a JSON body and nothing else: never an event stream, never 406.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { httpClient, operatorSteps, startTestService, type TestService } from "../support/testService.js";
import { createToolRegistry } from "../../src/usecases/tools/toolRegistry.js";

const PROTOCOL = "2025-03-26";
const QUERY = "vitamin D and bone fractures";

let svc: TestService;
let key: string;

beforeAll(async () => {
  const tools = createToolRegistry({
    "demo/echo": {
      handler: async (c) => ({ echoed: c.payload }),
      description: "Echoes its arguments.",
      inputSchema: { type: "object", properties: { x: { type: "number" } } },
    },
  });
  svc = await startTestService({ tools });
  const ops = operatorSteps(httpClient(svc.baseUrl), svc.adminToken);
  key = (await ops.newKey((await ops.newOrg({ name: "CLI user" }, "5.00")).id)).key;
}, 600_000);

afterAll(async () => {
  await svc?.close();
});

/** One HTTP request as connect-cli sends it (internal/mcp/transport.go), with the JSON-only Accept it sends. */
async function cli(method: "POST" | "DELETE", body?: unknown, accept = "application/json") {
  const res = await fetch(`${svc.baseUrl}/mcp`, {
    method,
    headers: {
      Accept: accept,
      Authorization: `Bearer ${key}`,
      "User-Agent": "redpine-cli/1.4.0",
      "MCP-Protocol-Version": PROTOCOL,
      ...(body === undefined ? {} : { "Content-Type": "application/json" }),
    },
    body: body === undefined ? undefined : JSON.stringify(body),
    signal: AbortSignal.timeout(120_000),
  });
  const text = await res.text();
  const type = res.headers.get("content-type") ?? "";
  return {
    status: res.status,
    type,
    text,
    json: text && type.startsWith("application/json") ? (JSON.parse(text) as any) : undefined,
  };
}

const request = (id: number, method: string, params: Record<string, unknown> = {}) => ({
  jsonrpc: "2.0",
  id,
  method,
  params,
});
const callTool = (id: number, name: string, args: Record<string, unknown> = {}) =>
  request(id, "tools/call", { name, arguments: args });
const INITIALIZED = { jsonrpc: "2.0", method: "notifications/initialized" };
/** A tools/call result's JSON answer (the first text block). */
const answerOf = (message: any) => {
  expect(message.error).toBeUndefined();
  expect(message.result.isError ?? false).toBe(false);
  return JSON.parse(message.result.content[0].text);
};

describe("the reference CLI on /mcp", () => {
  it("initializes, lists tools, calls list_collections, search and a gateway tool one at a time, in JSON", async () => {
    const init = await cli(
      "POST",
      request(1, "initialize", {
        protocolVersion: PROTOCOL,
        capabilities: {},
        clientInfo: { name: "connect-cli", version: "1.4.0" },
      }),
    );
    expect([init.status, init.type]).toEqual([200, expect.stringMatching(/^application\/json/)]);
    expect(init.json).toMatchObject({
      jsonrpc: "2.0",
      id: 1,
      result: { protocolVersion: PROTOCOL, serverInfo: expect.any(Object), instructions: expect.any(String) },
    });

    const initialized = await cli("POST", INITIALIZED);
    expect([initialized.status, initialized.text]).toEqual([202, ""]);

    const list = await cli("POST", request(2, "tools/list"));
    expect([list.status, list.type]).toEqual([200, expect.stringMatching(/^application\/json/)]);
    expect(list.json.result.tools.map((t: { name: string }) => t.name)).toEqual(
      expect.arrayContaining([
        "get_balance",
        "find-tools",
        "inspect-tool",
        "call-tool",
        "preview",
        "confirm",
        "search-scifact",
      ]),
    );

    // list_collections and search sit behind find-tools and are called by name, as the CLI does
    const collections = answerOf((await cli("POST", callTool(3, "list_collections"))).json);
    expect(JSON.stringify(collections)).toContain("scifact");

    const search = await cli("POST", callTool(4, "search", { collection: "scifact", query: QUERY, limit: 2 }));
    expect([search.status, search.type]).toEqual([200, expect.stringMatching(/^application\/json/)]);
    const found = answerOf(search.json);
    expect(found.results).toHaveLength(2);
    expect(Number(found.cost)).toBeGreaterThan(0);

    // `redpine tools list` is find-tools; `redpine tools call demo--echo x=1` a direct tools/call of the gateway tool
    expect(
      answerOf((await cli("POST", callTool(5, "find-tools"))).json).map((t: { name: string }) => t.name),
    ).toContain("demo--echo");
    expect(answerOf((await cli("POST", callTool(6, "demo--echo", { x: 1 }))).json)).toMatchObject({ echoed: { x: 1 } });

    const end = await cli("DELETE");
    expect(end.status).toBe(200);
  }, 120_000);

  it("answers a batch with an array of responses, one per request, notifications answered by nothing", async () => {
    const batch = await cli("POST", [
      INITIALIZED,
      request(10, "tools/list"),
      callTool(11, "list_collections"),
      callTool(12, "search", { collection: "scifact", query: QUERY, limit: 1 }),
      callTool(13, "demo--echo", { x: 2 }),
    ]);
    expect([batch.status, batch.type]).toEqual([200, expect.stringMatching(/^application\/json/)]);
    expect(Array.isArray(batch.json)).toBe(true);
    const byId = new Map((batch.json as { id: number }[]).map((m) => [m.id, m]));
    expect([...byId.keys()].sort()).toEqual([10, 11, 12, 13]);
    expect((byId.get(10) as any).result.tools.length).toBeGreaterThan(5);
    expect(JSON.stringify(answerOf(byId.get(11)))).toContain("scifact");
    expect(answerOf(byId.get(12)).results).toHaveLength(1);
    expect(answerOf(byId.get(13))).toMatchObject({ echoed: { x: 2 } });

    // a batch of one request is still a batch: its answer is an array
    const single = await cli("POST", [request(20, "tools/list")]);
    expect(single.status).toBe(200);
    expect(Array.isArray(single.json)).toBe(true);
    expect(single.json[0].id).toBe(20);
    // a batch of notifications only: 202, no body
    expect((await cli("POST", [INITIALIZED])).status).toBe(202);
  }, 120_000);

  it("never streams to a JSON-only client; keeps streaming progress to one that accepts event streams", async () => {
    const withProgress = {
      ...callTool(30, "list_collections"),
      params: { name: "list_collections", arguments: {}, _meta: { progressToken: "p1" } },
    };
    const plain = await cli("POST", withProgress);
    expect([plain.status, plain.type]).toEqual([200, expect.stringMatching(/^application\/json/)]);
    expect(JSON.stringify(answerOf(plain.json))).toContain("scifact");

    const streamed = await cli("POST", withProgress, "application/json, text/event-stream");
    expect([streamed.status, streamed.type]).toEqual([200, expect.stringMatching(/^text\/event-stream/)]);
    expect(streamed.text).toMatch(/^event: message\ndata: /m);
  }, 120_000);
});
