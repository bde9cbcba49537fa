// The HTTP listener: serves the Koa app and answers requests Node handles before Koa sees them (malformed requests,
// an Expect it cannot meet, CONNECT) in the error envelope.
import { randomUUID } from "node:crypto";
import { STATUS_CODES, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { Socket } from "node:net";
import type Koa from "koa";

/** Status Node's parser means for a client error: headers too large is 431, anything else malformed is 400. */
function statusOf(err: NodeJS.ErrnoException): number {
  return err.code === "HPE_HEADER_OVERFLOW" ? 431 : 400;
}

/**
 * A request with bad header bytes, an oversized header block or a broken request line never reaches Koa; Node would
 * answer a bare 400. It gets the spec's envelope instead, then the connection closes.
 */
function answerClientError(err: NodeJS.ErrnoException, socket: Socket): void {
  if (!socket.writable || err.code === "ECONNRESET") {
    socket.destroy();
    return;
  }
  const status = statusOf(err);
  endInEnvelope(
    socket,
    status,
    "VALIDATION_ERROR",
    status === 431 ? "request headers are too large" : "malformed HTTP request",
  );
}

/** The envelope written straight to a socket that Koa never gets, then the connection closes. */
function endInEnvelope(
  socket: Socket,
  status: number,
  code: string,
  message: string,
  headers: Record<string, string> = {},
): void {
  const requestId = newRequestId();
  const body = JSON.stringify({ error: { code, message, requestId } });
  const extra = Object.entries(headers)
    .map(([name, value]) => `${name}: ${value}\r\n`)
    .join("");
  socket.end(
    `HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\n` +
      (`Content-Type: application/json; charset=utf-8\r\nContent-Length: ${Buffer.byteLength(body)}` +
        `\r\nX-Content-Type-Options: nosniff\r\n`) +
      `X-Request-Id: ${requestId}\r\n${extra}Connection: close\r\n\r\n${body}`,
  );
}

const newRequestId = () => `req_${randomUUID().replace(/-/g, "")}`;

/** An Expect other than 100-continue: 417 (RFC 9110 15.5.18), in the envelope rather than Node's empty answer. */
function answerExpectation(req: IncomingMessage, res: ServerResponse): void {
  const requestId = newRequestId();
  const body = JSON.stringify({
    error: {
      code: "VALIDATION_ERROR",
      message:
        `Expect: ${String(req.headers.expect).slice(0, 100)} cannot be met; the only expectation served is ` +
        "100-continue (or send none)",
      requestId,
    },
  });
  res.writeHead(417, {
    "Content-Type": "application/json; charset=utf-8",
    "Content-Length": Buffer.byteLength(body),
    "X-Content-Type-Options": "nosniff",
    "X-Request-Id": requestId,
    "Cache-Control": "no-store",
    Connection: "close",
  });
  res.end(body);
}

/**
 * CONNECT (a tunnel through a proxy, which this is not): 405 with an empty Allow (no method tunnels here), then close.
 */
function answerConnect(req: IncomingMessage, socket: Socket): void {
  endInEnvelope(
    socket,
    405,
    "METHOD_NOT_ALLOWED",
    `CONNECT ${String(req.url).slice(0, 100)} is not allowed: this service is not a proxy`,
    { Allow: "" },
  );
}

export async function listen(app: Koa, port: number, host: string): Promise<Server> {
  const server = app.listen(port, host);
  server.on("clientError", answerClientError);
  server.on("checkExpectation", answerExpectation);
  server.on("connect", (req: IncomingMessage, socket: Socket) => answerConnect(req, socket));
  await new Promise<void>((resolve, reject) => {
    server.once("listening", resolve);
    server.once("error", reject);
  });
  return server;
}
