// The retraction list in force: the shipped lists ingestion excluded by, plus every list an operator loaded since
// (RetractionsLoaded events on the retractions stream). Searches exclude the works of the loaded lists at query time
// and retractions/check answers from the whole list; each process re-reads the stream's version at most once a
// RETRACTIONS_RECHECK_MS, so every API process follows a load within that time (the loading one at once).
import type { Db } from "../eventstore/db.js";
import { readStream } from "../eventstore/eventStore.js";
import { runStreamCommand } from "../eventstore/streamCommand.js";
import { RETRACTIONS_STREAM, type Actor, type StoredEvent } from "../domain/events.js";
import { Rejection } from "../domain/rejection.js";
import type { FilterNode } from "../filters/ast.js";
import type { SearchEngine } from "../retrieval/port.js";
import type { CollectionCatalog } from "../domain/collectionDefinitions.js";
import { readLines, SourceContentError } from "./sourceFiles.js";
import { checkOperatorFile, OperatorFileError } from "./operatorFiles.js";
import {
  loadUpdateLists,
  mergeUpdateLists,
  readOpenRetractionsList,
  readRetractionWatchList,
  RETRACTION_WATCH_COLUMNS,
  retractionWatchColumn,
  type RetractionNotice,
  type UpdateList,
} from "./retractions.js";
import {
  addNotice,
  integrityOf,
  NO_INTEGRITY_NOTICE,
  type Integrity,
  type IntegrityNotice,
} from "../domain/integrity.js";

/** How stale another process's load may be here: one small indexed read of the stream's version per interval. */
export const RETRACTIONS_RECHECK_MS = 1000;

export interface RetractionsLoad {
  /** the stream's version after the load: the list's version */
  version: number;
  files: string[];
  /** retracted works the files list */
  listed: number;
  /** of those, the ones no earlier list had: excluded from results from now on */
  newlyRetracted: number;
  loadedAt: string;
}

export interface LiveRetractions {
  /** every retracted work's notice by DOI (lower-case) */
  notices(): Promise<ReadonlyMap<string, RetractionNotice>>;
  /** each DOI's integrity (status and notices) under the lists in force; a DOI no list names is status none */
  integrity(dois: readonly string[]): Promise<Map<string, Integrity>>;
  /** the DOIs the loaded lists added (ingestion excluded the shipped ones already); empty before any load */
  addedDois(): Promise<readonly string[]>;
  /** a filter excluding the works the loaded lists added, or undefined when there are none */
  exclusionFilter(): Promise<FilterNode | undefined>;
  /**
   * reads the files (relative paths under the data root) and records them as the list in force; a bad file is 422 and
   * changes nothing
   */
  load(files: readonly string[], actor: Actor, requestId?: string): Promise<RetractionsLoad>;
}

/**
 * A collection's engine filter with the loaded lists' works left out, for a collection that excludes retractions (a
 * search, and works/lookup: a collection no longer holds a work retracted since it was ingested). 'skip' stays.
 */
export function withoutRetracted(
  collection: { excludeRetracted: boolean },
  filter: FilterNode | "skip" | undefined,
  retracted: FilterNode | undefined,
): FilterNode | "skip" | undefined {
  if (!retracted || !collection.excludeRetracted || filter === "skip") return filter;
  return filter ? { kind: "and", children: [filter, retracted] } : retracted;
}

/**
 * One file's notices, by its format: a ".csv" is a Retraction Watch export (headers in any case: `OriginalPaperDOI` or
 * `originalpaperdoi`), anything else JSON lines of open-retractions records (".gz" gunzipped). The file passes the
 * operator-file guard (relative, inside the data root once links are resolved, a regular file); one that does not, that
 * does not parse, or that names no work is 422 naming it and why, never its text. Besides the retracted works, every
 * notice of any kind (corrections, expressions of concern) is read: each work's integrity follows them.
 */
export async function readRetractionFile(dataRoot: string, file: string): Promise<UpdateList> {
  const refuse = (reason: string) =>
    new Rejection(
      "VALIDATION_ERROR",
      `retraction list "${file}" cannot be read: ${reason}. Give a Retraction Watch CSV or open-retractions ` +
        "JSON lines, named relative to the data root (DATA_ROOT) or uploaded with PUT /admin/v1/uploads/{name}; " +
        "nothing was loaded",
      { file },
    );
  try {
    const path = await checkOperatorFile(dataRoot, file);
    const withoutPath = (message: string) => message.split(`${path}: `).join("").split(path).join(file);
    try {
      let list: UpdateList;
      if (/\.csv(\.gz)?$/i.test(file)) {
        if (file.endsWith(".gz")) throw new SourceContentError("a Retraction Watch CSV is read uncompressed");
        for await (const header of readLines(path)) {
          const columns = header.split(",").map((c) => retractionWatchColumn(c.trim().replace(/^"|"$/g, "")));
          const missing = RETRACTION_WATCH_COLUMNS.filter((c) => !columns.includes(c));
          const named = missing.map((c) => (c === "originalpaperdoi" ? "OriginalPaperDOI" : "RetractionNature"));
          if (missing.length > 0)
            throw new SourceContentError(
              `not a Retraction Watch CSV: its first line has no ${named.join(" or ")} column`,
            );
          break;
        }
        list = await readRetractionWatchList(path);
      } else {
        list = await readOpenRetractionsList(path);
        if (list.retracted.size === 0 && list.updates.size === 0)
          throw new SourceContentError("no record has an identifier.doi with an update, so the list names no work");
      }
      return list;
    } catch (err) {
      if (err instanceof SourceContentError) throw refuse(withoutPath(err.message));
      const code = (err as NodeJS.ErrnoException).code;
      if (typeof code === "string" && code.startsWith("Z_")) throw refuse("not a gzip file");
      if (typeof code === "string" && code.startsWith("CSV_"))
        throw refuse(`not a well-formed CSV (${code.toLowerCase().replace(/^csv_/, "").replace(/_/g, " ")})`);
      throw err;
    }
  } catch (err) {
    if (err instanceof OperatorFileError) throw refuse(err.reason);
    throw err;
  }
}

/**
 * Of these DOIs, those some collection that excludes retractions holds now (the engine's answer); a DOI it cannot rule
 * out is kept. Keeps the query-time exclusion to the works actually indexed: a whole Retraction Watch export lists tens
 * of thousands, more than OpenSearch takes in one terms query and far more than a search should carry.
 */
export type HeldDois = (dois: readonly string[]) => Promise<Set<string>>;

/**
 * HeldDois over the engine: each collection that excludes retractions is asked for its chunks with these DOIs, 500 at a
 * time.
 */
export function heldDoisIn(deps: {
  engine: Pick<SearchEngine, "findChunks" | "hasIndex">;
  catalog: Pick<CollectionCatalog, "collections">;
}): HeldDois {
  const BATCH = 500;
  const LIMIT = 5000;
  return async (dois) => {
    const held = new Set<string>();
    const collections = deps.catalog.collections.filter((c) => c.excludeRetracted);
    for (let from = 0; from < dois.length; from += BATCH) {
      const batch = dois.slice(from, from + BATCH);
      for (const collection of collections) {
        if (!(await deps.engine.hasIndex(collection.name))) continue;
        const chunks = await deps.engine.findChunks(
          collection.name,
          { kind: "in", field: "doi", values: batch },
          LIMIT,
        );
        // a full page may hide some: the whole batch counts as held (excluded), the safe side
        if (chunks.length >= LIMIT) batch.forEach((doi) => held.add(doi));
        else
          for (const chunk of chunks)
            if (typeof chunk.metadata.doi === "string") held.add(chunk.metadata.doi.toLowerCase());
      }
    }
    return held;
  };
}

export function createLiveRetractions(deps: {
  db: Db;
  dataRoot: string;
  clock?: () => Date;
  recheckMs?: number;
  heldDois?: HeldDois;
}): LiveRetractions {
  const clock = deps.clock ?? (() => new Date());
  const recheckMs = deps.recheckMs ?? RETRACTIONS_RECHECK_MS;
  let shipped: Promise<UpdateList> | undefined;
  const shippedLists = () => (shipped ??= loadUpdateLists(deps.dataRoot));
  const state = {
    version: 0,
    added: new Map<string, RetractionNotice>(),
    addedUpdates: new Map<string, IntegrityNotice[]>(),
    excluded: new Set<string>(),
    all: undefined as Map<string, RetractionNotice> | undefined,
    filter: undefined as FilterNode | undefined,
    checkedAt: -Infinity,
  };

  function fold(events: readonly StoredEvent[]): void {
    for (const e of events) {
      if (e.streamVersion <= state.version || e.type !== "RetractionsLoaded") continue;
      for (const n of e.data.notices) state.added.set(n.doi, n);
      for (const { work, ...notice } of e.data.updates ?? []) {
        const notices = state.addedUpdates.get(work) ?? [];
        addNotice(notices, notice);
        state.addedUpdates.set(work, notices);
      }
      for (const doi of e.data.held ?? e.data.notices.map((n) => n.doi)) state.excluded.add(doi);
      state.version = e.streamVersion;
      state.all = undefined;
      state.filter =
        state.excluded.size > 0
          ? { kind: "not", child: { kind: "in", field: "doi", values: [...state.excluded] } }
          : undefined;
    }
  }

  async function refresh(force = false): Promise<void> {
    const now = clock().getTime();
    if (!force && now - state.checkedAt < recheckMs) return;
    state.checkedAt = now;
    const [row] = await deps.db.query<{ v: number | null }>(
      "SELECT max(stream_version) AS v FROM events WHERE stream_id = $1",
      [RETRACTIONS_STREAM],
    );
    if ((row?.v ?? 0) > state.version) fold(await readStream(deps.db, RETRACTIONS_STREAM));
  }

  async function all(): Promise<Map<string, RetractionNotice>> {
    await refresh();
    const base = (await shippedLists()).retracted;
    state.all ??= new Map([...base, ...state.added]);
    return state.all;
  }

  return {
    notices: all,
    async integrity(dois) {
      const retracted = await all();
      const updates = (await shippedLists()).updates;
      const answer = new Map<string, Integrity>();
      for (const doi of dois) {
        if (answer.has(doi)) continue;
        const notices = [...(updates.get(doi) ?? [])];
        for (const n of state.addedUpdates.get(doi) ?? []) addNotice(notices, n);
        answer.set(
          doi,
          notices.length === 0 && !retracted.has(doi) ? NO_INTEGRITY_NOTICE : integrityOf(notices, retracted.has(doi)),
        );
      }
      return answer;
    },
    async addedDois() {
      await refresh();
      return [...state.added.keys()];
    },
    async exclusionFilter() {
      await refresh();
      return state.filter;
    },
    async load(files, actor, requestId) {
      if (files.length === 0)
        throw new Rejection("VALIDATION_ERROR", "files must name at least one retraction list", { field: "files" });
      const lists: UpdateList[] = [];
      // one at a time: each file is opened only once the one before was read
      for (const f of files) lists.push(await readRetractionFile(deps.dataRoot, f));
      const read = mergeUpdateLists(lists);
      const listed = read.retracted;
      const shippedList = await shippedLists();
      const base = shippedList.retracted;
      await refresh(true);
      // which of the works this load adds are indexed anywhere: asked of the engine before the append's transaction
      const candidates = [...listed.values()].filter((n) => !base.has(n.doi) && !state.added.has(n.doi));
      const held = deps.heldDois ? await deps.heldDois(candidates.map((n) => n.doi)) : undefined;
      const events = await runStreamCommand(
        deps.db,
        clock,
        RETRACTIONS_STREAM,
        actor,
        async (tx) => {
          const [row] = await tx.query<{ v: number | null }>(
            "SELECT max(stream_version) AS v FROM events WHERE stream_id = $1",
            [RETRACTIONS_STREAM],
          );
          const version = row?.v ?? 0;
          if (version > state.version) fold(await readStream(tx, RETRACTIONS_STREAM));
          const notices = [...listed.values()].filter((n) => !base.has(n.doi) && !state.added.has(n.doi));
          // a work another load added meanwhile was not asked about: it counts as held (excluded), the safe side
          const asked = new Set(candidates.map((c) => c.doi));
          const heldNow = held
            ? notices.filter((n) => held.has(n.doi) || !asked.has(n.doi)).map((n) => n.doi)
            : undefined;
          // the notices of every kind the lists in force do not hold yet (each work's integrity follows them at once)
          const known = (doi: string, n: IntegrityNotice) =>
            [...(shippedList.updates.get(doi) ?? []), ...(state.addedUpdates.get(doi) ?? [])].some(
              (k) => k.type === n.type && (k.doi ?? "") === (n.doi ?? ""),
            );
          const updates = [...read.updates].flatMap(([doi, list]) =>
            list.filter((n) => !known(doi, n)).map((n) => ({ work: doi, ...n })),
          );
          return {
            version,
            events: [
              {
                type: "RetractionsLoaded",
                data: {
                  files: [...files],
                  listed: listed.size,
                  newlyRetracted: notices.length,
                  notices,
                  ...(heldNow ? { held: heldNow } : {}),
                  ...(updates.length > 0 ? { updates } : {}),
                },
              },
            ],
          };
        },
        { requestId },
      );
      fold(events);
      const e = events[0]!;
      if (e.type !== "RetractionsLoaded") throw new Error("retractions load was not recorded");
      return {
        version: e.streamVersion,
        files: e.data.files,
        listed: e.data.listed,
        newlyRetracted: e.data.newlyRetracted,
        loadedAt: e.recordedAt,
      };
    },
  };
}
