// Finds a TCP port on the loopback interface that nothing listens on right now, for child servers that cannot pick
// their own.
import { createServer } from "node:net";

export function findFreePort(host = "127.0.0.1"): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.unref();
    server.once("error", reject);
    server.listen({ host, port: 0, exclusive: true }, () => {
      const address = server.address();
      if (address === null || typeof address === "string") {
        server.close();
        reject(new Error(`could not read the port bound on ${host}`));
        return;
      }
      server.close(() => resolve(address.port));
    });
  });
}
