// `npm run worker`: a separate Temporal worker process for scaled deployments (needs TEMPORAL_ADDRESS and
// DATABASE_URL).
import { integrityOfWorks } from "../usecases/works/integrityRows.js";
import { createLiveRetractions } from "../ingest/liveRetractions.js";
import pino from "pino";
import { loadConfig } from "./config.js";
import {
  openAlerts,
  openAssistedActivityDeps,
  openWebhookActivityDeps,
  openCatalogue,
  openEmbedder,
  openIngestionActivityDeps,
  openEventStore,
  openSearchEngine,
} from "./composition.js";
import { createAccounts } from "../usecases/accounts/accounts.js";
import { createTemporalWorker, runTemporalWorker, shutdownTemporalWorker } from "./temporalWorker.js";
import { TASK_QUEUE } from "../../workflows/shared.js";
import { Client } from "@temporalio/client";

async function main(): Promise<void> {
  const config = loadConfig();
  const log = pino({ level: config.logLevel, base: { service: "litsearch-worker" } });
  if (!config.temporalAddress)
    throw new Error("a separate worker needs TEMPORAL_ADDRESS (the API process starts the dev server otherwise)");
  if (!config.databaseUrl)
    log.warn("no DATABASE_URL: this worker opens the embedded PGlite store, which only one process may use at a time");
  const db = await openEventStore(config);
  const accounts = createAccounts(db);
  const clock = () => new Date();
  // assisted search's activities retrieve and judge here: this process opens the search engine and the model too
  const engine = await openSearchEngine(config, log);
  const embedder = await openEmbedder(config);
  const catalog = await openCatalogue(config, db, clock, log);
  // one list in force for the process (the shipped lists are tens of MB), read now rather than by its first run
  const retractions = createLiveRetractions({ db, dataRoot: config.dataRoot, clock, engineKind: engine.kind });
  void retractions.lists().catch((err: unknown) => log.warn({ err }, "retraction lists not read ahead"));
  const assisted = await openAssistedActivityDeps(config, {
    db,
    accounts,
    engine,
    embedder,
    catalog,
    clock,
    log,
    retractions,
  });
  // ingestion batches only on OpenSearch: the embedded engine's index belongs to the API process
  const ingestion = openIngestionActivityDeps(config, { db, engine, embedder, clock, retractions });
  // a delivered webhook proves an assisted answer's delivery to its run: through a client on the worker's connection
  let client: Client | undefined;
  const webhooks = openWebhookActivityDeps(config, { db, clock, client: () => client! });
  const created = await createTemporalWorker({
    address: config.temporalAddress,
    namespace: config.temporalNamespace,
    taskQueue: TASK_QUEUE,
    deps: { db, accounts, clock, afterChargeDelayMs: config.faultAfterChargeDelayMs },
    assisted,
    ingestion,
    webhooks,
    alerts: {
      alerts: openAlerts(config, {
        db,
        accounts,
        clock,
        search: assisted,
        client: () => client!,
        integrity: integrityOfWorks({
          db,
          engineKind: engine.kind,
          retractions,
        }),
      }),
    },
    ingestBatches: config.opensearchUrl !== undefined,
  });
  client = new Client({ connection: created.connection, namespace: config.temporalNamespace });
  const { connection } = created;
  const shutdown = () => {
    shutdownTemporalWorker(created);
  };
  process.on("SIGINT", shutdown);
  process.on("SIGTERM", shutdown);
  log.info({ address: config.temporalAddress, taskQueue: TASK_QUEUE }, "worker running");
  await runTemporalWorker(created);
  await connection.close();
  await ingestion.close();
  await embedder.close();
  await engine.close();
  catalog.close();
  await db.close();
  log.info("worker stopped");
}

main().catch((err) => {
  process.stderr.write(`worker failed: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
  process.exit(1);
});
