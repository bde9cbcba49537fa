// `npm start`: starts the whole service on its embedded defaults (or the configured servers) and stops it cleanly.
// `npm run up -- --scaled` (or `npm start -- --scaled`): the scale-out shape on this machine instead
// (src/app/scaledTopology.ts).
import { listen } from "../http/server.js";
import { readFileSync, writeFileSync, rmSync } from "node:fs";
import { join } from "node:path";
import type { Server } from "node:http";
import { loadConfig, type Config } from "./config.js";
import { startRuntime } from "./composition.js";
import { planDemoIngestion, type DemoIngestion } from "./demoIngest.js";
import { startScaledTopology } from "./scaledTopology.js";

async function main(): Promise<void> {
  const config = loadConfig();
  if (process.argv.slice(2).includes("--scaled")) return runScaled(config);
  const runtime = await startRuntime(config, { worker: config.inProcessWorker });
  const { log } = runtime;
  let server: Server | undefined;
  let ingestion: DemoIngestion | undefined;
  let stopping = false;
  const stop = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    log.info({ signal }, "stopping");
    await new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve()));
    await ingestion?.cancel();
    removeServerFile(config.dataDir);
    await runtime.close();
    log.info("stopped");
    process.exit(0);
  };
  process.on("SIGINT", () => void stop("SIGINT"));
  process.on("SIGTERM", () => void stop("SIGTERM"));

  // The collections to build are marked ingesting before the service listens: it answers for the others at once, and
  // 503 for each of these until its index is committed.
  if (config.ingestDemo) ingestion = await planDemoIngestion(runtime);

  server = await listen(runtime.app, config.port, config.host);
  const address = server.address();
  const port = typeof address === "object" && address ? address.port : config.port;
  const url = `http://${config.host}:${port}`;
  writeFileSync(join(config.dataDir, "server.json"), JSON.stringify({ url, pid: process.pid }, null, 2));
  log.info(
    { url, temporal: runtime.temporal.address, engine: runtime.engine.kind, store: runtime.db.kind },
    "listening",
  );
  process.stdout.write(
    banner(
      url,
      config.adminToken,
      config.adminTokenGenerated,
      runtime.catalog.collections[0]?.name ?? "scifact",
      ingestion?.pending ?? [],
    ),
  );
  if (ingestion && ingestion.pending.length > 0) {
    const started = performance.now();
    void ingestion.run().then(
      ({ reports, failures }) => {
        if (stopping) return;
        const seconds = Math.round((performance.now() - started) / 100) / 10;
        if (failures.length === 0)
          log.info({ collections: reports.map((r) => r.collection), seconds }, "every collection is ready");
        else
          log.error(
            { failed: failures.map((f) => f.collection), seconds },
            "demo ingestion finished; some collections could not be ingested (see above)",
          );
      },
      (err: unknown) => log.error({ err }, "demo ingestion stopped unexpectedly"),
    );
  }
}

/** The data directory's server.json, unless another process sharing the directory (the scaled shape) wrote it since. */
function removeServerFile(dataDir: string): void {
  const file = join(dataDir, "server.json");
  try {
    if ((JSON.parse(readFileSync(file, "utf8")) as { pid?: number }).pid !== process.pid) return;
  } catch {
    return;
  }
  rmSync(file, { force: true });
}

/** Starts the scaled topology as children of this process and stops all of it on Ctrl-C. */
async function runScaled(config: Config): Promise<void> {
  const say = (line: string) => process.stdout.write(`[scaled] ${line}\n`);
  // the children are unreferenced (they must not keep a dying parent alive): this timer keeps the launcher running
  setInterval(() => undefined, 1 << 30);
  const topology = await startScaledTopology({ config, inheritedEnv: process.env, say });
  let stopping = false;
  const stop = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    say(`${signal}: stopping the API processes, the workers and the components`);
    await topology.stop();
    process.exit(0);
  };
  process.on("SIGINT", () => void stop("SIGINT"));
  process.on("SIGTERM", () => void stop("SIGTERM"));
  process.stdout.write(`
  The scaled shape is running: ${topology.apis.length} API processes (no worker inside),
  ${topology.workers.length} worker process(es),
  PostgreSQL ${topology.databaseUrl}, Temporal ${topology.temporalAddress}, OpenSearch ${topology.opensearchUrl}.
${topology.apis.map((api) => `    ${api.name}: ${api.url}`).join("\n")}
  Admin token${config.adminTokenGenerated ? " (generated, stored in the data directory)" : ""}: ${topology.adminToken}
  Logs: ${join(config.dataDir, "logs")}. Either API process answers any request; Ctrl-C stops everything.
`);
}

function banner(
  url: string,
  token: string,
  generated: boolean,
  collection: string,
  ingesting: readonly string[],
): string {
  const waiting =
    ingesting.length === 0
      ? ""
      : `
  Still ingesting (first start), in this order: ${ingesting.join(", ")}. Searches on these answer 503 until each is
  ready; the others answer now. GET ${url}/readyz lists which are ready.
`;
  return `
  Literature search is running at ${url}
  Admin token${generated ? " (generated, stored in the data directory)" : ""}: ${token}

  Try it:
    export BASE=${url} ADMIN=${token}
    CT='Content-Type: application/json'
    ORG=$(curl -s -X POST $BASE/admin/v1/organizations -H "Authorization: Bearer $ADMIN" -H "$CT" \\
      -d '{"name":"Demo lab"}' | node -pe 'JSON.parse(require("fs").readFileSync(0)).id')
    curl -s -X POST $BASE/admin/v1/organizations/$ORG/credits -H "Authorization: Bearer $ADMIN" -H "$CT" \\
      -d '{"amount":"25.00"}'
    KEY=$(curl -s -X POST $BASE/admin/v1/organizations/$ORG/keys -H "Authorization: Bearer $ADMIN" -H "$CT" \\
      -d '{"mode":"live"}' | node -pe 'JSON.parse(require("fs").readFileSync(0)).key')
    curl -s -i -X POST $BASE/api/v1/search/query -H "Authorization: Bearer $KEY" -H "$CT" \\
      -d '{"collection":"${collection}","query":"vitamin D supplementation and fracture risk","limit":3}'

  Ctrl-C stops everything.
${waiting}`;
}

main().catch((err) => {
  process.stderr.write(
    `litsearch failed to start: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`,
  );
  process.exit(1);
});
