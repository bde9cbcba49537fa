// POST and DELETE /mcp: MCP over Streamable HTTP, stateless. Each request gets a server built for its key and a fresh
// transport, answers, and both are closed; nothing is kept between requests, so any API process can take any request.
// HTTP translation only: the tools (tools.ts) call the use cases.
//
// The SDK's web-standard transport answers with a Response that is copied onto the Koa context, so Koa writes it
// (status, headers, body) and the request log, security headers and error envelope stay Koa's. JSON responses, except
// for a tools/call that carries a progressToken: that one is an SSE stream, so the progress notifications of a long
// tool (assisted_search) reach the client before the result and keep its request timeout from running out. GET /mcp (a
// server-to-client stream) has no route: 405 in the envelope, which MCP clients read as "no stream offered". DELETE
// (session end) is answered 200 by the transport: there is no session, and an Mcp-Session-Id a client sends is ignored.
//
// A client that accepts JSON but not event streams (the reference service's CLI sends `Accept: application/json`) is
// answered in JSON, never with a stream and never 406, progress notifications left out. A JSON-RPC batch is answered
// with an array, also when it holds one request.
import { Readable } from "node:stream";
import type { Context } from "koa";
import * as streamableHttp from "@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js";
import { ApiError } from "../../wire/errors.js";
import { afterResponseFlushed, requestBaseUrl, type RequestState } from "../requestContext.js";
import { createMcpServer } from "../../mcp/server.js";
import type { McpDeps } from "../../mcp/toolKit.js";
import { declareRoute } from "../routeDeclaration.js";

export type McpRouteDeps = McpDeps;

/** What the client's Accept header allows: an event stream, and JSON (application/json, application/*, or any type). */
function acceptance(ctx: Context): { eventStream: boolean; json: boolean } {
  const accept = (ctx.get("accept") ?? "").toLowerCase();
  return {
    eventStream: accept.includes("text/event-stream"),
    json: /application\/json|application\/\*|\*\/\*/.test(accept),
  };
}

/**
 * The request handed to the transport. The SDK's transport asks every POST to accept both JSON and event streams,
 * even in its JSON response mode (typescript-sdk issue #1944, no option yet); a JSON-only client is answered in that
 * mode, so its request reaches the transport with the Accept header the transport requires.
 */
function webRequestOf(ctx: Context, jsonOnly: boolean): Request {
  const headers = new Headers();
  for (const [name, value] of Object.entries(ctx.req.headers)) {
    if (value === undefined) continue;
    for (const v of Array.isArray(value) ? value : [value]) headers.append(name, v);
  }
  if (jsonOnly) headers.set("accept", "application/json, text/event-stream");
  // the body was read and parsed by the jsonBody middleware; the transport takes it as parsedBody
  return new Request(`http://localhost${ctx.url}`, { method: ctx.method, headers });
}

function protocolRefusal(status: number, body: string): ApiError {
  let message = `the MCP transport refused the request (HTTP ${status})`;
  try {
    const text = (JSON.parse(body) as { error?: { message?: unknown } }).error?.message;
    if (typeof text === "string" && text.length > 0) message = `MCP: ${text}`;
  } catch {
    // not JSON: the status says enough
  }
  if (status === 405) return new ApiError(405, "METHOD_NOT_ALLOWED", message, undefined, { Allow: "POST, DELETE" });
  // the SDK asks for both types; this route also answers a client that takes JSON alone
  if (status === 406)
    message =
      "MCP: Not Acceptable: the Accept header must take application/json (a JSON answer) or text/event-stream " +
      "(a stream), or both";
  return new ApiError(
    status >= 500 ? 503 : status,
    status >= 500 ? "SERVICE_UNAVAILABLE" : "VALIDATION_ERROR",
    message,
  );
}

/**
 * A tools/call that asked for progress notifications (a progressToken): answered as an SSE stream that carries them.
 */
function asksForProgress(body: unknown): boolean {
  if (!body || typeof body !== "object" || Array.isArray(body)) return false;
  const message = body as { method?: unknown; params?: { _meta?: { progressToken?: unknown } } };
  return message.method === "tools/call" && message.params?._meta?.progressToken !== undefined;
}

/**
 * The transport answers a batch holding one request with that response alone; JSON-RPC answers a batch with an array.
 */
function asBatchAnswer(body: unknown, text: string): string {
  if (!Array.isArray(body) || text === "" || text.startsWith("[")) return text;
  return `[${text}]`;
}

async function answer(ctx: Context, deps: McpDeps): Promise<void> {
  const state = ctx.state as RequestState;
  if (!state.auth) throw new ApiError(401, "UNAUTHORIZED", "missing API key");
  const server = createMcpServer(deps, state.auth, {
    requestId: state.requestId,
    log: state.log,
    dashboardUrl: `${deps.publicUrl ?? requestBaseUrl(ctx)}/dashboard`,
    afterAnswerSent: (then) => afterResponseFlushed(ctx, then),
  });
  const accepts = acceptance(ctx);
  const jsonOnly = accepts.json && !accepts.eventStream;
  const streaming = accepts.eventStream && asksForProgress(ctx.request.body);
  const transport = new streamableHttp.WebStandardStreamableHTTPServerTransport({
    sessionIdGenerator: undefined,
    enableJsonResponse: !streaming,
  });
  await server.connect(transport);
  let streamed = false;
  try {
    const response = await transport.handleRequest(webRequestOf(ctx, jsonOnly), { parsedBody: ctx.request.body });
    // the transport's own refusals (no Accept for JSON and SSE, not a JSON-RPC message, wrong content type) come as a
    // JSON-RPC error body; like every non-2xx answer of the service they go out in the spec's envelope
    if (response.status >= 400) throw protocolRefusal(response.status, await response.text());
    ctx.status = response.status;
    response.headers.forEach((value, name) => ctx.set(name, value));
    if (streaming && response.body && (response.headers.get("content-type") ?? "").startsWith("text/event-stream")) {
      // the stream carries the progress notifications, then the result; the server closes when it ends
      const stream = Readable.fromWeb(response.body as import("node:stream/web").ReadableStream);
      stream.once("close", () => void server.close());
      streamed = true;
      ctx.body = stream;
      return;
    }
    // an empty answer (202 to a notification, 200 to DELETE) keeps its status: '' is a body, so Koa does not turn it
    // into 204
    ctx.body = asBatchAnswer(ctx.request.body, await response.text());
  } finally {
    if (!streamed) await server.close();
  }
}

export const MCP_ROUTES = [
  declareRoute<McpRouteDeps>({
    method: "post",
    path: "/mcp",
    tag: "mcp",
    access: "apiKey",
    operationId: "mcpMessage",
    summary: "An MCP JSON-RPC message (Streamable HTTP, stateless)",
    description:
      "Model Context Protocol over Streamable HTTP: initialize, tools/list (a key sees one search-<name> tool " +
      "per collection it reaches), tools/call. Each request is answered by a fresh server; no session id is " +
      "issued. Tool results carry the REST answers (searches add `cost`).",
    freeBody: "A JSON-RPC 2.0 message or batch (see the MCP specification).",
    response: {
      content: {
        "application/json": { schema: { type: "object" } },
        "text/event-stream": { schema: { type: "string" } },
      },
      description: "A JSON-RPC response, or a stream of them",
    },
    errors: [401, 422],
    handler: (ctx, deps) => answer(ctx, deps),
  }),
  declareRoute<McpRouteDeps>({
    method: "delete",
    path: "/mcp",
    tag: "mcp",
    access: "apiKey",
    operationId: "mcpEndSession",
    summary: "Ends a session: accepted for clients that send it; the server keeps none",
    response: { content: { "application/json": { schema: { type: "object" } } } },
    errors: [401],
    handler: (ctx, deps) => answer(ctx, deps),
  }),
];
