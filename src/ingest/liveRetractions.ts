// The retraction list in force: the shipped lists ingestion excluded by, plus every list an operator loaded since
// (RetractionsLoaded events on the retractions stream). Searches exclude the works of the loaded lists at query time
// and retractions/check answers from the whole list; each process re-reads the stream's version at most once a
// RETRACTIONS_RECHECK_MS, so every API process follows a load within that time (the loading one at once).
import type { Db } from "../eventstore/db.js";
import { readStream } from "../eventstore/eventStore.js";
import { runStreamCommand } from "../../projections/streamCommand.js";
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
  sameNotice,
  workIntegrity,
  type Integrity,
  type IntegrityNotice,
  type IntegritySource,
  type ListsInForce,
  type WorkEvidence,
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
  /** the lists in force as the retraction rule reads them (src/domain/integrity.ts) */
  lists(): Promise<ListsInForce>;
  /**
   * each work's integrity (status and notices) by the retraction rule: its own source's notices and the lists' in
   * force; a work neither names is status none
   */
  integrity(works: readonly WorkEvidence[]): Promise<Integrity[]>;
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

/** Who recorded the notices of a load whose event predates notices naming it: a Retraction Watch CSV, else Crossref. */
export function sourceOfFiles(files: readonly string[]): IntegritySource {
  return files.length > 0 && files.every((f) => /\.csv$/i.test(f)) ? "retraction_watch" : "crossref";
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

/**
 * DOIs (sorted) that one collection's own source record flags retracted (works.retracted) while a collection holds
 * them searchable: the same work under another source that does not flag it. The retraction rule reads every holder,
 * so the search leaves them out too. Reads the few flagged rows through their partial index.
 */
export async function sourceFlaggedElsewhere(db: Db, engineKind: string): Promise<string[]> {
  const rows = await db.query<{ doi: string }>(
    `SELECT DISTINCT s.doi FROM works r JOIN works s ON s.doi = r.doi
      WHERE r.retracted AND s.searchable AND starts_with(r.index_key, $1) AND starts_with(s.index_key, $1)
      ORDER BY s.doi`,
    [`${engineKind}/`],
  );
  return rows.map((r) => r.doi);
}

export function createLiveRetractions(deps: {
  db: Db;
  dataRoot: string;
  clock?: () => Date;
  recheckMs?: number;
  heldDois?: HeldDois;
  /**
   * the works table's engine (its index keys' prefix): a work one collection's own source flags retracted is left out
   * of every collection that excludes retractions, as its integrity says (the retraction rule reads every holder)
   */
  engineKind?: string;
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
    /** DOIs some collection's own source flags retracted and another holds searchable (sourceFlaggedElsewhere) */
    flaggedElsewhere: [] as string[],
    flaggedCheckedAt: -Infinity,
  };

  const exclusionOf = (): FilterNode | undefined => {
    const dois = new Set([...state.excluded, ...state.flaggedElsewhere]);
    return dois.size > 0 ? { kind: "not", child: { kind: "in", field: "doi", values: [...dois] } } : undefined;
  };

  async function refreshFlagged(): Promise<void> {
    if (deps.engineKind === undefined) return;
    const now = clock().getTime();
    if (now - state.flaggedCheckedAt < recheckMs) return;
    state.flaggedCheckedAt = now;
    const dois = await sourceFlaggedElsewhere(deps.db, deps.engineKind);
    if (dois.join("\n") === state.flaggedElsewhere.join("\n")) return;
    state.flaggedElsewhere = dois;
    state.filter = exclusionOf();
  }

  function fold(events: readonly StoredEvent[]): void {
    for (const e of events) {
      if (e.streamVersion <= state.version || e.type !== "RetractionsLoaded") continue;
      for (const n of e.data.notices) state.added.set(n.doi, n);
      for (const { work, ...notice } of e.data.updates ?? []) {
        const notices = state.addedUpdates.get(work) ?? [];
        // loads recorded before notices named their source and PMID: the source by the files' format
        addNotice(notices, {
          ...notice,
          source: notice.source ?? sourceOfFiles(e.data.files),
          pmid: notice.pmid ?? null,
        });
        state.addedUpdates.set(work, notices);
      }
      for (const doi of e.data.held ?? e.data.notices.map((n) => n.doi)) state.excluded.add(doi);
      state.version = e.streamVersion;
      state.all = undefined;
      state.filter = exclusionOf();
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

  async function lists(): Promise<ListsInForce> {
    const retracted = await all();
    const updates = (await shippedLists()).updates;
    const added = state.addedUpdates;
    return {
      flagsRetracted: (doi) => retracted.has(doi),
      noticesOf: (doi) => {
        const shippedNotices = updates.get(doi);
        const addedNotices = added.get(doi);
        if (!addedNotices) return shippedNotices ?? [];
        const notices = [...(shippedNotices ?? [])];
        for (const n of addedNotices) addNotice(notices, n);
        return notices;
      },
    };
  }

  return {
    notices: all,
    lists,
    async integrity(works) {
      const inForce = await lists();
      return works.map((work) => workIntegrity(work, inForce));
    },
    async addedDois() {
      await refresh();
      return [...state.added.keys()];
    },
    async exclusionFilter() {
      await refresh();
      await refreshFlagged();
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
            [...(shippedList.updates.get(doi) ?? []), ...(state.addedUpdates.get(doi) ?? [])].some((k) =>
              sameNotice(k, n),
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
