// A loopback TCP proxy in front of a real server, so a test can make that server stop answering (close the proxy:
// connections are refused; or stall it: connections are taken and requests never answered, as a paused node does) and
// answer again (reopen it on the same port, or end the stall) without touching the server itself.
import { connect, createServer, type Server, type Socket } from "node:net";
import type { AddressInfo } from "node:net";

export interface TcpProxy {
  url: string;
  stop(): Promise<void>;
  start(): Promise<void>;
  /** from now on nothing a client sends reaches the server: connections open and requests hang unanswered */
  stall(): void;
  /** ends a stall; the connections that sent into it are closed (their requests were lost) */
  resume(): void;
}

export async function startTcpProxy(targetUrl: string): Promise<TcpProxy> {
  const target = new URL(targetUrl);
  const sockets = new Set<Socket>();
  /** client sockets whose bytes a stall swallowed: their HTTP exchange is broken, so they close when it ends */
  const swallowed = new Set<Socket>();
  let stalled = false;
  let port = 0;
  let server: Server | undefined;
  const listen = async (): Promise<void> => {
    server = createServer((client) => {
      const upstream = connect(Number(target.port), target.hostname);
      for (const socket of [client, upstream]) {
        sockets.add(socket);
        socket.on("close", () => {
          sockets.delete(socket);
          swallowed.delete(socket);
        });
        socket.on("error", () => {
          client.destroy();
          upstream.destroy();
        });
      }
      client.on("data", (chunk) => {
        if (stalled) swallowed.add(client);
        else upstream.write(chunk);
      });
      upstream.pipe(client);
    });
    await new Promise<void>((resolve, reject) => {
      server!.once("error", reject);
      server!.listen(port, "127.0.0.1", () => resolve());
    });
    port = (server.address() as AddressInfo).port;
  };
  await listen();
  return {
    url: `${target.protocol}//127.0.0.1:${port}`,
    async stop() {
      const closing = server;
      server = undefined;
      if (!closing) return;
      await new Promise<void>((resolve) => {
        closing.close(() => resolve());
        for (const socket of sockets) socket.destroy();
      });
    },
    async start() {
      if (!server) await listen();
    },
    stall() {
      stalled = true;
    },
    resume() {
      stalled = false;
      for (const socket of swallowed) socket.destroy();
      swallowed.clear();
    },
  };
}
