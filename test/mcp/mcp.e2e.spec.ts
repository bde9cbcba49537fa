// The MCP server at /mcp over HTTP with the official MCP client, against the real service (Temporal, event store,
// embedded engine, embedding model): authentication, instructions, each key's tools/list, every tool, billing exactness
// through confirm and direct searches, validation and errors equal to the REST twins', the per-minute budget shared
// with REST, sandbox keys, and the HTTP details stateless clients rely on (DELETE, GET, Mcp-Session-Id).
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { httpClient, operatorSteps, startTestService, type TestService } from "../support/testService.js";
import { createToolRegistry, ToolError } from "../../src/usecases/tools/toolRegistry.js";

const FIXED_TOOLS = [
  "get_balance",
  "find-tools",
  "inspect-tool",
  "preview",
  "confirm",
  "call-tool",
  "request_journal",
  "assisted_search",
  "get_results",
  "get_work",
  "get_works",
  "work_references",
  "work_cited_by",
  "work_facets",
  "find_authors",
  "get_author",
  "export_results",
  "alerts",
];
const QUERY = "vitamin D and bone fractures";

let svc: TestService;
let call: ReturnType<typeof httpClient>;
let ops: ReturnType<typeof operatorSteps>;
let admin: string;
/** the service clock, moved by hand: per-minute windows do not roll over under a test */
let now = new Date("2026-05-10T20:00:10Z");
const clients: Client[] = [];

beforeAll(async () => {
  const tools = createToolRegistry({
    "demo/echo": {
      handler: async (c) => ({ echoed: c.payload }),
      description: "Echoes its arguments. Free, for trying the gateway.",
      inputSchema: { type: "object", properties: { x: { type: "number" } } },
    },
    "demo/fail": async () => {
      throw new ToolError("the tool could not parse its input");
    },
    "demo/priced": {
      handler: async () => ({ answer: 42 }),
      description: "Answers, for a price.",
      inputSchema: { type: "object" },
      priceMicros: 250_000n,
    },
  });
  svc = await startTestService({ tools, clock: () => now });
  call = httpClient(svc.baseUrl);
  admin = svc.adminToken;
  ops = operatorSteps(call, admin);
}, 600_000);

afterAll(async () => {
  for (const c of clients) await c.close().catch(() => undefined);
  await svc?.close();
});

async function connect(
  key: string,
  options: { sessionId?: string; header?: "bearer" | "x-api-key" } = {},
): Promise<Client> {
  const headers: Record<string, string> =
    options.header === "x-api-key" ? { "X-API-Key": key } : { Authorization: `Bearer ${key}` };
  const transport = new StreamableHTTPClientTransport(new URL(`${svc.baseUrl}/mcp`), {
    requestInit: { headers },
    sessionId: options.sessionId,
  });
  const client = new Client({ name: "connect-cli", version: "0.0.0-test" });
  await client.connect(transport);
  clients.push(client);
  return client;
}

/** A tool call's JSON answer and whether it is a tool error. */
async function tool(
  client: Client,
  name: string,
  args: Record<string, unknown> = {},
): Promise<{ isError: boolean; body: any }> {
  const res = await client.callTool({ name, arguments: args });
  const content = res.content as { type: string; text: string }[];
  expect(content[0]!.type).toBe("text");
  let body: unknown;
  try {
    body = JSON.parse(content[0]!.text);
  } catch {
    body = content[0]!.text;
  }
  return { isError: res.isError === true, body };
}

const newOrg = async (body: Record<string, unknown> = {}, credits = "5.00") =>
  (await ops.newOrg({ name: "MCP lab", ...body }, credits)).id;
const newKey = async (orgId: string, body?: Record<string, unknown>) => (await ops.newKey(orgId, body)).key;
const micros = (decimal: string) => BigInt(decimal.replace(".", ""));

describe("connecting", () => {
  it("refuses no key and a bad key with 401 in the envelope, on POST and DELETE", async () => {
    const init = {
      jsonrpc: "2.0",
      id: 1,
      method: "initialize",
      params: { protocolVersion: "2025-03-26", capabilities: {}, clientInfo: { name: "t", version: "1" } },
    };
    const headers = { Accept: "application/json, text/event-stream" };
    const none = await call("POST", "/mcp", { body: init, headers });
    expect([none.status, none.body.error.code]).toEqual([401, "UNAUTHORIZED"]);
    const bad = await call("POST", "/mcp", { body: init, headers, key: "sk_live_not_a_real_key_0000000000000000" });
    expect([bad.status, bad.body.error.code]).toEqual([401, "INVALID_API_KEY"]);
    const del = await call("DELETE", "/mcp", {});
    expect(del.status).toBe(401);
    expect(bad.headers.get("cache-control")).toBe("no-store");
    await expect(connect("sk_live_not_a_real_key_0000000000000000")).rejects.toThrow(/INVALID_API_KEY/);
    // a key revoked while a client is connected: its next request is refused
    const orgId = await newOrg();
    const { id: keyId, key } = await ops.newKey(orgId);
    // an Accept that takes neither JSON nor a stream: 406, naming either (JSON alone is answered)
    const html = await call("POST", "/mcp", { body: init, headers: { Accept: "text/html" }, key });
    expect([html.status, html.body.error.message]).toEqual([
      406,
      "MCP: Not Acceptable: the Accept header must take application/json (a JSON answer) or text/event-stream " +
        "(a stream), or both",
    ]);
    const connected = await connect(key);
    expect((await call("POST", `/admin/v1/keys/${keyId}/revoke`, { admin })).status).toBe(200);
    await expect(connected.listTools()).rejects.toThrow(/API_KEY_REVOKED/);
    // one spelling: others are no route, never an unauthenticated handler
    for (const spelling of ["/mcp/", "/MCP", "/%6Dcp", "/mcp;x"])
      expect((await call("POST", spelling, { body: init, headers })).status, spelling).toBe(404);
  });

  it("initializes with instructions carrying the balance, and the low-balance notice below 1 credit", async () => {
    const rich = await connect(await newKey(await newOrg({}, "5.00")));
    expect(rich.getServerVersion()?.name).toBe("litsearch");
    expect(rich.getInstructions()).toContain("Balance: 5.000000 credits");
    expect(rich.getInstructions()).not.toContain("Low balance");
    const poor = await connect(await newKey(await newOrg({}, "0.50")), { header: "x-api-key" });
    expect(poor.getInstructions()).toContain("Low balance: 0.500000 credits left");
    const trial = await connect(await newKey(await newOrg({ billingMode: "trial", trialQueries: 7 }, "")));
    expect(trial.getInstructions()).toContain("Trial queries left: 7");
    expect(trial.getInstructions()).not.toContain("Low balance");
    // the dashboard's address as this client reaches the service (PUBLIC_URL when set): the reference's skills give it
    // to the user
    const dashboardUrl = `${svc.baseUrl}/dashboard`;
    expect((await tool(trial, "get_balance")).body).toEqual({
      balance: "0.000000",
      billing_mode: "trial",
      billing_enabled: true,
      trial_queries_left: 7,
      low_balance: false,
      dashboard_url: dashboardUrl,
    });
    expect((await tool(poor, "get_balance")).body).toEqual({
      balance: "0.500000",
      billing_mode: "live",
      billing_enabled: true,
      trial_queries_left: null,
      low_balance: true,
      dashboard_url: dashboardUrl,
    });
    expect(poor.getInstructions()).toContain(`The dashboard (usage, ledger): ${dashboardUrl}.`);
    // every request is authenticated afresh: the same client sees the trial query its search used
    const trialSearch = await tool(trial, "search-scifact", { query: QUERY, limit: 1 });
    expect([trialSearch.isError, trialSearch.body.cost, trialSearch.body.billing_mode]).toEqual([
      false,
      "0.000000",
      "trial",
    ]);
    expect((await tool(trial, "get_balance")).body.trial_queries_left).toBe(6);
    // a hidden balance is not told, not even as low: 0.50 credits left says neither the amount nor "low"
    const hidden = await connect(await newKey(await newOrg({ hideBalance: true }, "0.50")));
    const hiddenBalance = (await tool(hidden, "get_balance")).body;
    expect([hiddenBalance.balance, hiddenBalance.low_balance]).toEqual([null, null]);
    expect(hidden.getInstructions()).toContain("Balance: hidden by the organization");
    expect(hidden.getInstructions()).not.toContain("Low balance");
  });

  it("is stateless: a client sending Mcp-Session-Id works, DELETE /mcp is 200, GET /mcp 405 (envelope)", async () => {
    const key = await newKey(await newOrg());
    const client = await connect(key, { sessionId: "session-from-an-earlier-connection" });
    expect((await client.listTools()).tools.length).toBeGreaterThan(0);
    // the client's DELETE on close: answered without error although there is no session
    const transport = client.transport as StreamableHTTPClientTransport;
    await expect(transport.terminateSession()).resolves.toBeUndefined();
    const del = await call("DELETE", "/mcp", {
      key,
      headers: { "Mcp-Session-Id": "abc", "MCP-Protocol-Version": "2025-03-26" },
    });
    expect(del.status).toBe(200);
    expect(del.headers.get("mcp-session-id")).toBeNull();
    const get = await call("GET", "/mcp", { key, headers: { Accept: "text/event-stream" } });
    expect([get.status, get.body.error.code, get.headers.get("allow")]).toEqual([
      405,
      "METHOD_NOT_ALLOWED",
      "POST, DELETE",
    ]);
    // a raw tools/list with the reference CLI's headers and no initialize: each request stands alone
    const raw = await call("POST", "/mcp", {
      key,
      headers: {
        Accept: "application/json, text/event-stream",
        "Mcp-Session-Id": "whatever",
        "MCP-Protocol-Version": "2025-03-26",
      },
      body: { jsonrpc: "2.0", id: 7, method: "tools/list", params: {} },
    });
    expect(raw.status).toBe(200);
    expect(raw.body.id).toBe(7);
    expect(raw.body.result.tools.map((t: { name: string }) => t.name)).toContain("get_balance");
    expect(raw.headers.get("x-content-type-options")).toBe("nosniff");
    // malformed tools/call params are the client's fault: JSON-RPC -32602 Invalid params, not -32603 Internal error
    for (const params of [{ name: "get_balance", arguments: "not an object" }, { name: 42 }, {}]) {
      const malformed = await call("POST", "/mcp", {
        key,
        headers: { Accept: "application/json, text/event-stream" },
        body: { jsonrpc: "2.0", id: 8, method: "tools/call", params },
      });
      expect([malformed.status, malformed.body.id, malformed.body.error?.code], JSON.stringify(params)).toEqual([
        200, 8, -32602,
      ]);
    }
    // on every method, the SDK's own initialize included, and with params missing altogether: -32602 with a short
    // message naming the field, never -32603 Internal error with a zod dump
    for (const message of [
      { method: "tools/list", params: { cursor: { x: 1 } } },
      { method: "initialize", params: {} },
      { method: "initialize" },
      { method: "tools/call" },
      {
        method: "initialize",
        params: { protocolVersion: 2025, capabilities: {}, clientInfo: { name: "x", version: "1" } },
      },
    ]) {
      const res = await call("POST", "/mcp", {
        key,
        headers: { Accept: "application/json, text/event-stream" },
        body: { jsonrpc: "2.0", id: 9, ...message },
      });
      expect([res.status, res.body.id, res.body.error?.code], JSON.stringify(message)).toEqual([200, 9, -32602]);
      expect(res.body.error.message.length, JSON.stringify(message)).toBeLessThan(300);
      expect(res.body.error.message).not.toMatch(/^\s*\[/);
    }
  });
});

describe("tools/list per key", () => {
  it("lists the fixed tools and one search-<name> per collection the key reaches; a scoped key its own", async () => {
    const orgId = await newOrg();
    const wide = await connect(await newKey(orgId));
    const names = (await wide.listTools()).tools.map((t) => t.name);
    const collections = (
      await call("GET", "/api/v1/search/collections", { key: await newKey(orgId) })
    ).body.collections.map((c: { name: string }) => c.name);
    expect(collections.length).toBeGreaterThan(1);
    expect(names).toEqual([...FIXED_TOOLS, ...collections.map((c: string) => `search-${c}`)]);
    // the reference service's argument names
    const schemaOf = async (name: string) => (await wide.listTools()).tools.find((t) => t.name === name)!.inputSchema;
    expect(Object.keys((await schemaOf("confirm")).properties!).sort()).toEqual([
      "full_metadata",
      "max_cost",
      "queryId",
      "query_id",
      "result_ids",
    ]);
    expect(Object.keys((await schemaOf("preview")).properties!).sort()).toEqual([
      "arguments",
      "full_metadata",
      "tool_name",
    ]);
    expect(Object.keys((await schemaOf("call-tool")).properties!).sort()).toEqual(["arguments", "tool_name"]);
    expect(Object.keys((await schemaOf("inspect-tool")).properties!)).toEqual(["tool_name"]);
    expect(Object.keys((await schemaOf("find-tools")).properties!).sort()).toEqual(["format", "integration", "query"]);
    expect(Object.keys((await schemaOf("request_journal")).properties!).sort()).toEqual(["issn", "note", "title"]);
    expect((await schemaOf("get_balance")).properties).toEqual({});
    // behind find-tools, not listed
    for (const hidden of ["search", "list_collections", "list_journals"]) expect(names).not.toContain(hidden);

    const scopedKey = await newKey(orgId, { mode: "live", collections: ["scifact"] });
    const scoped = await connect(scopedKey);
    const listed = (await scoped.listTools()).tools;
    expect(listed.map((t) => t.name)).toEqual([...FIXED_TOOLS, "search-scifact"]);
    const bound = listed.find((t) => t.name === "search-scifact")!;
    expect(Object.keys(bound.inputSchema.properties ?? {})).toEqual(
      expect.arrayContaining(["query", "limit", "filters"]),
    );
    expect(bound.inputSchema.properties).not.toHaveProperty("collection");
    // the generic search outside the key's scope is the REST refusal
    const outside = await tool(scoped, "search", { collection: "openalex-synergy", query: QUERY });
    expect(outside).toEqual({
      isError: true,
      body: {
        code: "NO_COLLECTION_ACCESS",
        message:
          'this API key cannot reach collection "openalex-synergy". GET /api/v1/search/collections (MCP: ' +
          "list_collections) lists the " +
          "ones it can",
      },
    });
    const rest = await call("POST", "/api/v1/search/query", {
      key: scopedKey,
      body: { collection: "openalex-synergy", query: QUERY },
    });
    expect(rest.body.error.message).toBe(outside.body.message);
  });
});

describe("tools", () => {
  it("find-tools lists the catalogue behind the gateway, inspect-tool gives one tool in full", async () => {
    const client = await connect(await newKey(await newOrg()));
    const all = (await tool(client, "find-tools")).body as {
      name: string;
      description: string;
      inputSchema: any;
      price?: string;
    }[];
    expect(all.map((t) => t.name)).toEqual([
      "search",
      "list_collections",
      "list_journals",
      "assisted_search",
      "get_results",
      "demo--echo",
      "demo--fail",
      "demo--priced",
    ]);
    for (const t of all) expect(t.inputSchema.type).toBe("object");
    // every tool says what it costs: the service's own free or billed in words, the gateway's by price
    for (const t of all)
      expect(t.price !== undefined || /^Free\b|\bBill/.test(t.description), `${t.name}: ${t.description}`).toBe(true);
    expect(all[0]!.inputSchema.properties.limit).toMatchObject({ type: "integer", minimum: 1, maximum: 30 });
    // the first sentence only in the catalogue
    expect(all.find((t) => t.name === "demo--echo")).toEqual({
      name: "demo--echo",
      description: "Echoes its arguments.",
      inputSchema: { type: "object", properties: { x: { type: "number" } } },
      price: "0.000000",
    });
    expect((await tool(client, "find-tools", { query: "journals" })).body.map((t: { name: string }) => t.name)).toEqual(
      expect.arrayContaining(["list_journals"]),
    );
    expect(
      (await tool(client, "find-tools", { integration: "demo" })).body.map((t: { name: string }) => t.name),
    ).toEqual(["demo--echo", "demo--fail", "demo--priced"]);
    expect((await tool(client, "find-tools", { format: "text", query: "echoes" })).body).toBe(
      "demo--echo: Echoes its arguments.",
    );
    const bad = await tool(client, "find-tools", { format: "yaml" });
    expect([bad.isError, bad.body.code]).toEqual([true, "VALIDATION_ERROR"]);

    const echo = await tool(client, "inspect-tool", { tool_name: "demo--echo" });
    expect(echo.body.description).toBe("Echoes its arguments. Free, for trying the gateway.");
    const bound = await tool(client, "inspect-tool", { tool_name: "search-scifact" });
    expect(bound.body.name).toBe("search-scifact");
    expect(bound.body.description).toContain("Billed at once");
    expect(Object.keys(bound.body.inputSchema.properties)).toEqual(
      expect.arrayContaining(["query", "limit", "filters", "include_figures"]),
    );
    expect((await tool(client, "inspect-tool", { tool_name: "search" })).body.inputSchema.properties).toHaveProperty(
      "collections",
    );
    expect(await tool(client, "inspect-tool", { tool_name: "nope" })).toEqual({
      isError: true,
      body: { code: "NOT_FOUND", message: 'no tool "nope" is available to this key; find-tools lists the tools' },
    });
  });

  it("preview is free, confirm charges exactly the rows not yet unlocked and a repeat charges nothing", async () => {
    const orgId = await newOrg({}, "5.00");
    const key = await newKey(orgId);
    const client = await connect(key);
    const start = await ops.balanceOf(orgId);
    // the search tool's own arguments are accepted (content options are checked, then ignored by a preview)
    const preview = await tool(client, "preview", {
      tool_name: "search-scifact",
      arguments: { query: QUERY, limit: 4, include_metadata: true, include_figures: false },
    });
    expect(preview.isError).toBe(false);
    const p = preview.body;
    // the reference's spellings beside ours: query_id, and each row's source_collection (compact rows: that one alone)
    expect(p.query_id).toBe(p.queryId);
    expect(p.workflow).toBe("requires_confirm");
    expect(p.costCharged).toBeNull();
    expect(p.results.length).toBe(4);
    for (const r of p.results) expect([r.locked, r.source_collection]).toEqual([true, "scifact"]);
    expect(await ops.balanceOf(orgId)).toBe(start);
    const rowCosts = p.results.map((r: { cost: string }) => micros(r.cost));
    expect(rowCosts.every((c: bigint) => c > 0n)).toBe(true);

    const first = await tool(client, "confirm", { queryId: p.queryId, result_ids: [p.results[0].id] });
    expect(first.isError).toBe(false);
    expect(first.body.cost_charged).toBe(p.results[0].cost);
    expect(first.body.costCharged).toBe(first.body.cost_charged);
    // a compact row says `locked` only while it is
    expect(first.body.results[0]).toMatchObject({ id: p.results[0].id });
    expect(first.body.results[0].locked).toBeUndefined();
    expect(first.body.results[1].locked).toBe(true);
    expect(first.body.balance_remaining).toBe(await ops.balanceOf(orgId));
    // the rest, spelled query_id as the reference's search responses spell it; the first row is not paid again
    const rest = await tool(client, "confirm", { query_id: p.queryId });
    expect(rest.body.results.every((r: { locked: boolean }) => !r.locked)).toBe(true);
    expect(rest.body.costToUnlockRemaining).toBe("0.000000");
    const again = await tool(client, "confirm", { queryId: p.queryId });
    expect([again.body.cost_charged, again.body.balance_remaining]).toEqual(["0.000000", rest.body.balance_remaining]);
    const end = await ops.balanceOf(orgId);
    expect(micros(first.body.cost_charged) + micros(rest.body.cost_charged) + micros(again.body.cost_charged)).toBe(
      micros(start) - micros(end),
    );
    expect(rest.body.balance_remaining).toBe(end);
    // the unlock ledger lines are what confirm reported
    const ledger = (await call("GET", `/admin/v1/organizations/${orgId}/ledger`, { admin })).body.entries.filter(
      (e: { queryId: string | null }) => e.queryId === p.queryId,
    );
    expect(ledger.map((e: { amount: string }) => micros(e.amount.replace("-", ""))).sort()).toEqual(
      [micros(first.body.cost_charged), micros(rest.body.cost_charged)].sort(),
    );
    // each line names the MCP call that made it (its X-Request-Id)
    const requestIds = ledger.map((e: { requestId: string | null }) => e.requestId);
    expect(requestIds.every((id: string | null) => id !== null && /^req_/.test(id))).toBe(true);
    expect(new Set(requestIds).size).toBe(2);

    // the REST rules: ids outside the preview, unknown arguments, previewing a tool that is not a search
    const foreign = await tool(client, "confirm", { queryId: p.queryId, result_ids: ["not-in-preview"] });
    expect([foreign.isError, foreign.body.code, foreign.body.message]).toEqual([
      true,
      "VALIDATION_ERROR",
      `resultIds not in preview ${p.queryId}: not-in-preview`,
    ]);
    // preview takes the search tool's own arguments (the reference's skills pass them on), the REST preview body does
    // not
    const searchArgs = await tool(client, "preview", {
      tool_name: "search",
      arguments: { collection: "scifact", query: QUERY, limit: 2, include_metadata: true },
    });
    expect([searchArgs.isError, searchArgs.body.results?.length]).toEqual([false, 2]);
    expect(
      (
        await call("POST", "/api/v1/search/preview", {
          key,
          body: { collection: "scifact", query: QUERY, include_metadata: true },
        })
      ).status,
    ).toBe(422);
    // arguments the search refuses are refused as the search refuses them, before anything runs
    const badArg = await tool(client, "preview", {
      tool_name: "search",
      arguments: { collection: "scifact", query: QUERY, limit: 31, include_figures: "yes" },
    });
    const searchBad = await tool(client, "search", {
      collection: "scifact",
      query: QUERY,
      limit: 31,
      include_figures: "yes",
    });
    expect([badArg.body.code, badArg.body.message]).toEqual([searchBad.body.code, searchBad.body.message]);
    expect(badArg.body.code).toBe("VALIDATION_ERROR");
    // and a field neither takes is refused as POST /preview refuses it, nothing run
    const unknownArg = await tool(client, "preview", {
      tool_name: "search-scifact",
      arguments: { query: QUERY, surprise: true },
    });
    const restUnknown = await call("POST", "/api/v1/search/preview", {
      key,
      body: { collection: "scifact", query: QUERY, surprise: true },
    });
    // the same refusal, each listing the fields its own door takes (the bound tool takes no collection)
    const refused = (message: string) => message.split(";")[0];
    expect([unknownArg.body.code, refused(unknownArg.body.message)]).toEqual([
      restUnknown.body.error.code,
      refused(restUnknown.body.error.message),
    ]);
    expect([refused(unknownArg.body.message), unknownArg.body.message.includes("takes collection")]).toEqual([
      "unknown field(s): surprise",
      false,
    ]);
    expect((await tool(client, "preview", { tool_name: "demo--echo", arguments: {} })).body.code).toBe(
      "VALIDATION_ERROR",
    );
    expect((await tool(client, "confirm", {})).body.code).toBe("VALIDATION_ERROR");
    expect(await ops.balanceOf(orgId)).toBe(end);
  });

  it("confirm takes max_cost as POST /unlock takes maxCost", async () => {
    const orgId = await newOrg({}, "5.00");
    const key = await newKey(orgId);
    const client = await connect(key);
    const p = (await tool(client, "preview", { tool_name: "search-scifact", arguments: { query: QUERY, limit: 4 } }))
      .body;
    const start = await ops.balanceOf(orgId);
    // a cap of the first row's own price buys that row alone (a row's cost is its charge, rounded once)
    const capped = await tool(client, "confirm", { queryId: p.queryId, max_cost: p.results[0].cost });
    expect(capped.isError, JSON.stringify(capped.body)).toBe(false);
    expect(capped.body).toMatchObject({
      cost_charged: p.results[0].cost,
      withheldByMaxCost: 3,
      nextRowCost: p.results[1].cost,
    });
    expect(capped.body.results.map((r: { locked?: boolean }) => r.locked === true)).toEqual([false, true, true, true]);
    expect(micros(start) - micros(await ops.balanceOf(orgId))).toBe(micros(p.results[0].cost));
    // the REST twin's refusal for a malformed cap, nothing charged
    const bad = await tool(client, "confirm", { queryId: p.queryId, max_cost: "-1" });
    const rest = await call("POST", "/api/v1/search/unlock", { key, body: { queryId: p.queryId, maxCost: "-1" } });
    expect([bad.isError, bad.body.code]).toEqual([true, rest.body.error.code]);
    expect(bad.body.code).toBe("VALIDATION_ERROR");
    expect(micros(start) - micros(await ops.balanceOf(orgId))).toBe(micros(p.results[0].cost));
  });

  it("search-<name> and search bill like REST, their cost equal to the ledger line; validation is REST's", async () => {
    const orgId = await newOrg({}, "5.00");
    const key = await newKey(orgId);
    const client = await connect(key);
    const before = await ops.balanceOf(orgId);
    const bound = await tool(client, "search-scifact", { query: QUERY, limit: 3 });
    expect(bound.isError).toBe(false);
    expect(bound.body.results.length).toBe(3);
    expect(bound.body.results[0]).toMatchObject({ source_collection: "scifact" });
    expect(bound.body.query_id).toBe(bound.body.queryId);
    expect(micros(bound.body.cost)).toBeGreaterThan(0n);
    expect(bound.body.billing_mode).toBe("live");
    const afterBound = await ops.balanceOf(orgId);
    expect(micros(before) - micros(afterBound)).toBe(micros(bound.body.cost));
    expect(bound.body.balance_remaining).toBe(afterBound);
    const ledger = (await call("GET", `/admin/v1/organizations/${orgId}/ledger`, { admin })).body.entries;
    const line = ledger.find((e: { queryId: string }) => e.queryId === bound.body.queryId);
    expect(micros(line.amount.replace("-", ""))).toBe(micros(bound.body.cost));

    const generic = await tool(client, "search", {
      collections: ["scifact", "openalex-synergy"],
      query: QUERY,
      limit: 2,
    });
    expect(generic.body.results.length).toBe(2);
    expect(micros(afterBound) - micros(await ops.balanceOf(orgId))).toBe(micros(generic.body.cost));
    // the same search over REST costs what the header says, as the tool's cost did
    const restSearch = await call("POST", "/api/v1/search/scifact", { key, body: { query: QUERY, limit: 3 } });
    expect(restSearch.headers.get("x-query-cost")).toBe(bound.body.cost);
    expect(Object.keys(restSearch.body).sort()).toEqual(
      Object.keys(bound.body)
        .filter((k) => !["cost", "tokens_used", "billing_mode", "balance_remaining", "query_id"].includes(k))
        .sort(),
    );

    // validation: the REST messages, nothing charged
    const beforeBad = await ops.balanceOf(orgId);
    const tooMany = await tool(client, "search", { collection: "scifact", query: QUERY, limit: 31 });
    const restTooMany = await call("POST", "/api/v1/search/query", {
      key,
      body: { collection: "scifact", query: QUERY, limit: 31 },
    });
    expect(tooMany).toEqual({
      isError: true,
      body: {
        code: "VALIDATION_ERROR",
        message: restTooMany.body.error.message,
        details: restTooMany.body.error.details,
      },
    });
    expect((await tool(client, "search", { query: QUERY })).body).toMatchObject({
      code: "VALIDATION_ERROR",
      message: "send exactly one of collection or collections",
    });
    expect((await tool(client, "search-scifact", { collection: "scifact", query: QUERY })).body.code).toBe(
      "VALIDATION_ERROR",
    );
    const badFilter = await tool(client, "search-scifact", { query: QUERY, filters: { no_such_field: 1 } });
    const restBadFilter = await call("POST", "/api/v1/search/scifact", {
      key,
      body: { query: QUERY, filters: { no_such_field: 1 } },
    });
    expect([badFilter.body.code, badFilter.body.message]).toEqual(["INVALID_FILTER", restBadFilter.body.error.message]);
    expect((await tool(client, "search-scifact", { query: "!!!" })).body.code).toBe("INVALID_QUERY");
    expect((await tool(client, "search", { collection: "no-such-collection", query: QUERY })).body.code).toBe(
      "COLLECTION_NOT_FOUND",
    );
    expect(await ops.balanceOf(orgId)).toBe(beforeBad);
  });

  it("answers a catalogue question through search free, with the discovery answer", async () => {
    const orgId = await newOrg({}, "5.00");
    const client = await connect(await newKey(orgId));
    const before = await ops.balanceOf(orgId);
    const answer = await tool(client, "search", {
      collection: "openalex-synergy",
      query: "which journals can I search?",
    });
    expect(answer.isError).toBe(false);
    expect(answer.body.results).toEqual([]);
    expect(answer.body.discovery.intent).toBe("journals");
    expect(answer.body.discovery.text.length).toBeGreaterThan(0);
    expect(answer.body.cost).toBe("0.000000");
    const viaPreview = await tool(client, "preview", {
      tool_name: "search-openalex-synergy",
      arguments: { query: "which publishers are available?" },
    });
    expect([viaPreview.body.discovery.intent, viaPreview.body.workflow]).toEqual(["publishers", "complete"]);
    expect(await ops.balanceOf(orgId)).toBe(before);
  });

  it("call-tool runs catalogue and gateway tools; catalogue tools run directly; request_journal records", async () => {
    const orgId = await newOrg();
    const key = await newKey(orgId);
    const client = await connect(key);
    // the answer, with what the REST twin's billing headers say
    const billed = { cost: "0.000000", billing_mode: "live", balance_remaining: "5.000000" };
    expect(await tool(client, "call-tool", { tool_name: "demo--echo", arguments: { x: 1 } })).toEqual({
      isError: false,
      body: { echoed: { x: 1 }, ...billed },
    });
    expect(await tool(client, "demo--echo", { x: 2 })).toEqual({
      isError: false,
      body: { echoed: { x: 2 }, ...billed },
    });
    // a priced tool reports its charge, which is the balance drop
    const priced = await tool(client, "call-tool", { tool_name: "demo--priced", arguments: {} });
    expect(priced).toEqual({
      isError: false,
      body: { answer: 42, cost: "0.250000", billing_mode: "live", balance_remaining: "4.750000" },
    });
    expect(await ops.balanceOf(orgId)).toBe("4.750000");
    expect(await tool(client, "call-tool", { tool_name: "demo--fail", arguments: {} })).toEqual({
      isError: true,
      body: { code: "TOOL_ERROR", message: "the tool could not parse its input" },
    });
    expect((await tool(client, "call-tool", { tool_name: "none--such" })).body.code).toBe("NOT_FOUND");
    expect(await tool(client, "call-tool", { tool_name: "unknown" })).toEqual({
      isError: true,
      body: { code: "NOT_FOUND", message: 'no tool "unknown" is available to this key; find-tools lists the tools' },
    });
    expect(await tool(client, "no_such_tool")).toEqual({
      isError: true,
      body: {
        code: "NOT_FOUND",
        message: 'no tool "no_such_tool" is available to this key; find-tools lists the tools',
      },
    });

    const restList = await call("GET", "/api/v1/search/collections", { key });
    expect((await tool(client, "list_collections")).body).toEqual(restList.body);
    expect((await tool(client, "call-tool", { tool_name: "list_collections" })).body).toEqual(restList.body);

    const journals = await tool(client, "list_journals", { collection: "openalex-synergy", limit: 3 });
    const restJournals = await call("GET", "/api/v1/search/collections/openalex-synergy/journals?limit=3", { key });
    expect(journals.body.intent).toBe("journals");
    expect(journals.body.scopes.map((s: { items: { title: string }[] }) => s.items.map((i) => i.title))).toEqual(
      restJournals.body.scopes.map((s: { items: { title: string }[] }) => s.items.map((i) => i.title)),
    );
    const badLimit = await tool(client, "list_journals", { collection: "openalex-synergy", limit: 0 });
    const restBadLimit = await call("GET", "/api/v1/search/collections/openalex-synergy/journals?limit=0", { key });
    expect([badLimit.body.code, badLimit.body.message]).toEqual(["VALIDATION_ERROR", restBadLimit.body.error.message]);
    expect((await tool(client, "list_journals", { collection: "no-such" })).body.code).toBe("NO_COLLECTION_ACCESS");

    const requested = await tool(client, "request_journal", {
      title: "Journal of MCP Studies",
      issn: "1234-5679",
      note: "for the agents",
    });
    expect(requested.isError).toBe(false);
    const recorded = (await call("GET", "/admin/v1/journal-requests", { admin })).body;
    expect(JSON.stringify(recorded)).toContain("Journal of MCP Studies");
    expect((await tool(client, "request_journal", { note: "neither title nor issn" })).body.code).toBe(
      "VALIDATION_ERROR",
    );
  });
});

describe("limits and sandbox", () => {
  it("shares the per-minute budget with REST", async () => {
    now = new Date("2026-05-10T20:05:10Z");
    const orgId = await newOrg({ limits: { perMinute: 4 } }, "5.00");
    const key = await newKey(orgId);
    const client = await connect(key);
    expect(
      (await call("POST", "/api/v1/search/query", { key, body: { collection: "scifact", query: QUERY, limit: 1 } }))
        .status,
    ).toBe(200);
    expect((await tool(client, "search-scifact", { query: QUERY, limit: 1 })).isError).toBe(false);
    expect((await call("POST", "/api/v1/tools/demo/echo", { key, body: {} })).status).toBe(200);
    expect((await tool(client, "call-tool", { tool_name: "demo--echo", arguments: {} })).isError).toBe(false);
    // the budget is spent: both doors refuse alike
    const refused = await tool(client, "search-scifact", { query: QUERY, limit: 1 });
    expect(refused.isError).toBe(true);
    expect(refused.body).toMatchObject({ code: "QUOTA_EXCEEDED", retryAfterSeconds: 50 });
    const rest = await call("POST", "/api/v1/search/query", {
      key,
      body: { collection: "scifact", query: QUERY, limit: 1 },
    });
    expect([rest.status, rest.body.error.code, rest.headers.get("retry-after")]).toEqual([429, "QUOTA_EXCEEDED", "50"]);
    expect(refused.body.message).toBe(rest.body.error.message);
    // free tools still answer; the next minute refills
    expect((await tool(client, "get_balance")).isError).toBe(false);
    now = new Date("2026-05-10T20:06:10Z");
    expect((await tool(client, "search-scifact", { query: QUERY, limit: 1 })).isError).toBe(false);
  });

  it("shares the preview hour with REST", async () => {
    const orgId = await newOrg({ limits: { previewPerHour: 2 } }, "5.00");
    const key = await newKey(orgId);
    const client = await connect(key);
    expect(
      (await call("POST", "/api/v1/search/preview", { key, body: { collection: "scifact", query: QUERY, limit: 1 } }))
        .status,
    ).toBe(200);
    expect(
      (
        await tool(client, "preview", {
          tool_name: "search",
          arguments: { collection: "scifact", query: QUERY, limit: 1 },
        })
      ).isError,
    ).toBe(false);
    const refused = await tool(client, "preview", {
      tool_name: "search-scifact",
      arguments: { query: QUERY, limit: 1 },
    });
    const rest = await call("POST", "/api/v1/search/preview", {
      key,
      body: { collection: "scifact", query: QUERY, limit: 1 },
    });
    expect([rest.status, rest.body.error.code]).toEqual([429, "PREVIEW_RATE_LIMIT_EXCEEDED"]);
    expect(refused).toEqual({
      isError: true,
      body: {
        code: "PREVIEW_RATE_LIMIT_EXCEEDED",
        message: rest.body.error.message,
        retryAfterSeconds: Number(rest.headers.get("retry-after")),
      },
    });
  });

  it("gives a sandbox key synthetic results, free previews and confirms; refuses gateway tools with why", async () => {
    const orgId = await newOrg({}, "5.00");
    const key = await newKey(orgId, { mode: "test" });
    const client = await connect(key);
    expect(client.getInstructions()).toContain("sandbox key");
    const before = await ops.balanceOf(orgId);
    const found = await tool(client, "search-scifact", { query: QUERY, limit: 2 });
    expect(found.isError).toBe(false);
    expect(found.body.results.length).toBe(2);
    for (const r of found.body.results) {
      expect(r.text.startsWith("[SYNTHETIC]")).toBe(true);
      expect(r.synthetic).toBe(true);
    }
    expect([found.body.cost, found.body.billing_mode]).toEqual(["0.000000", "sandbox"]);
    // the pay-per-row flow, free (test/mcp/agentSurface.e2e.spec.ts follows it through to the ledger)
    const preview = await tool(client, "preview", { tool_name: "search-scifact", arguments: { query: QUERY } });
    expect([preview.isError, preview.body.workflow]).toEqual([false, "requires_confirm"]);
    const confirmed = await tool(client, "confirm", { queryId: preview.body.queryId });
    expect([confirmed.isError, confirmed.body.cost_charged, confirmed.body.billing_mode]).toEqual([
      false,
      "0.000000",
      "sandbox",
    ]);
    // a search's rows are bought already: only previews are confirmed, as with a live key
    expect(await tool(client, "confirm", { queryId: found.body.queryId })).toMatchObject({
      isError: true,
      body: { code: "VALIDATION_ERROR" },
    });
    const refused = await tool(client, "call-tool", { tool_name: "demo--echo", arguments: {} });
    expect(refused).toMatchObject({ isError: true, body: { code: "SANDBOX_UNSUPPORTED_ENDPOINT" } });
    expect(refused.body.message).toMatch(/no sandbox behaviour: /);
    expect(await ops.balanceOf(orgId)).toBe(before);
  });

  it("assisted_search runs the assisted use case, notifies progress while it runs, and bills like REST", async () => {
    const orgId = await newOrg({}, "5.00");
    const client = await connect(await newKey(orgId));
    const before = micros(await ops.balanceOf(orgId));
    const progress: { progress: number; message?: string }[] = [];
    const res = await client.callTool(
      {
        name: "assisted_search",
        arguments: {
          collection: "scifact",
          query: "How does obesity lead to insulin resistance and type 2 diabetes?",
          allowClarification: false,
          limit: 3,
        },
      },
      undefined,
      { onprogress: (p) => progress.push(p), resetTimeoutOnProgress: true },
    );
    const body = JSON.parse((res.content as { text: string }[])[0]!.text);
    expect(res.isError, JSON.stringify(body)).not.toBe(true);
    expect(["results", "no_relevant_results"]).toContain(body.status);
    // several notifications, each a step further, naming the phase; however fast the run, the first is sent as it
    // starts and the last says how it ended, with its counts
    expect(progress.length).toBeGreaterThan(1);
    expect(progress.map((p) => p.progress)).toEqual(progress.map((_, i) => i + 1));
    expect(progress[0]!.message).not.toMatch(/: done/);
    // each names the run's queryId: a client whose stream dropped re-fetches the answer by it
    for (const p of progress) expect(p.message).toMatch(new RegExp(`^query ${body.queryId}: `));
    expect(progress.at(-1)!.message).toMatch(
      /: done: round [1-3], [1-9]\d* searches run, [1-9]\d* candidates judged, \d+ verified$/,
    );
    // the cost the tool reports is the balance drop and the charge event's amount
    const charged = await svc.runtime.db.query<{ amount: string }>(
      `SELECT data->>'amountMicros' AS amount FROM events WHERE type = 'SearchCharged' AND data->>'queryId' = $1`,
      [body.queryId],
    );
    expect(charged).toHaveLength(1);
    expect(before - micros(await ops.balanceOf(orgId))).toBe(BigInt(charged[0]!.amount));
    expect(micros(body.cost)).toBe(BigInt(charged[0]!.amount));
    // validation is the REST one
    const bad = await tool(client, "assisted_search", { collection: "scifact", query: "x", limit: 99 });
    expect([bad.isError, bad.body.code]).toEqual([true, "VALIDATION_ERROR"]);
    // without a progressToken the answer is plain JSON, the same use case
    const plain = await tool(client, "assisted_search", {
      collection: "scifact",
      query: "What is the best recipe for Neapolitan pizza dough?",
      allowClarification: false,
    });
    expect([plain.isError, plain.body.status, plain.body.cost]).toEqual([false, "no_relevant_results", "0.000000"]);
    // get_results re-fetches the paid answer free, with this key only
    const beforeRefetch = await ops.balanceOf(orgId);
    const again = await tool(client, "get_results", { query_id: body.queryId });
    expect([again.isError, again.body.query_id, again.body.cost]).toEqual([false, body.queryId, "0.000000"]);
    expect(again.body.results.map((r: { id: string }) => r.id)).toEqual(body.results.map((r: { id: string }) => r.id));
    expect(
      again.body.results.every(
        (r: { locked: boolean; source_collection: string }) => !r.locked && r.source_collection === "scifact",
      ),
    ).toBe(true);
    expect(await ops.balanceOf(orgId)).toBe(beforeRefetch);
    const stranger = await connect(await newKey(await newOrg()));
    expect(await tool(stranger, "get_results", { queryId: body.queryId })).toMatchObject({
      isError: true,
      body: { code: "NOT_FOUND" },
    });
    expect(await tool(client, "get_results", { queryId: body.queryId, query_id: "other" })).toMatchObject({
      isError: true,
      body: { code: "VALIDATION_ERROR" },
    });
    expect(await tool(client, "get_results", {})).toMatchObject({ isError: true, body: { code: "VALIDATION_ERROR" } });
  });

  it("assisted_search takes idempotency_key as REST the header: a retry gets the first answer, once paid", async () => {
    const orgId = await newOrg({}, "5.00");
    const client = await connect(await newKey(orgId));
    const args = {
      collection: "scifact",
      query: "How does obesity lead to insulin resistance and type 2 diabetes?",
      allowClarification: false,
      limit: 3,
      idempotency_key: "mcp-retry-1",
    };
    const before = micros(await ops.balanceOf(orgId));
    const first = await tool(client, "assisted_search", args);
    expect([first.isError, first.body.status, first.body.idempotency_status]).toEqual([false, "results", "created"]);
    const retry = await tool(client, "assisted_search", args);
    expect([retry.isError, retry.body.queryId, retry.body.idempotency_status, retry.body.cost]).toEqual([
      false,
      first.body.queryId,
      "replayed",
      "0.000000",
    ]);
    expect(before - micros(await ops.balanceOf(orgId))).toBe(micros(first.body.cost));
    // other arguments under the same key are refused; the key's form is the header's
    const other = await tool(client, "assisted_search", { ...args, limit: 2 });
    expect([other.isError, other.body.code]).toEqual([true, "IDEMPOTENCY_KEY_REUSED"]);
    const badKey = await tool(client, "assisted_search", { ...args, idempotency_key: 42 });
    expect([badKey.isError, badKey.body.code]).toEqual([true, "VALIDATION_ERROR"]);
    expect(before - micros(await ops.balanceOf(orgId))).toBe(micros(first.body.cost));
  });
});
