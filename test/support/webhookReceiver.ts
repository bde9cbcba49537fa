// A real HTTP receiver of webhooks on loopback for tests: records every request (headers and body) and answers with
// the status its path's behaviour says (always 200, fail n times then 200, always 500, or not at all until released).
import { createServer, type IncomingHttpHeaders, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";

export interface ReceivedWebhook {
  path: string;
  headers: IncomingHttpHeaders;
  body: string;
}

export interface WebhookReceiver {
  url(path: string): string;
  received: ReceivedWebhook[];
  /** the requests to one path */
  on(path: string): ReceivedWebhook[];
  /** `path` answers 500 for its first `n` requests, then 200 */
  failFirst(path: string, n: number): void;
  /** `path` answers 500 always */
  down(path: string): void;
  /** `path` holds every request open, answering none, until `release` */
  hang(path: string): void;
  /** `path` answers 200 again, first to the requests it held */
  release(path: string): void;
  /** waits until `path` received `n` requests */
  until(path: string, n: number, timeoutMs?: number): Promise<ReceivedWebhook[]>;
  close(): Promise<void>;
}

export async function startWebhookReceiver(): Promise<WebhookReceiver> {
  const received: ReceivedWebhook[] = [];
  const failures = new Map<string, number>();
  const held = new Map<string, (() => void)[]>();
  const ok = (res: ServerResponse) =>
    res.writeHead(200, { "content-type": "application/json" }).end('{"received":true}');
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      const path = req.url ?? "/";
      received.push({ path, headers: req.headers, body: Buffer.concat(chunks).toString("utf8") });
      const holding = held.get(path);
      if (holding) {
        holding.push(() => ok(res));
        return;
      }
      const left = failures.get(path) ?? 0;
      if (left > 0) {
        failures.set(path, left - 1);
        res.writeHead(500, { "content-type": "text/plain" }).end("receiver is failing on purpose");
        return;
      }
      ok(res);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const port = (server.address() as AddressInfo).port;
  const on = (path: string) => received.filter((r) => r.path === path);
  return {
    url: (path) => `http://127.0.0.1:${port}${path}`,
    received,
    on,
    failFirst: (path, n) => void failures.set(path, n),
    down: (path) => void failures.set(path, Number.MAX_SAFE_INTEGER),
    hang: (path) => void held.set(path, held.get(path) ?? []),
    release(path) {
      const holding = held.get(path) ?? [];
      held.delete(path);
      for (const answer of holding) answer();
    },
    async until(path, n, timeoutMs = 60_000) {
      const deadline = Date.now() + timeoutMs;
      while (on(path).length < n) {
        if (Date.now() > deadline) throw new Error(`${path} received ${on(path).length} of ${n} webhooks`);
        await new Promise((r) => setTimeout(r, 100));
      }
      return on(path);
    },
    close: () =>
      new Promise<void>((resolve) => {
        for (const holding of held.values()) for (const answer of holding) answer();
        server.close(() => resolve());
      }),
  };
}
