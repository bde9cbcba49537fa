// Checks the launchers themselves: a restart on the same data directory keeps Temporal workflow history and PostgreSQL
// rows, and stop() leaves nothing listening.
import { chmodSync, mkdtempSync, rmSync } from "node:fs";
import { connect } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Client as TemporalClient, Connection } from "@temporalio/client";
import pg from "pg";
import { afterAll, describe, expect, it } from "vitest";
import { startPostgresServer } from "../../src/infra/postgresServer.js";
import { startTemporalDevServer } from "../../src/infra/temporalDevServer.js";
import { readComponent } from "../../src/infra/components.js";
import { cacheDirFrom } from "../../src/app/config.js";

const root = mkdtempSync(join(tmpdir(), "litsearch-launchers-"));
chmodSync(root, 0o755); // PostgreSQL runs as its own account when the tests run as root
afterAll(() => rmSync(root, { recursive: true, force: true }));

describe("startTemporalDevServer", () => {
  it("keeps workflow history across a restart on the same data directory", async () => {
    const dataDir = join(root, "temporal");
    const workflowId = `restart-check-${Date.now()}`;

    const first = await startTemporalDevServer({
      dataDir,
      component: readComponent("temporal", cacheDirFrom(process.env)),
    });
    try {
      await withTemporalClient(first.address, async (client) => {
        // No worker polls this queue: the execution simply stays open, which is all we need to find it again.
        await client.workflow.start("notImplemented", { taskQueue: "launcher-restart-check", workflowId });
      });
    } finally {
      await first.stop();
    }
    expect(await portAcceptsConnections(first.address)).toBe(false);

    const second = await startTemporalDevServer({
      dataDir,
      component: readComponent("temporal", cacheDirFrom(process.env)),
    });
    try {
      await withTemporalClient(second.address, async (client) => {
        const description = await client.workflow.getHandle(workflowId).describe();
        expect(description.status.name).toBe("RUNNING");
        await client.workflow.getHandle(workflowId).terminate("restart check done");
      });
    } finally {
      await second.stop();
    }
  });
});

describe("startPostgresServer", () => {
  it("keeps rows across a restart and stops listening on stop()", async () => {
    const dataDir = join(root, "postgres");

    const first = await startPostgresServer({
      dataDir,
      database: "restart_check",
      component: readComponent("postgres", cacheDirFrom(process.env)),
    });
    try {
      await withPg(first.url, (client) =>
        client.query("CREATE TABLE kept (v text); INSERT INTO kept VALUES ('still here')"),
      );
    } finally {
      await first.stop();
    }
    expect(await portAcceptsConnections(`127.0.0.1:${first.port}`)).toBe(false);

    const second = await startPostgresServer({
      dataDir,
      database: "restart_check",
      component: readComponent("postgres", cacheDirFrom(process.env)),
    });
    try {
      const result = await withPg(second.url, (client) => client.query<{ v: string }>("SELECT v FROM kept"));
      expect(result.rows).toEqual([{ v: "still here" }]);
    } finally {
      await second.stop();
    }
  });
});

async function withTemporalClient<T>(address: string, use: (client: TemporalClient) => Promise<T>): Promise<T> {
  const connection = await Connection.connect({ address });
  try {
    return await use(new TemporalClient({ connection }));
  } finally {
    await connection.close();
  }
}

async function withPg<T>(url: string, use: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return await use(client);
  } finally {
    await client.end();
  }
}

function portAcceptsConnections(address: string): Promise<boolean> {
  const [host, port] = address.split(":");
  return new Promise((resolve) => {
    const socket = connect({ host, port: Number(port) });
    socket.once("connect", () => {
      socket.destroy();
      resolve(true);
    });
    socket.once("error", () => resolve(false));
  });
}
