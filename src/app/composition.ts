// The composition root: picks each adapter from configuration and wires the service together.
import { existsSync } from "node:fs";
import { join } from "node:path";
import pino, { type Logger } from "pino";
import { Client, Connection } from "@temporalio/client";
import type { Worker } from "@temporalio/worker";
import type { Config, EmbeddingServerConfig, StoreLocation } from "./config.js";
import { openPglite, openPostgres, type Db } from "../eventstore/db.js";
import { migrate } from "../eventstore/schema.js";
import { PROJECTION_READ_MODELS } from "../../src/app/projectors.js";
import { FEATURE_PROJECTORS } from "./projectors.js";
import { createAccounts, type Accounts } from "../usecases/accounts/accounts.js";
import { createAuthenticate } from "../usecases/auth/authenticate.js";
import { createCatalogueEvents } from "../usecases/catalogue/catalogueEvents.js";
import { createOperations, type Operations } from "../usecases/operator/operations.js";
import { createUploads } from "../usecases/operator/uploads.js";
import type { ToolRegistry } from "../usecases/tools/toolRegistry.js";
import { createToolCalls } from "../usecases/tools/toolCalls.js";
import { createGatewayTools } from "../usecases/tools/shippedTools.js";
import type { FigureImageRenderer } from "../usecases/figures/figureImages.js";
import { createJpegFigureRenderer } from "../usecases/figures/jpegFigureRenderer.js";
import { figureRootOf } from "../ingest/figures/demoFigures.js";
import { definitionOf, type CollectionCatalog } from "../domain/collectionDefinitions.js";
import { loadCollectionCatalog } from "./collectionsFile.js";
import { openLiveCatalog, type LiveCatalog } from "../usecases/collections/catalogueInForce.js";
import { createCollectionAdmin, followCollectionIngestions } from "../usecases/collections/manageCollections.js";
import { canonicalJson } from "../eventstore/eventStore.js";
import { createCollectionReadiness, type CollectionReadiness } from "../domain/readiness.js";
import { createOnnxEmbedder, type OnnxEmbedder } from "../embedding/onnxEmbedder.js";
import { embeddingModelManifestPath, loadModelManifest } from "../embedding/modelManifest.js";
import { createRemoteEmbedder, verifyEmbeddingServer, type RemoteEmbedder } from "../embedding/remoteEmbedder.js";
import { withSearchDeadline } from "../retrieval/searchDeadline.js";
import type { JudgeModel } from "../reasoner/builtin/judge.js";
import type { SearchEngine } from "../retrieval/port.js";
import { vectorsBackfilling } from "../retrieval/vectorsBackfilling.js";
import { createEmbeddedEngine } from "../retrieval/engines/embedded/embeddedEngine.js";
import { createSearchService, type SearchService } from "../usecases/search/searchService.js";
import { createUnlock } from "../usecases/unlock/unlock.js";
import { createTemporalWorker, runTemporalWorker, shutdownTemporalWorker, TASK_QUEUE } from "./temporalWorker.js";
import type { IngestionActivityDeps } from "../../activities/ingestion.js";
import type { Embedder } from "../embedding/port.js";
import { withDemoVectors } from "../ingest/demoVectors.js";
import { createTemporalIngestions, type WorkflowIngestions } from "../usecases/collections/temporalIngestions.js";
import { startTemporalDevServer, type TemporalDevServer } from "../infra/temporalDevServer.js";
import { readComponent } from "../infra/components.js";
import { createApp } from "../http/app.js";
import type Koa from "koa";
import type { AuthorFilterCheck, FilterPlanner, SearchDeps } from "../usecases/search/pipeline.js";
import { loadFilterPlanner, loadJournalTable } from "../filters/planner.js";
import { metricsBasisSentence } from "../journals/metricsBasis.js";
import { createCatalogueService, type CatalogueService } from "../usecases/catalogue/catalogueService.js";
import { journalLookupOf } from "../usecases/catalogue/discovery.js";
import { readInventory } from "../usecases/catalogue/collectionsList.js";
import { journalWeightsForTopic } from "../usecases/search/topicJournals.js";
import { pricePer1000For } from "../domain/pricing.js";
import { takeMinuteBudget } from "../usecases/limits/quotas.js";
import type { Reasoner } from "../reasoner/port.js";
import { createReasoner } from "../reasoner/createReasoner.js";
import { chunkVectorsFromEngine } from "../reasoner/builtin/chunkVectors.js";
import { createAssistedSearch } from "../usecases/assisted/assistedSearch.js";
import type { AssistedActivityDeps } from "../../activities/assisted.js";
import type { JournalRecord } from "../journals/table.js";
import { createMembers, type Members } from "../usecases/members/members.js";
import { createConsoleData } from "../usecases/dashboard/consoleData.js";
import { createPlayground } from "../usecases/playground/playground.js";
import { createLiveRetractions, heldDoisIn, type LiveRetractions } from "../ingest/liveRetractions.js";
import { createWorks, type Works } from "../usecases/works/works.js";
import {
  assistedWithIntegrity,
  integrityOfWorks,
  noticedWorksOf,
  heldIntegrityOf,
  retractedAmong,
  searchWithIntegrity,
  unlockWithIntegrity,
  type IntegrityOf,
} from "../usecases/works/integrityRows.js";
import { createWorkFacets } from "../usecases/works/workFacets.js";
import { createAuthors } from "../usecases/authors/authors.js";
import { authorFilterCheck } from "../usecases/authors/authorFilter.js";
import type { WebhookActivityDeps } from "../../activities/webhooks.js";
import { createWebhooks, type Webhooks } from "../usecases/webhooks/webhooks.js";
import { createDeliveryAttempts, type DeliveryAttemptDeps } from "../usecases/webhooks/deliveryAttempts.js";
import { deliveryProofs } from "../usecases/webhooks/deliveryProofs.js";
import { createAlerts, type Alerts } from "../usecases/alerts/alerts.js";
import { followAccountNotices } from "../usecases/webhooks/accountNotices.js";

export interface Runtime {
  config: Config;
  log: Logger;
  db: Db;
  engine: SearchEngine;
  embedder: OnnxEmbedder;
  /** the catalogue in force: the catalogue stream's collections and meta-collections, followed within a second */
  catalog: LiveCatalog;
  /** which collections answer searches yet (demo ingestion marks the ones it builds) */
  readiness: CollectionReadiness;
  accounts: Accounts;
  operations: Operations;
  members: Members;
  search: SearchService;
  catalogue: CatalogueService;
  /** the tool gateway's tools (MCP find-tools lists them) */
  tools: ToolRegistry;
  /** the retraction list in force (shipped lists plus operator loads) */
  retractions: LiveRetractions;
  /** works by identifier, their references and citing works */
  works: Works;
  /** the organizations' webhook endpoints and the events published to them */
  webhooks: Webhooks;
  /** ingestions of source files into plain collections (the ingestion workflow) */
  ingestions: WorkflowIngestions;
  temporal: { client: Client; address: string; devServer?: TemporalDevServer };
  worker?: { worker: Worker; running: Promise<void> };
  app: Koa;
  close(): Promise<void>;
}

export interface RuntimeOptions {
  /** run the Temporal worker in this process */
  worker: boolean;
  clock?: () => Date;
  log?: Logger;
  /** filter planner; defaults to the filter language over the journals table in the data directory */
  planFilters?: FilterPlanner;
  /**
   * tools served at /api/v1/tools/{prefix}/{tool}; by default the shipped tools and the configured upstream mounts, at
   * the configured prices
   */
  tools?: ToolRegistry;
  /** renders figure images for unlock and re-fetch; without one, figures carry no image_data */
  figureImages?: FigureImageRenderer;
  /** the built-in judge; by default the calibrated one (src/reasoner/builtin/judgeCalibration.json) */
  judgeModel?: JudgeModel;
  /**
   * take ingestion batches in this process (default: with `worker`). The embedded engine's batches must run in the
   * process that owns its index, this one; on OpenSearch a separate `npm run worker` may take them instead.
   */
  ingestBatches?: boolean;
  /**
   * opens the embedder of ingested passages; by default openIngestEmbedder (tests count its texts through a wrapper)
   */
  openPassageEmbedder?: () => Promise<Embedder>;
}

/**
 * Where the event store of `location` is, for messages: the PGlite directory, or the database URL without its password.
 */
export function describeStoreLocation(location: StoreLocation): string {
  if (!location.databaseUrl) return join(location.dataDir, "pglite");
  try {
    const url = new URL(location.databaseUrl);
    if (url.password) url.password = "***";
    return url.toString();
  } catch {
    return "DATABASE_URL (not a URL)";
  }
}

/** Whether the event store at `location` exists (its event log), without creating anything. */
export async function eventStoreExists(location: StoreLocation): Promise<boolean> {
  if (!location.databaseUrl) return existsSync(join(location.dataDir, "pglite", "PG_VERSION"));
  const db = await openPostgres(location.databaseUrl, FEATURE_PROJECTORS, 1);
  try {
    const [row] = await db.query<{ present: boolean }>(`SELECT to_regclass('events') IS NOT NULL AS present`);
    return row?.present === true;
  } finally {
    await db.close();
  }
}

/** An event store in memory (PGlite) with the read models: benchmarks and scripts that ingest into a scratch index. */
export async function openMemoryEventStore(): Promise<Db> {
  const db = await openPglite(undefined, FEATURE_PROJECTORS);
  await migrate(db, PROJECTION_READ_MODELS);
  return db;
}

export async function openEventStore(config: Config): Promise<Db> {
  const db = config.databaseUrl
    ? await openPostgres(config.databaseUrl, FEATURE_PROJECTORS)
    : await openPglite(join(config.dataDir, "pglite"), FEATURE_PROJECTORS);
  await migrate(db, PROJECTION_READ_MODELS);
  return db;
}

/**
 * How often the service's embedded engine looks for an index generation another process committed (or removed): a
 * manifest stat per search was ~7% of a hybrid search's CPU under load; seeing an ingest a second later is fine.
 */
export const INDEX_RELOAD_CHECK_MS = 1000;

export async function openSearchEngine(config: Config, log?: Logger): Promise<SearchEngine> {
  if (config.opensearchUrl) {
    const { createOpenSearchEngine } = await import("../retrieval/engines/opensearch/openSearchEngine.js");
    const engine = createOpenSearchEngine({
      url: config.opensearchUrl.split(","),
      indexLayout: config.opensearchLayout,
      onVectorStorage: (storage, detail) =>
        log?.info({ searchKnn: storage === "knn" ? "lucene-hnsw" : "exact" }, detail),
    });
    // a stalled node's searches answer 503 at the deadline (the embedded engine runs in this process: nothing to
    // wait on)
    return withSearchDeadline(engine, config.searchDeadlineMs);
  }
  return createEmbeddedEngine({ dir: join(config.dataDir, "index"), reloadCheckIntervalMs: INDEX_RELOAD_CHECK_MS });
}

/** The embedder of queries (and of anything small): one session in this thread, a few milliseconds a query. */
export async function openEmbedder(config: Config): Promise<OnnxEmbedder> {
  return createOnnxEmbedder({ manifest: embeddingModelManifestPath(config.cacheDir) });
}

/**
 * The embedder of ingestion: the same model and precision as openEmbedder (so passages and queries share one vector
 * space), on EMBEDDING_WORKERS worker threads started on first use, answering from the data root's shipped vectors
 * what they hold; close it when the ingestion is done.
 */
export async function openIngestEmbedder(config: Config, log?: Logger): Promise<Embedder> {
  const embedder = config.embeddingServer
    ? await openEmbeddingServer(config, config.embeddingServer, log)
    : await createOnnxEmbedder({
        manifest: embeddingModelManifestPath(config.cacheDir),
        workers: config.embeddingWorkers,
      });
  // the demo's passages come precomputed with the data (demo-data/vectors/); only what they miss is embedded
  return withDemoVectors(embedder, config.dataRoot, (reason) => log?.warn(reason));
}

/**
 * The operator's inference servers as the passage embedder, once each proved to embed as the in-process model does:
 * its vectors of the probe texts at cosine 0.999 or more to this process's (the same width, and the model
 * EMBEDDING_MODEL names). The index's embedding path stays the in-process model's, which queries are embedded with; a
 * server that differs is refused (EmbeddingServerMismatchError) before any passage is sent.
 */
export async function openEmbeddingServer(
  config: Config,
  server: EmbeddingServerConfig,
  log?: Logger,
): Promise<RemoteEmbedder> {
  const reference = await createOnnxEmbedder({ manifest: embeddingModelManifestPath(config.cacheDir) });
  try {
    const manifest = await loadModelManifest(embeddingModelManifestPath(config.cacheDir));
    const remote = createRemoteEmbedder({
      urls: server.urls.map((url) => new URL(url)),
      protocol: server.protocol,
      ...(server.model ? { model: server.model } : {}),
      ...(server.apiKey ? { apiKey: server.apiKey } : {}),
      path: { modelName: reference.modelName, dims: reference.dims },
      queryPrefix: manifest.queryPrefix,
      batchSize: server.batchSize,
      concurrency: server.concurrency,
      timeoutMs: server.timeoutMs,
      retryForMs: server.retryForMs,
      onRetry: (reason, waitMs) => log?.warn({ reason, waitMs }, "the embedding server failed a batch; retrying"),
    });
    await verifyEmbeddingServer(remote, reference);
    log?.info({ embeddingServer: remote.servedBy, path: remote.modelName }, "passages are embedded by the server");
    return remote;
  } finally {
    await reference.close();
  }
}

/**
 * What the ingestion activities need; the passage embedder (its worker threads) opens on the first batch that embeds
 * and closes with `close`.
 */
export function openIngestionActivityDeps(
  config: Config,
  parts: {
    db: Db;
    engine: SearchEngine;
    embedder: OnnxEmbedder;
    clock: () => Date;
    openPassageEmbedder?: () => Promise<Embedder>;
    /** the process's list in force, when it holds one (the shipped lists are tens of MB) */
    retractions?: LiveRetractions;
  },
): IngestionActivityDeps & { close(): Promise<void> } {
  let passage: Promise<Embedder> | undefined;
  const retractions =
    parts.retractions ?? createLiveRetractions({ db: parts.db, dataRoot: config.dataRoot, clock: parts.clock });
  return {
    db: parts.db,
    engine: parts.engine,
    // a failed opening (a server down or refused) is not kept: the batch's retry opens it again
    passageEmbedder: () =>
      (passage ??= (parts.openPassageEmbedder ?? (() => openIngestEmbedder(config)))().catch((err: unknown) => {
        passage = undefined;
        throw err;
      })),
    model: { modelName: parts.embedder.modelName, dims: parts.embedder.dims },
    tokenizer: parts.embedder.tokenizer,
    retractedDois: async () => new Set((await retractions.notices()).keys()),
    dataRoot: config.dataRoot,
    dataDir: config.dataDir,
    figureDir: figureRootOf(config.dataDir),
    clock: parts.clock,
    afterCommitDelayMs: config.faultIngestBatchDelayMs,
    close: async () => {
      if (passage) await (await passage.catch(() => null))?.close();
    },
  };
}

/**
 * The reasoner of assisted search: the chat model when one is configured (falling back to the built-in one), else the
 * built-in one.
 */
function openReasoner(
  config: Config,
  deps: {
    engine: SearchEngine;
    embedder: OnnxEmbedder;
    catalog: CollectionCatalog;
    journals: readonly JournalRecord[];
    clock: () => Date;
    log: Logger;
    judgeModel?: JudgeModel;
  },
): Reasoner {
  return createReasoner(
    {
      embedder: deps.embedder,
      journals: deps.journals,
      chunkVectors: chunkVectorsFromEngine(deps),
      clock: deps.clock,
      onFallback: (stage, err) =>
        deps.log.warn({ stage, err: err.message }, "the chat model failed; the built-in reasoner answered"),
    },
    { llm: config.assisted.llm, builtin: { judgeModel: deps.judgeModel } },
  );
}

/** What the assisted-search activities need: retrieval, the filter planner, the reasoner and the event store. */
export async function openAssistedActivityDeps(
  config: Config,
  parts: {
    db: Db;
    accounts: Accounts;
    engine: SearchEngine;
    embedder: OnnxEmbedder;
    catalog: CollectionCatalog;
    clock: () => Date;
    log: Logger;
    journals?: readonly JournalRecord[];
    planFilters?: FilterPlanner;
    judgeModel?: JudgeModel;
    retractions?: LiveRetractions;
  },
): Promise<AssistedActivityDeps> {
  const table = parts.journals ? undefined : await loadJournalTable(config.dataDir, config.dataRoot);
  const journals = parts.journals ?? table!.journals;
  const planFilters = parts.planFilters ?? (await loadFilterPlanner(config.dataDir, config.dataRoot, table));
  const { db, accounts, engine, embedder, catalog, clock } = parts;
  const retractions =
    parts.retractions ?? createLiveRetractions({ db, dataRoot: config.dataRoot, clock, engineKind: engine.kind });
  return {
    db,
    accounts,
    engine,
    embedder,
    catalog,
    clock,
    planFilters,
    retractions,
    reasoner: openReasoner(config, { ...parts, journals }),
    fanOutDelayMs: config.faultFanOutDelayMs,
    afterChargeDelayMs: config.faultAfterChargeDelayMs,
  };
}

/** What a webhook attempt needs: the store, the secrets' master key, the URL rule, when to disable an endpoint. */
function deliveryAttemptDeps(config: Config, parts: { db: Db; clock: () => Date }): DeliveryAttemptDeps {
  const w = config.webhooks;
  return {
    db: parts.db,
    clock: parts.clock,
    secretKey: w.secretKey,
    allowPrivateUrls: w.allowPrivateUrls,
    disableAfterMs: w.disableAfterMs,
    afterSendDelayMs: w.faultAfterSendDelayMs,
  };
}

/**
 * What the webhook delivery activities need; `client` is asked for on the first delivered event (proof of delivery).
 */
export function openWebhookActivityDeps(
  config: Config,
  parts: { db: Db; clock: () => Date; client: () => Client },
): WebhookActivityDeps {
  const w = config.webhooks;
  let webhooks: Webhooks | undefined;
  const publisher = () =>
    (webhooks ??= createWebhooks({ db: parts.db, client: parts.client(), clock: parts.clock, settings: w }));
  return {
    ...deliveryAttemptDeps(config, parts),
    onDelivered: deliveryProofs(parts.client),
    publish: (orgId, type, data, source) =>
      publisher().publish(orgId, type, data, source, { kind: "workflow", id: source }),
  };
}

/**
 * The alerts use case, built on first use (it needs the Temporal client): a run waits for proof of delivery as long
 * as a webhook delivery may retry, and then as long as an assisted answer waits for a re-fetch
 * (ASSISTED_DELIVERY_WAIT_SECONDS).
 */
export function openAlerts(
  config: Config,
  parts: {
    db: Db;
    accounts: Accounts;
    clock: () => Date;
    search: SearchDeps;
    client: () => Client;
    /** each delivered work's integrity, as every row carries it */
    integrity?: IntegrityOf;
    /** the API process's author_id check, made when an alert is created (AlertsDeps.authorFilter) */
    authorFilter?: AuthorFilterCheck;
  },
): () => Alerts {
  let alerts: Alerts | undefined;
  const deliveryWaitMs =
    config.webhooks.retrySeconds.reduce((a, b) => a + b, 0) * 1000 + config.assisted.deliveryWaitMs;
  return () => {
    if (alerts) return alerts;
    const client = parts.client();
    const w = config.webhooks;
    const webhooks = createWebhooks({ db: parts.db, client, clock: parts.clock, settings: w });
    // an ingestion's runs send their first attempts themselves, as the delivery workflow's attempt would; a 2xx is the
    // run's proof of delivery, which the run itself takes (nothing else waits for it)
    const firstAttempts = createDeliveryAttempts(deliveryAttemptDeps(config, parts));
    alerts = createAlerts({
      db: parts.db,
      client,
      clock: parts.clock,
      accounts: parts.accounts,
      search: parts.search,
      deliveryWaitMs,
      publish: webhooks.publish,
      publishNow: (firstTry) => webhooks.publishWithFirstAttempts(firstAttempts, firstTry),
      waiterDelayMs: config.faultAlertWaiterDelayMs,
      integrity: parts.integrity,
      ...(parts.authorFilter ? { authorFilter: parts.authorFilter } : {}),
    });
    return alerts;
  };
}

/** Who recorded the first start's catalogue: the operator's configuration file. */
const CONFIG_FILE_ACTOR = { kind: "operator", id: "collections-config" } as const;

/**
 * The catalogue of the store, seeded from the configuration file on a first start. After that the store is the truth:
 * a file that no longer matches it is reported once, since editing it changes nothing (the operator API does).
 */
export async function openCatalogue(config: Config, db: Db, clock: () => Date, log?: Logger): Promise<LiveCatalog> {
  let seeded = false;
  const catalog = await openLiveCatalog({
    db,
    clock,
    actor: CONFIG_FILE_ACTOR,
    seed: async () => {
      seeded = true;
      return loadCollectionCatalog(config.collectionsConfig);
    },
  });
  if (!seeded && log) {
    const file = await loadCollectionCatalog(config.collectionsConfig).catch(() => null);
    const described = (c: CollectionCatalog) =>
      canonicalJson({ collections: c.collections.map(definitionOf), metaCollections: c.metaCollections });
    if (file && described(file) !== described(catalog)) {
      log.warn(
        { file: config.collectionsConfig, catalogueVersion: catalog.version },
        "the collections file differs from the catalogue in the event store, which is the truth after the " +
          "first start: change collections with the operator API (POST/PATCH/DELETE /admin/v1/collections, PUT " +
          "/admin/v1/meta-collections/{name}) or the CLI (collection ...)",
      );
    }
  }
  return catalog;
}

/** A Temporal dev server on the data directory, for a configuration that names no Temporal address. */
async function startDevServer(
  config: Config,
  log: Logger,
  closers: (() => Promise<void>)[],
): Promise<TemporalDevServer> {
  const devServer = await startTemporalDevServer({
    dataDir: join(config.dataDir, "temporal"),
    namespace: config.temporalNamespace,
    component: readComponent("temporal", config.cacheDir),
  });
  closers.push(() => devServer.stop());
  log.info({ address: devServer.address }, "temporal dev server started");
  return devServer;
}

/** The components the service runs on: Temporal (a dev server where no address is set), the event store, the search
 * engine, the embedding model and the catalogue in force, with each collection's readiness. */
async function openInfrastructure(config: Config, log: Logger, clock: () => Date, closers: (() => Promise<void>)[]) {
  const devServer = config.temporalAddress ? undefined : await startDevServer(config, log, closers);
  const address = devServer?.address ?? config.temporalAddress!;
  const db = await openEventStore(config);
  closers.push(() => db.close());
  const engine = await openSearchEngine(config, log);
  if (engine.vectorSearchMode)
    void engine
      .vectorSearchMode()
      .catch((err) => log.warn({ err }, "could not ask the search engine how it searches vectors"));
  closers.push(() => engine.close());
  const embedder = await openEmbedder(config);
  closers.push(() => embedder.close());
  const catalog = await openCatalogue(config, db, clock, log);
  closers.push(async () => catalog.close());
  const readiness = createCollectionReadiness(catalog.collections.map((c) => c.name));
  // an operator-defined collection answers 503 until one of its ingestions completed (followed below)
  for (const collection of catalog.collections)
    if (!catalog.isSeeded(collection.name)) readiness.set(collection.name, "ingesting");
  return { devServer, address, db, engine, embedder, catalog, readiness };
}

/** The use cases that read and search: accounts, members, retractions and integrity, the catalogue, works, search and
 * the gateway's tools. */
async function openQueryServices(
  config: Config,
  options: RuntimeOptions,
  log: Logger,
  clock: () => Date,
  { db, engine, embedder, catalog, readiness }: Awaited<ReturnType<typeof openInfrastructure>>,
) {
  const accounts = createAccounts(db, clock);
  const catalogueEvents = createCatalogueEvents(db, clock);
  const members = createMembers(db, accounts, {
    clock,
    sessionLifetimeMs: config.dashboard.sessionHours * 3600 * 1000,
    catalog,
  });
  const retractions = createLiveRetractions({
    db,
    dataRoot: config.dataRoot,
    clock,
    heldDois: heldDoisIn({ engine, catalog }),
    engineKind: engine.kind,
  });
  // every row a client is given (and every work an alert delivers) carries metadata.integrity by the one rule
  const integrityOf = integrityOfWorks({ db, engineKind: engine.kind, retractions });
  const journalTable = await loadJournalTable(config.dataDir, config.dataRoot);
  const journals = journalTable.journals;
  const metricsBasis = metricsBasisSentence(journalTable.metricsBasis);
  const planFilters = options.planFilters ?? (await loadFilterPlanner(config.dataDir, config.dataRoot, journalTable));
  const figureImages = options.figureImages ?? createJpegFigureRenderer(figureRootOf(config.dataDir), config.dataRoot);
  const catalogue = createCatalogueService({
    catalog,
    journals: journalLookupOf(journals),
    metricsBasis,
    inventoryOf: (collection) => readInventory(engine, collection),
    topicWeights: (collection, topic) => journalWeightsForTopic({ engine, embedder }, collection, topic),
    priceOf: (auth, collection) => pricePer1000For(auth.org, collection),
    record: (auth, answer) =>
      catalogueEvents.recordCatalogueAnswer({ orgId: auth.org.id, keyId: auth.key.id, ...answer }),
    recordJournalRequest: (auth, request) =>
      catalogueEvents.requestJournal({ orgId: auth.org.id, keyId: auth.key.id, ...request }),
    takeMinuteSlot: (auth) => takeMinuteBudget(db, auth.org, clock()),
  });
  const works = createWorks({
    db,
    catalog,
    engineKind: engine.kind,
    integrity: (evidence) => retractions.integrity(evidence),
    rowIntegrity: integrityOf,
    clock,
  });
  const authorFilter = authorFilterCheck({ db, scopeOf: works.listing.scopeOf });
  // a DOI pinned or looked up that a collection holds retracted is named so, not "not held"
  const heldIntegrity = heldIntegrityOf({ db, engineKind: engine.kind, integrityOf });
  const retractedHeld = retractedAmong(heldIntegrity);
  const search = createSearchService({
    db,
    accounts,
    clock,
    catalog,
    engine,
    embedder,
    planFilters,
    authorFilter,
    figureImages,
    catalogue,
    readiness,
    retractions,
    retractedHeld,
  });
  const tools =
    options.tools ??
    (await createGatewayTools({
      retractions,
      retractedHeld,
      heldIntegrity,
      engine,
      catalog,
      journals,
      metricsBasis,
      prices: config.toolPrices,
      upstreams: config.toolUpstreams,
      log,
    }));

  return {
    accounts,
    members,
    retractions,
    integrityOf,
    journals,
    metricsBasis,
    planFilters,
    authorFilter,
    figureImages,
    catalogue,
    works,
    search,
    tools,
  };
}

/** The Temporal worker (where this process runs one) and the client; the client shares the worker's connection. */
async function connectTemporal(
  config: Config,
  options: RuntimeOptions,
  closers: (() => Promise<void>)[],
  address: string,
  deps: {
    db: Db;
    accounts: ReturnType<typeof createAccounts>;
    engine: SearchEngine;
    embedder: OnnxEmbedder;
    clock: () => Date;
    assisted: Awaited<ReturnType<typeof openAssistedActivityDeps>>;
    webhooks: ReturnType<typeof openWebhookActivityDeps>;
    alerts: ReturnType<typeof openAlerts>;
    retractions: LiveRetractions;
  },
): Promise<{ worker: Runtime["worker"]; client: Client }> {
  const { db, accounts, engine, embedder, clock, alerts } = deps;
  let worker: Runtime["worker"];
  let client: Client;
  if (options.worker) {
    const ingestion = openIngestionActivityDeps(config, {
      db,
      engine,
      embedder,
      clock,
      openPassageEmbedder: options.openPassageEmbedder,
      retractions: deps.retractions,
    });
    const created = await createTemporalWorker({
      address,
      namespace: config.temporalNamespace,
      taskQueue: TASK_QUEUE,
      deps: { db, accounts, clock, afterChargeDelayMs: config.faultAfterChargeDelayMs },
      assisted: deps.assisted,
      ingestion,
      webhooks: deps.webhooks,
      alerts: { alerts },
      ingestBatches: options.ingestBatches,
    });
    const running = runTemporalWorker(created);
    worker = { worker: created.worker, running };
    closers.push(async () => {
      // the SDK's own SIGINT/SIGTERM handling may have begun the shutdown already
      shutdownTemporalWorker(created);
      await running.catch(() => undefined);
      await created.connection.close();
      await ingestion.close();
    });
    // the client shares the worker's connection, so an unlock starts eagerly on this process's worker
    client = new Client({ connection: created.connection, namespace: config.temporalNamespace });
  } else {
    const connection = await Connection.connect({ address });
    closers.push(() => connection.close());
    client = new Client({ connection, namespace: config.temporalNamespace });
  }
  return { worker, client };
}

/** What /health/ready asks each component, and the details it shows. */
function healthChecks(
  db: Db,
  client: Client,
  engine: SearchEngine,
  readiness: ReturnType<typeof createCollectionReadiness>,
  /** whether the collection searches by vectors (dense or hybrid) */
  withVectors: (collection: string) => boolean,
) {
  return {
    readiness: {
      eventStore: async () => (await db.query("SELECT 1 AS ok")).length === 1,
      temporal: async () => {
        await client.workflowService.getSystemInfo({});
        return true;
      },
      search: () => engine.ping(),
    },
    readinessDetails: async () => {
      // a first ingestion that completed since this process last looked is confirmed before the lists are told
      await readiness.settle(readiness.summary().ingesting);
      const backfilling = await vectorsBackfilling(
        engine,
        readiness.summary().ready.filter((name) => withVectors(name)),
      );
      return {
        searchKnn: engine.vectorSearchMode ? await engine.vectorSearchMode() : "exact",
        collections: readiness.summary(),
        // only while a backfill runs: a fully vectored service answers as it always has
        ...(backfilling.length > 0 ? { vectorsBackfilling: backfilling } : {}),
      };
    },
  };
}

/** The operator's side: ingestions (started and followed), collection administration and the operations. */
async function openOperations(
  config: Config,
  log: Logger,
  clock: () => Date,
  closers: (() => Promise<void>)[],
  parts: {
    db: Db;
    client: Client;
    engine: SearchEngine;
    catalog: Awaited<ReturnType<typeof openCatalogue>>;
    readiness: ReturnType<typeof createCollectionReadiness>;
    accounts: ReturnType<typeof createAccounts>;
    members: ReturnType<typeof createMembers>;
    retractions: ReturnType<typeof createLiveRetractions>;
    webhooks: ReturnType<typeof createWebhooks>;
    alerts: ReturnType<typeof openAlerts>;
  },
) {
  const { db, client, engine, catalog, readiness, accounts, members, retractions, webhooks, alerts } = parts;
  const ingestions = createTemporalIngestions({
    db,
    client,
    catalog,
    dataRoot: config.dataRoot,
    clock,
    taskQueue: TASK_QUEUE,
    batchSize: config.ingestBatchSize,
    parallelism: config.ingestParallelism,
  });
  const collectionAdmin = createCollectionAdmin({
    catalog,
    engine,
    db,
    readiness,
    ingestions,
    dataRoot: config.dataRoot,
    onIndexDeleteFailure: (collection, err) =>
      log.warn({ collection, err }, "a retired collection's index could not be deleted"),
    pauseAlertsOf: (collection, actor) => alerts().pauseForRetiredCollection(collection, actor),
    onAlertPauseFailure: (collection, err) =>
      log.warn(
        { collection, err },
        "the alerts of a retired collection could not all be paused (each pauses at its next run)",
      ),
  });
  const following = followCollectionIngestions({
    catalog,
    readiness,
    ingestions,
    onError: (err) => log.warn({ err }, "could not read the state of an ingestion"),
  });
  closers.push(async () => following.stop());
  await following.check();
  const operations = createOperations(accounts, {
    catalog,
    clock,
    members,
    retractions,
    collections: collectionAdmin,
    ingestions,
    uploads: createUploads({ dataRoot: config.dataRoot, maxBytes: config.uploadMaxBytes }),
    webhooks,
    alerts: alerts(),
  });
  return { ingestions, operations };
}

/** What the workflows need (assisted search, webhooks, alerts) and Temporal, where they run. */
async function startWorkflows(
  config: Config,
  options: RuntimeOptions,
  log: Logger,
  clock: () => Date,
  closers: (() => Promise<void>)[],
  infra: Awaited<ReturnType<typeof openInfrastructure>>,
  queries: Awaited<ReturnType<typeof openQueryServices>>,
) {
  const { address, db, engine, embedder, catalog } = infra;
  const { accounts, retractions, integrityOf, journals, planFilters, authorFilter } = queries;
  const assistedDeps = await openAssistedActivityDeps(config, {
    db,
    accounts,
    engine,
    embedder,
    catalog,
    clock,
    log,
    journals,
    planFilters,
    judgeModel: options.judgeModel,
    retractions,
  });

  let client: Client;
  const webhookDeps = openWebhookActivityDeps(config, { db, clock, client: () => client });
  const alerts = openAlerts(config, {
    db,
    accounts,
    clock,
    search: assistedDeps,
    client: () => client,
    integrity: integrityOf,
    authorFilter,
  });
  const temporal = await connectTemporal(config, options, closers, address, {
    db,
    accounts,
    engine,
    embedder,
    clock,
    assisted: assistedDeps,
    webhooks: webhookDeps,
    alerts,
    retractions,
  });
  const worker = temporal.worker;
  client = temporal.client;
  return { alerts, client, worker };
}

export async function startRuntime(config: Config, options: RuntimeOptions): Promise<Runtime> {
  const log = options.log ?? pino({ level: config.logLevel, base: { service: "litsearch" } });
  const clock = options.clock ?? (() => new Date());
  const closers: (() => Promise<void>)[] = [];
  const close = async () => {
    for (const c of closers.reverse()) await c().catch((err) => log.warn({ err }, "shutdown step failed"));
  };
  try {
    const infra = await openInfrastructure(config, log, clock, closers);
    const { devServer, address, db, engine, embedder, catalog, readiness } = infra;
    const queries = await openQueryServices(config, options, log, clock, infra);
    const { accounts, members, retractions, integrityOf, planFilters, authorFilter, figureImages } = queries;
    const { catalogue, works, search, tools } = queries;

    const { alerts, client, worker } = await startWorkflows(config, options, log, clock, closers, infra, queries);
    const assisted = createAssistedSearch({
      client,
      db,
      accounts,
      clock,
      catalog,
      search,
      waitMs: config.assisted.waitMs,
      deliveryWaitMs: config.assisted.deliveryWaitMs,
      eagerStart: options.worker,
    });
    const webhooks = createWebhooks({ db, client, clock, settings: config.webhooks });
    const notices = followAccountNotices({
      db,
      publish: (orgId, type, data, source) =>
        webhooks.publish(orgId, type, data, source, { kind: "workflow", id: "account-notices" }),
      onError: (err) => log.warn({ err }, "could not check the account notices"),
    });
    closers.push(() => notices.stop());
    const unlock = createUnlock({
      client,
      db,
      accounts,
      engine,
      clock,
      taskQueue: TASK_QUEUE,
      eagerStart: options.worker,
      figureImages,
    });
    const { ingestions, operations } = await openOperations(config, log, clock, closers, {
      db,
      client,
      engine,
      catalog,
      readiness,
      accounts,
      members,
      retractions,
      webhooks,
      alerts,
    });
    // every row a client is given carries metadata.integrity from the update lists in force at that moment
    const searchForClients = searchWithIntegrity(search, integrityOf);
    const clientUnlock = unlockWithIntegrity(unlock, integrityOf);
    const consoleData = createConsoleData(db, accounts, operations, clock);
    const app = createApp({
      log,
      authenticate: createAuthenticate(db),
      operations,
      search: searchForClients,
      works,
      authors: createAuthors({ db, works }),
      workFacets: createWorkFacets({
        search: { catalog, engine, embedder, planFilters, readiness, retractions, authorFilter },
        db,
        integrity: integrityOf,
        noticed: noticedWorksOf({ db, engineKind: engine.kind, retractions }),
        clock,
      }),
      catalogue,
      unlock: clientUnlock,
      assisted: assistedWithIntegrity(assisted, integrityOf),
      catalog,
      collectionReadiness: readiness,
      engine,
      clock,
      figureImages,
      tools,
      toolCalls: createToolCalls({ db, clock, accounts, tools }),
      webhooks,
      alerts: alerts(),
      adminToken: config.adminToken,
      trustProxyHops: config.trustProxyHops,
      corsOrigins: config.corsOrigins,
      operatorLimits: config.operatorLimits,
      members,
      consoleData,
      playground: createPlayground({
        accounts,
        consoleData,
        works,
        search: searchForClients,
        unlock: clientUnlock,
        delivery: { assisted, alerts: alerts() },
      }),
      dashboard: config.dashboard,
      tls: config.tls,
      publicUrl: config.publicUrl,
      ...healthChecks(db, client, engine, readiness, (name) => {
        const entry = catalog.resolveCollection(name);
        return entry?.type === "plain" && entry.retrieval !== "sparse";
      }),
    });
    return {
      config,
      log,
      db,
      engine,
      embedder,
      catalog,
      readiness,
      accounts,
      operations,
      members,
      search,
      works,
      catalogue,
      tools,
      retractions,
      ingestions,
      webhooks,
      temporal: { client, address, devServer },
      worker,
      app,
      close,
    };
  } catch (err) {
    await close();
    throw err;
  }
}
