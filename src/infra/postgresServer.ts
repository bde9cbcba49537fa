// Starts a PostgreSQL server on 127.0.0.1 from the provisioned Debian binaries: initdb on first use, postgres in the
// foreground as a child, then the database is created.
import { execFile, spawnSync } from "node:child_process";
import { chownSync, existsSync, mkdirSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { promisify } from "node:util";
import pg from "pg";
import type { PostgresComponent } from "./components.js";
import { findFreePort } from "./freePort.js";
import { waitForReady } from "./readiness.js";
import { startSupervisedProcess } from "./supervisedProcess.js";

const execFileAsync = promisify(execFile);

interface PostgresServerOptions {
  /** Holds the cluster (pgdata/) and postgres.log; created if missing. Reusing it keeps the data. */
  dataDir: string;
  /** TCP port on 127.0.0.1; a free one when omitted. */
  port?: number;
  /** Database created if missing (default "litsearch"). */
  database?: string;
  /** The provisioned binaries: readComponent('postgres', cacheDir). */
  component: PostgresComponent;
  startTimeoutMs?: number;
}

export interface PostgresServer {
  /** postgres://postgres@127.0.0.1:<port>/<database> (trust authentication, loopback only). */
  url: string;
  port: number;
  database: string;
  logFile: string;
  /** the server's process id (the speed benchmark reads its CPU time and its backends') */
  pid: number;
  stop(): Promise<void>;
}

const SUPERUSER = "postgres";

export async function startPostgresServer(options: PostgresServerOptions): Promise<PostgresServer> {
  const component = options.component;
  const database = options.database ?? "litsearch";
  mkdirSync(options.dataDir, { recursive: true });
  const clusterDir = join(options.dataDir, "pgdata");
  const logFile = join(options.dataDir, "postgres.log");
  const runAs = accountForServer(component, options.dataDir);

  if (!existsSync(join(clusterDir, "PG_VERSION"))) {
    await initCluster(component, clusterDir, runAs);
  }

  const port = options.port ?? (await findFreePort());
  const child = startSupervisedProcess({
    name: "postgres",
    command: join(component.binDir, "postgres"),
    args: [
      "-D",
      clusterDir,
      "-p",
      String(port),
      "-c",
      "listen_addresses=127.0.0.1",
      // TCP only: no socket file to place or clean up.
      "-c",
      "unix_socket_directories=",
    ],
    logFile,
    stopSignal: "SIGINT", // fast shutdown: roll back open transactions, don't wait for clients
    stopGraceMs: 30_000,
    runAs,
  });

  const adminUrl = `postgres://${SUPERUSER}@127.0.0.1:${port}/postgres`;
  try {
    await waitForReady({
      what: `PostgreSQL on 127.0.0.1:${port}`,
      process: child,
      timeoutMs: options.startTimeoutMs ?? 60_000,
      intervalMs: 150,
      probe: (signal) => selectOne(adminUrl, signal),
    });
    await createDatabaseIfMissing(adminUrl, database);
  } catch (error) {
    await child.stop();
    throw error;
  }

  return {
    url: `postgres://${SUPERUSER}@127.0.0.1:${port}/${database}`,
    port,
    database,
    logFile,
    pid: child.pid,
    stop: () => child.stop(),
  };
}

interface Account {
  uid: number;
  gid: number;
}

// initdb and postgres refuse to run as root; as root we hand the data directory to the provisioned account.
function accountForServer(component: PostgresComponent, dataDir: string): Account | undefined {
  if (process.getuid?.() !== 0) return undefined;
  const account = lookUpAccount(component.runAsUser);
  const owner = statSync(dataDir).uid;
  if (owner !== account.uid) chownSync(dataDir, account.uid, account.gid);
  const probe = spawnSync("/usr/bin/test", ["-w", dataDir, "-a", "-x", dataDir], {
    uid: account.uid,
    gid: account.gid,
  });
  if (probe.status !== 0) {
    throw new Error(
      `PostgreSQL runs as '${component.runAsUser}' when started by root (initdb and postgres refuse root), ` +
        `and that account cannot reach ${dataDir}. ` +
        "Use a data directory whose parent directories it can enter (e.g. chmod 755 on a directory made by mkdtemp).",
    );
  }
  return account;
}

function lookUpAccount(user: string): Account {
  const line = readFileSync("/etc/passwd", "utf8")
    .split("\n")
    .find((entry) => entry.split(":")[0] === user);
  if (!line) {
    throw new Error(
      `PostgreSQL should run as user '${user}' (components manifest postgres.runAsUser), but no such user ` +
        "exists. Run npm run provision.",
    );
  }
  const [, , uid, gid] = line.split(":");
  return { uid: Number(uid), gid: Number(gid) };
}

async function initCluster(
  component: PostgresComponent,
  clusterDir: string,
  runAs: Account | undefined,
): Promise<void> {
  try {
    await execFileAsync(
      join(component.binDir, "initdb"),
      ["-D", clusterDir, "-U", SUPERUSER, "--auth=trust", "--encoding=UTF8", "--no-locale"],
      { uid: runAs?.uid, gid: runAs?.gid, env: { ...process.env, LC_ALL: "C" } },
    );
  } catch (error) {
    const failure = error as { stderr?: string; message: string };
    throw new Error(`initdb of ${clusterDir} failed: ${failure.stderr?.trim() || failure.message}`, { cause: error });
  }
}

async function selectOne(url: string, signal: AbortSignal): Promise<true> {
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 2_000 });
  // Something other than PostgreSQL may hold the port and never answer: drop the attempt when the probe times out.
  const abandon = (): void => void client.end().catch(() => undefined);
  signal.addEventListener("abort", abandon, { once: true });
  await client.connect();
  try {
    await client.query("SELECT 1");
    return true;
  } finally {
    signal.removeEventListener("abort", abandon);
    await client.end();
  }
}

async function createDatabaseIfMissing(adminUrl: string, database: string): Promise<void> {
  const client = new pg.Client({ connectionString: adminUrl });
  await client.connect();
  try {
    const existing = await client.query("SELECT 1 FROM pg_database WHERE datname = $1", [database]);
    if (existing.rowCount === 0) {
      await client.query(`CREATE DATABASE ${client.escapeIdentifier(database)}`);
    }
  } finally {
    await client.end();
  }
}
