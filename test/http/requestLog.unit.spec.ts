// The request log: one line per request with its path, and never an invite link's token (a secret whose hash alone is
// stored), however the path is spelt.
import type { AddressInfo } from "node:net";
import { Writable } from "node:stream";
import Koa from "koa";
import pino from "pino";
import { describe, expect, it } from "vitest";
import { requestIdentity } from "../../src/http/middleware.js";

async function loggedPaths(paths: string[]): Promise<string[]> {
  const lines: string[] = [];
  const sink = new Writable({ write: (chunk, _enc, done) => (lines.push(String(chunk)), done()) });
  const app = new Koa();
  app.use(requestIdentity(pino({ level: "info" }, sink)));
  app.use((ctx) => void (ctx.body = "ok"));
  const server = app.listen(0, "127.0.0.1");
  await new Promise((resolve) => server.once("listening", resolve));
  try {
    for (const path of paths)
      await (
        await fetch(`http://127.0.0.1:${(server.address() as AddressInfo).port}${path}`, { method: "POST" })
      ).text();
  } finally {
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }
  return lines
    .map((l) => JSON.parse(l) as { msg: string; path: string })
    .filter((l) => l.msg === "request")
    .map((l) => l.path);
}

describe("the request log", () => {
  it("keeps paths, with an invite token replaced", async () => {
    const token = "inv_9f8e7d6c5b4a39281706f5e4d3c2b1a0";
    expect(
      await loggedPaths(["/api/v1/search/query", `/dashboard/invite/${token}`, `/Dashboard/Invite/${token}/x`]),
    ).toEqual(["/api/v1/search/query", "/dashboard/invite/[token]", "/Dashboard/Invite/[token]/x"]);
  });
});
