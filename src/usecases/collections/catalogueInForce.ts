// The catalogue in force: the collection and meta-collection definitions recorded on the catalogue stream (seeded from
// config/collections.json on a first start, then changed through the operator API). Every consumer reads it through
// the CollectionCatalog interface; each process follows the stream within CATALOGUE_RECHECK_MS (the writing one at
// once).
import type { Db } from "../../eventstore/db.js";
import { readStream } from "../../eventstore/eventStore.js";
import { runStreamCommand } from "../../../projections/streamCommand.js";
import { CATALOGUE_STREAM, type Actor, type StoredEvent } from "../../domain/events.js";
import {
  decideCatalogue,
  emptyCatalogue,
  evolveCatalogue,
  type CatalogueCommand,
  type CatalogueState,
} from "../../domain/catalogueStream.js";
import {
  buildCatalog,
  definitionOf,
  plainCollectionOf,
  type CollectionCatalog,
  type MetaCollection,
  type PlainCollection,
  type SourceReader,
} from "../../domain/collectionDefinitions.js";

/** How stale another process's catalogue change may be here: one indexed read of the stream's version per interval. */
const CATALOGUE_RECHECK_MS = 1000;

export interface LiveCatalog extends CollectionCatalog {
  /** the catalogue stream's version this process holds */
  readonly version: number;
  /** whether the collection came from the configuration file on a first start (the demo ingestion builds those) */
  isSeeded(name: string): boolean;
  /** the names of retired collections (reserved for good) */
  retired(): readonly string[];
  /** reads the catalogue stream when its version moved (at most once a recheck interval unless forced) */
  refresh(force?: boolean): Promise<void>;
  /** decides a command against the catalogue in the store and records its events (none when nothing changes) */
  execute(command: CatalogueCommand, actor: Actor, requestId?: string): Promise<StoredEvent[]>;
  /** called after the catalogue changed in this process (its own commands or another process's, seen on refresh) */
  onChange(listener: () => void): void;
  /** stops following the stream */
  close(): void;
}

const streamVersion = async (db: Pick<Db, "query">): Promise<number> => {
  const [row] = await db.query<{ v: number | null }>(
    "SELECT max(stream_version) AS v FROM events WHERE stream_id = $1",
    [CATALOGUE_STREAM],
  );
  return row?.v ?? 0;
};

function catalogOf(state: CatalogueState): CollectionCatalog {
  const collections = [...state.collections.values()].map(({ definition }) =>
    plainCollectionOf({
      ...definition,
      source: { reader: definition.source.reader as SourceReader, files: definition.source.files },
    }),
  );
  const metaCollections = [...state.metaCollections.values()].map((meta): MetaCollection => ({
    ...meta,
    type: "meta",
  }));
  return buildCatalog(collections, metaCollections);
}

/**
 * Opens the catalogue of the store, seeding it with `seed` (the configuration file's catalogue) when the stream is
 * empty; after that the stream is the truth and the file is not read again. Follows the stream on a timer.
 */
export async function openLiveCatalog(deps: {
  db: Db;
  clock?: () => Date;
  seed: () => Promise<CollectionCatalog>;
  recheckMs?: number;
  actor: Actor;
}): Promise<LiveCatalog> {
  const clock = deps.clock ?? (() => new Date());
  const recheckMs = deps.recheckMs ?? CATALOGUE_RECHECK_MS;
  const state = emptyCatalogue();
  let snapshot = catalogOf(state);
  let checkedAt = -Infinity;
  const listeners: (() => void)[] = [];

  function fold(events: readonly StoredEvent[]): boolean {
    let changed = false;
    for (const e of events) {
      if (e.streamVersion <= state.version) continue;
      evolveCatalogue(state, e);
      state.version = e.streamVersion;
      changed = true;
    }
    if (changed) {
      snapshot = catalogOf(state);
      for (const listener of listeners) listener();
    }
    return changed;
  }

  /** the state at the store's version, read inside a command's transaction */
  async function current(tx: Pick<Db, "query">): Promise<CatalogueState> {
    const version = await streamVersion(tx);
    if (version > state.version) {
      // another process wrote: fold from scratch into a copy, so a failed command leaves this process's state alone
      const fresh = emptyCatalogue();
      for (const e of await readStream(tx as Db, CATALOGUE_STREAM)) {
        evolveCatalogue(fresh, e);
        fresh.version = e.streamVersion;
      }
      return fresh;
    }
    return {
      version: state.version,
      collections: new Map([...state.collections].map(([k, v]) => [k, { ...v }])),
      metaCollections: new Map(state.metaCollections),
      retired: new Set(state.retired),
      retiredAt: new Map(state.retiredAt),
    };
  }

  async function refresh(force = false): Promise<void> {
    const now = clock().getTime();
    if (!force && now - checkedAt < recheckMs) return;
    checkedAt = now;
    if ((await streamVersion(deps.db)) > state.version) fold(await readStream(deps.db, CATALOGUE_STREAM));
  }

  async function execute(command: CatalogueCommand, actor: Actor, requestId?: string): Promise<StoredEvent[]> {
    const events = await runStreamCommand(
      deps.db,
      clock,
      CATALOGUE_STREAM,
      actor,
      async (tx) => {
        const decidedOn = await current(tx);
        return { version: decidedOn.version, events: decideCatalogue(decidedOn, command) };
      },
      { requestId },
    );
    // events appended after another process's: read the whole stream so nothing in between is skipped
    if (events.length > 0 && events[0]!.streamVersion !== state.version + 1) await refresh(true);
    else fold(events);
    return events;
  }

  await refresh(true);
  if (state.version === 0) {
    const seed = await deps.seed();
    await execute(
      {
        type: "SeedCatalogue",
        collections: seed.collections.map(definitionOf),
        metaCollections: seed.metaCollections.map(({ type: _type, ...meta }) => meta),
      },
      deps.actor,
    );
  }
  const timer = setInterval(() => void refresh().catch(() => undefined), recheckMs);
  timer.unref();

  return {
    get collections(): readonly PlainCollection[] {
      return snapshot.collections;
    },
    get metaCollections(): readonly MetaCollection[] {
      return snapshot.metaCollections;
    },
    get version() {
      return state.version;
    },
    resolveCollection: (name) => snapshot.resolveCollection(name),
    physicalMembers: (entry) => snapshot.physicalMembers(entry),
    priceRange: (meta, priceOf) => snapshot.priceRange(meta, priceOf),
    isSeeded: (name) => state.collections.get(name)?.seeded === true,
    retired: () => [...state.retired],
    retiredAt: (name) => {
      const lower = name.toLowerCase();
      for (const [retired, at] of state.retiredAt) if (retired.toLowerCase() === lower) return { name: retired, at };
      return null;
    },
    refresh,
    execute,
    onChange: (listener) => void listeners.push(listener),
    close: () => clearInterval(timer),
  };
}
