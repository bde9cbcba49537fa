// The listener answers requests Node handles before Koa (bad header bytes, oversized headers, an Expect it cannot
// meet, CONNECT) in the error envelope.
import { connect } from "node:net";
import type { AddressInfo } from "node:net";
import Koa from "koa";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { listen } from "../../src/http/server.js";
import type { Server } from "node:http";

let server: Server;
let port: number;

function rawExchange(request: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, "127.0.0.1", () => socket.write(request));
    let data = "";
    socket.on("data", (d) => (data += d.toString("latin1")));
    socket.on("end", () => resolve(data));
    socket.on("error", reject);
  });
}

function parse(response: string) {
  const [head, body] = response.split("\r\n\r\n");
  return { status: Number(head!.split(" ")[1]), head: head!, body: JSON.parse(body!) };
}

beforeAll(async () => {
  const app = new Koa();
  app.use((ctx) => (ctx.body = { ok: true }));
  server = await listen(app, 0, "127.0.0.1");
  port = (server.address() as AddressInfo).port;
});

afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

describe("listen", () => {
  it("answers a header with a control byte with 400 in the envelope", async () => {
    const res = parse(await rawExchange("GET / HTTP/1.1\r\nHost: x\r\nX-Bad: a\u0001b\r\n\r\n"));
    expect(res.status).toBe(400);
    expect(res.head).toMatch(/content-type: application\/json/i);
    expect(res.body).toEqual({
      error: { code: "VALIDATION_ERROR", message: "malformed HTTP request", requestId: expect.stringMatching(/^req_/) },
    });
  });

  it("answers an oversized header block with 431 in the envelope", async () => {
    const res = parse(await rawExchange(`GET / HTTP/1.1\r\nHost: x\r\nX-Big: ${"a".repeat(20_000)}\r\n\r\n`));
    expect(res.status).toBe(431);
    expect(res.body.error.code).toBe("VALIDATION_ERROR");
  });

  it("answers an Expect other than 100-continue with 417 in the envelope, with a request id and nosniff", async () => {
    const res = parse(await rawExchange("POST / HTTP/1.1\r\nHost: x\r\nExpect: 200-ok\r\nContent-Length: 2\r\n\r\n{}"));
    expect(res.status).toBe(417);
    expect(res.head).toMatch(/x-content-type-options: nosniff/i);
    const requestId = /x-request-id: (\S+)/i.exec(res.head)?.[1];
    expect(res.body).toEqual({
      error: { code: "VALIDATION_ERROR", message: expect.stringContaining("100-continue"), requestId },
    });
  });

  it("answers CONNECT with 405 in the envelope (empty Allow: nothing tunnels here), not a silent close", async () => {
    const res = parse(await rawExchange("CONNECT example.org:443 HTTP/1.1\r\nHost: example.org:443\r\n\r\n"));
    expect(res.status).toBe(405);
    expect(res.head).toMatch(/\r\nallow: \r\n/i);
    expect(res.head).toMatch(/x-content-type-options: nosniff/i);
    expect(res.body).toEqual({
      error: {
        code: "METHOD_NOT_ALLOWED",
        message: expect.stringContaining("not a proxy"),
        requestId: expect.stringMatching(/^req_/),
      },
    });
  });

  it("serves well-formed requests as before", async () => {
    const res = await rawExchange("GET / HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n");
    expect(res).toMatch(/^HTTP\/1\.1 200/);
  });
});
