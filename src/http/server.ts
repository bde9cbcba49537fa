// The HTTP listener: serves the Koa app and answers requests Node rejects before Koa sees them in the error envelope.
import { randomUUID } from 'node:crypto';
import type { Server } from 'node:http';
import type { Socket } from 'node:net';
import type Koa from 'koa';

/** Status Node's parser means for a client error: headers too large is 431, anything else malformed is 400. */
function statusOf(err: NodeJS.ErrnoException): number {
  return err.code === 'HPE_HEADER_OVERFLOW' ? 431 : 400;
}

/**
 * A request with bad header bytes, an oversized header block or a broken request line never reaches Koa; Node would
 * answer a bare 400. It gets the spec's envelope instead, then the connection closes.
 */
function answerClientError(err: NodeJS.ErrnoException, socket: Socket): void {
  if (!socket.writable || err.code === 'ECONNRESET') {
    socket.destroy();
    return;
  }
  const status = statusOf(err);
  const requestId = `req_${randomUUID().replace(/-/g, '')}`;
  const body = JSON.stringify({ error: { code: 'VALIDATION_ERROR', message: status === 431 ? 'request headers are too large' : 'malformed HTTP request', requestId } });
  socket.end(
    `HTTP/1.1 ${status} ${status === 431 ? 'Request Header Fields Too Large' : 'Bad Request'}\r\n` +
      `Content-Type: application/json; charset=utf-8\r\nContent-Length: ${Buffer.byteLength(body)}\r\nX-Content-Type-Options: nosniff\r\n` +
      `X-Request-Id: ${requestId}\r\nConnection: close\r\n\r\n${body}`,
  );
}

export async function listen(app: Koa, port: number, host: string): Promise<Server> {
  const server = app.listen(port, host);
  server.on('clientError', answerClientError);
  await new Promise<void>((resolve, reject) => {
    server.once('listening', resolve);
    server.once('error', reject);
  });
  return server;
}
