// Operator use case: define, change and retire collections and meta-collections while the service runs (the operator
// API, its CLI twins and the operator dashboard). Each change is a catalogue event; a new collection's first ingestion
// starts at once, and its searches answer 503 until that ingestion completes.
import { setTimeout as sleep } from "node:timers/promises";
import { checkOperatorFile, OperatorFileError } from "../../ingest/operatorFiles.js";
import type { Actor, CollectionDefinition, MetaCollectionDefinition } from "../../domain/events.js";
import { Rejection } from "../../domain/rejection.js";
import type { Ingestions, IngestionStatus } from "../../ingest/ingestions.js";
import type { SearchEngine, VectorCoverage } from "../../retrieval/port.js";
import { reportedShare } from "../../retrieval/vectorsBackfilling.js";
import type { Db } from "../../eventstore/db.js";
import { clearManifest, manifestKey } from "../../ingest/manifest.js";
import { clearWorks } from "../../ingest/works.js";
import { readInventory } from "../catalogue/collectionsList.js";
import { definitionOf, plainCollectionOf, type PlainCollectionConfig } from "../../domain/collectionDefinitions.js";
import type { LiveCatalog } from "./catalogueInForce.js";
import type { CollectionReadiness, CollectionState } from "../../domain/readiness.js";

interface CollectionAdminDeps {
  catalog: LiveCatalog;
  ingestions?: Ingestions;
  engine: Pick<SearchEngine, "kind" | "getInventory" | "hasIndex" | "deleteIndex" | "vectorCoverage">;
  /** the event store's database: a retired collection's document manifest is dropped with its index */
  db?: Db;
  readiness: CollectionReadiness;
  dataRoot: string;
  onIndexDeleteFailure?: (collection: string, err: Error) => void;
  /**
   * after a retirement: pauses the alerts that search the collection and tells their owners (the alerts use case);
   * a failure leaves the retirement standing, and each such alert pauses at its next run instead
   */
  pauseAlertsOf?: (collection: string, actor: Actor) => Promise<unknown>;
  onAlertPauseFailure?: (collection: string, err: Error) => void;
}

/** A plain collection as the operator sees it: its definition, whether it answers, its size and last ingestion. */
interface CollectionAdminView extends CollectionDefinition {
  type: "plain";
  state: CollectionState;
  /** seeded from the configuration file on the first start (the demo collections) */
  seeded: boolean;
  documentCount: number;
  lastIngestion: IngestionStatus | null;
  /**
   * a dense or hybrid collection's vectors: the share of its chunks that have one and whether its vector backfill
   * still runs (an ingestion with vectors: backfill); null for a sparse collection or an index not built yet
   */
  vectors: CollectionVectors | null;
}

export interface CollectionVectors {
  /** 0..1, rounded down: 1 once every chunk has its vector */
  share: number;
  backfilling: boolean;
}

/** What the operator's list says of a collection's vectors, from its index's coverage (null: none to tell). */
export function collectionVectorsOf(retrieval: string, coverage: VectorCoverage | null): CollectionVectors | null {
  if (retrieval === "sparse" || coverage === null) return null;
  return { share: reportedShare(coverage), backfilling: coverage.withVectors < coverage.chunks };
}

interface MetaCollectionAdminView extends MetaCollectionDefinition {
  type: "meta";
}

export interface CollectionsAdminList {
  catalogueVersion: number;
  collections: CollectionAdminView[];
  metaCollections: MetaCollectionAdminView[];
  retired: string[];
}

/**
 * Every file passes the operator-file guard (a relative path that stays inside the data root once links are resolved,
 * a regular file within the size limit): 422 naming the first that does not and why, before anything is recorded. The
 * same answer for the same path wherever it is named (a definition, an ingestion).
 */
export async function assertReadableFiles(files: readonly string[], dataRoot: string, field = "files"): Promise<void> {
  for (const file of files) {
    try {
      await checkOperatorFile(dataRoot, file);
    } catch (err) {
      if (!(err instanceof OperatorFileError)) throw err;
      throw new Rejection(
        "VALIDATION_ERROR",
        `${err.message} (files are named relative to the data root, DATA_ROOT, or uploaded with PUT ` +
          "/admin/v1/uploads/{name}); nothing was changed",
        { field, file },
      );
    }
  }
}

export function createCollectionAdmin(deps: CollectionAdminDeps) {
  const { catalog, readiness } = deps;

  function requireIngestions(): Ingestions {
    if (!deps.ingestions)
      throw new Rejection(
        "SERVICE_UNAVAILABLE",
        "collections are ingested by the running service: run this against it (npm start, or --url)",
      );
    return deps.ingestions;
  }

  async function viewOf(name: string): Promise<CollectionAdminView> {
    const collection = catalog.collections.find((c) => c.name === name);
    if (!collection) throw new Rejection("COLLECTION_NOT_FOUND", `no collection is named "${name}"`);
    const [inventory, lastIngestion, coverage] = await Promise.all([
      readInventory(deps.engine, collection),
      deps.ingestions?.latest(name) ?? null,
      collection.retrieval === "sparse" ? null : deps.engine.vectorCoverage(name).catch(() => null),
    ]);
    // its state read after its last ingestion: "completed" there is "ready" here (readiness.settle)
    await readiness.settle([name]);
    return {
      ...definitionOf(collection),
      type: "plain",
      state: readiness.stateOf(name),
      seeded: catalog.isSeeded(name),
      documentCount: inventory.documentCount,
      lastIngestion,
      vectors: collectionVectorsOf(collection.retrieval, coverage),
    };
  }

  return {
    async list(): Promise<CollectionsAdminList> {
      await catalog.refresh(true);
      return {
        catalogueVersion: catalog.version,
        collections: await Promise.all(catalog.collections.map((c) => viewOf(c.name))),
        metaCollections: catalog.metaCollections.map(({ type: _type, ...meta }) => ({ ...meta, type: "meta" })),
        retired: [...catalog.retired()],
      };
    },

    /** Records the definition and starts its first ingestion (mode replace: the collection is exactly its files). */
    async define(
      config: Omit<PlainCollectionConfig, "$comment">,
      actor: Actor,
      requestId?: string,
    ): Promise<{ collection: CollectionAdminView; ingestionId: string }> {
      const ingestions = requireIngestions();
      const definition = definitionOf(plainCollectionOf(config));
      await assertReadableFiles(definition.source.files, deps.dataRoot, "source.files");
      await catalog.execute({ type: "DefineCollection", definition }, actor, requestId);
      readiness.set(definition.name, "ingesting");
      let ingestionId: string;
      try {
        ({ ingestionId } = await ingestions.start(
          { collection: definition.name, files: definition.source.files, mode: "replace" },
          actor,
          requestId,
        ));
      } catch (err) {
        readiness.set(definition.name, "failed");
        if (err instanceof Rejection) throw err;
        throw new Rejection(
          "SERVICE_UNAVAILABLE",
          `collection "${definition.name}" is defined, but its first ingestion could not start (` +
            `${(err as Error).message}); start it with POST /admin/v1/collections/${definition.name}/ingest`,
        );
      }
      return { collection: await viewOf(definition.name), ingestionId };
    },

    async change(
      name: string,
      change: Partial<Pick<CollectionDefinition, "displayName" | "description" | "pricePer1000">>,
      actor: Actor,
      requestId?: string,
    ): Promise<CollectionAdminView> {
      await catalog.execute({ type: "ChangeCollection", name, change }, actor, requestId);
      const entry = catalog.resolveCollection(name);
      return viewOf(entry!.name);
    },

    /**
     * Retires a collection: its searches answer 404 from now on (saying it was retired, and when), keys scoped to it
     * lose it, the alerts that search it are paused with the reason, and its query records stay re-fetchable for their
     * 7 days (they hold their rows). Its index is deleted once the retirement is recorded.
     */
    async retire(name: string, actor: Actor, requestId?: string): Promise<{ name: string; retired: true }> {
      const entry = catalog.resolveCollection(name);
      if (entry?.type === "plain" && deps.ingestions) {
        const latest = await deps.ingestions.latest(entry.name);
        if (latest?.state === "running")
          throw new Rejection(
            "CONFLICT",
            `collection "${entry.name}" is being ingested (${latest.ingestionId}); retire it once that ` +
              `ingestion ends (GET /admin/v1/ingestions/${latest.ingestionId})`,
          );
      }
      const [event] = await catalog.execute({ type: "RetireCollection", name }, actor, requestId);
      const retired = event?.type === "CollectionRetired" ? event.data.name : name;
      try {
        if (await deps.engine.hasIndex(retired)) await deps.engine.deleteIndex(retired);
        if (deps.db) await clearManifest(deps.db, manifestKey(deps.engine.kind, retired));
        if (deps.db) await clearWorks(deps.db, manifestKey(deps.engine.kind, retired));
      } catch (err) {
        // the retirement stands (searches answer 404); the index is only disk left behind
        deps.onIndexDeleteFailure?.(retired, err as Error);
      }
      if (event?.type === "CollectionRetired")
        await deps.pauseAlertsOf?.(retired, actor).catch((err: Error) => deps.onAlertPauseFailure?.(retired, err));
      return { name: retired, retired: true };
    },

    /**
     * Retires a meta-collection: its searches answer 404 from now on (saying it was retired, and when), keys scoped to
     * it lose it and the alerts that search it are paused, as for a plain collection; its members stay, indexes and
     * all, and may then be retired themselves.
     */
    async retireMeta(name: string, actor: Actor, requestId?: string): Promise<{ name: string; retired: true }> {
      const [event] = await catalog.execute({ type: "RetireMetaCollection", name }, actor, requestId);
      const retired = event?.type === "MetaCollectionRetired" ? event.data.name : name;
      await deps.pauseAlertsOf?.(retired, actor).catch((err: Error) => deps.onAlertPauseFailure?.(retired, err));
      return { name: retired, retired: true };
    },

    async defineMeta(
      name: string,
      body: Omit<MetaCollectionDefinition, "name">,
      actor: Actor,
      requestId?: string,
    ): Promise<{ metaCollection: MetaCollectionAdminView; created: boolean }> {
      const existed = catalog.resolveCollection(name)?.type === "meta";
      await catalog.execute(
        {
          type: "DefineMetaCollection",
          definition: { name, displayName: body.displayName, description: body.description, members: body.members },
        },
        actor,
        requestId,
      );
      const meta = catalog.resolveCollection(name);
      if (meta?.type !== "meta") throw new Error(`meta-collection ${name} was not recorded`);
      const { type: _type, ...definition } = meta;
      return { metaCollection: { ...definition, type: "meta" }, created: !existed };
    },
  };
}

export type CollectionAdmin = ReturnType<typeof createCollectionAdmin>;

/** How often requests to a collection still ingesting may make the follower read the ingestions' state. */
const CONFIRM_SPACING_MS = 200;

/**
 * Keeps the readiness of collections defined through the operator API in step with their ingestions, in every API
 * process: 503 until one ingestion of the collection completed (the seeded demo collections follow the first start's
 * ingestion instead). Checks the pending ones on every catalogue change, every `intervalMs`, and when a request is
 * about to answer 503 for one (readiness.settle); stop() ends it.
 */
export function followCollectionIngestions(deps: {
  catalog: LiveCatalog;
  readiness: CollectionReadiness;
  ingestions: Ingestions;
  intervalMs?: number;
  onError?: (err: Error) => void;
}): { check(): Promise<void>; stop(): void } {
  const { catalog, readiness, ingestions } = deps;
  const confirmed = new Set<string>();
  let checking: Promise<void> | undefined;
  const run = async () => {
    const live = new Set(catalog.collections.map((c) => c.name));
    for (const name of readiness.summary().ready.concat(readiness.summary().ingesting, readiness.summary().failed)) {
      if (!live.has(name)) readiness.forget(name);
    }
    for (const { name } of catalog.collections) {
      if (catalog.isSeeded(name) || confirmed.has(name)) continue;
      if (await ingestions.hasCompleted(name)) {
        confirmed.add(name);
        readiness.set(name, "ready");
        continue;
      }
      const latest = await ingestions.latest(name);
      readiness.set(name, latest?.state === "failed" ? "failed" : "ingesting");
    }
  };
  let checks = 0;
  let lastStart = -Infinity;
  const check = (): Promise<void> => {
    if (!checking) {
      checks++;
      lastStart = Date.now();
      checking = run().finally(() => (checking = undefined));
    }
    return checking;
  };
  // a request about to answer 503 waits for a check that started after it asked (a new one at most every
  // CONFIRM_SPACING_MS, shared by the requests waiting), so requests to a collection that really is ingesting cost the
  // store a few reads a second, and one sent after its ingestion completed finds it ready
  readiness.confirmWith(async (waiting) => {
    // only the collections this follower confirms (a demo collection follows the first start's ingestion instead)
    const names = new Set(catalog.collections.map((c) => c.name));
    if (!waiting.some((name) => names.has(name) && !catalog.isSeeded(name) && !confirmed.has(name))) return;
    const before = checks;
    while (checks === before) {
      if (checking) await checking.catch(() => undefined);
      else await sleep(Math.max(0, lastStart + CONFIRM_SPACING_MS - Date.now()));
      if (checks === before && !checking) return check();
    }
    await checking;
  });
  const tick = () => void check().catch((err: Error) => deps.onError?.(err));
  catalog.onChange(tick);
  const timer = setInterval(tick, deps.intervalMs ?? 1000);
  timer.unref();
  return { check, stop: () => clearInterval(timer) };
}
