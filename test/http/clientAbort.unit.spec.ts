// A client that sends part of a body and hangs up is a client abort: logged at info with status 499, never an
// "unhandled error" at level 50 with status 500 (a key holder could otherwise inflate the service's 5xx rate).
import { connect, type AddressInfo } from "node:net";
import { Writable } from "node:stream";
import Koa from "koa";
import pino from "pino";
import { describe, expect, it } from "vitest";
import { errorRenderer, requestIdentity } from "../../src/http/middleware.js";
import { jsonBody } from "../../src/http/jsonBody.js";

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe("a client that hangs up mid-body", () => {
  it("is logged as a client abort (info, 499), not as an unhandled 500 error", async () => {
    const lines: { level: number; msg: string; status?: number }[] = [];
    const sink = new Writable({ write: (chunk, _enc, done) => (lines.push(JSON.parse(String(chunk))), done()) });
    const app = new Koa();
    app.use(requestIdentity(pino({ level: "info" }, sink)));
    app.use(errorRenderer());
    app.use(jsonBody(1_000_000));
    app.use((ctx) => void (ctx.body = { ok: true }));
    const server = app.listen(0, "127.0.0.1");
    await new Promise((resolve) => server.once("listening", resolve));
    try {
      const { port } = server.address() as AddressInfo;
      for (const hangUp of ["reset", "close"] as const) {
        const socket = connect(port, "127.0.0.1");
        await new Promise((resolve) => socket.once("connect", resolve));
        socket.write(
          "POST /api/v1/search/query HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: " +
            '1000\r\n\r\n{"query":"hair cort',
        );
        await sleep(100);
        if (hangUp === "reset") socket.resetAndDestroy();
        else socket.destroy();
        await sleep(200);
      }
      for (let i = 0; i < 50 && lines.filter((l) => l.msg === "request").length < 2; i++) await sleep(20);
    } finally {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    }
    expect(lines.filter((l) => l.level >= 50)).toEqual([]);
    const requests = lines.filter((l) => l.msg === "request");
    expect(requests.map((l) => l.status)).toEqual([499, 499]);
    expect(lines.filter((l) => /client closed/.test(l.msg))).toHaveLength(2);
  });
});
