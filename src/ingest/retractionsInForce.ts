// The retraction list in force as one process holds it: the shipped lists, plus the RetractionsLoaded events of the
// retractions stream folded in, re-read at most once a RETRACTIONS_RECHECK_MS. The state and the functions reading
// it, each a function of one RetractionsContext; loading a list is retractionsLoad.ts, and liveRetractions.ts wires
// both into LiveRetractions.
import type { Db } from "../eventstore/db.js";
import { readStream } from "../eventstore/eventStore.js";
import { RETRACTIONS_STREAM, type StoredEvent } from "../domain/events.js";
import type { FilterNode } from "../filters/ast.js";
import { loadUpdateLists, type RetractionNotice, type ShippedLists } from "./retractions.js";
import {
  addNotice,
  withdrawalsByNoticeDoi,
  type IntegrityNotice,
  type IntegritySource,
  type ListsInForce,
} from "../domain/integrity.js";

/** How stale another process's load may be here: one small indexed read of the stream's version per interval. */
const RETRACTIONS_RECHECK_MS = 1000;

/**
 * Of these DOIs, those some collection that excludes retractions holds now (the engine's answer); a DOI it cannot rule
 * out is kept. Keeps the query-time exclusion to the works actually indexed: a whole Retraction Watch export lists tens
 * of thousands, more than OpenSearch takes in one terms query and far more than a search should carry.
 */
export type HeldDois = (dois: readonly string[]) => Promise<Set<string>>;

export interface LiveRetractionsDeps {
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
}

/** What this process knows of the retractions stream. */
interface RetractionsState {
  version: number;
  added: Map<string, RetractionNotice>;
  addedUpdates: Map<string, IntegrityNotice[]>;
  excluded: Set<string>;
  all: Map<string, RetractionNotice> | undefined;
  /** the loaded lists' withdrawals by the notice's own DOI (noticesAt), built on first use after each load */
  addedAt: Map<string, IntegrityNotice[]> | undefined;
  filter: FilterNode | undefined;
  checkedAt: number;
  /** DOIs some collection's own source flags retracted and another holds searchable (sourceFlaggedElsewhere) */
  flaggedElsewhere: string[];
  flaggedCheckedAt: number;
}

/** What the operations share: built once by createLiveRetractions. */
export interface RetractionsContext {
  deps: LiveRetractionsDeps;
  clock: () => Date;
  recheckMs: number;
  /** the shipped lists, read once on first use */
  shippedLists: () => Promise<ShippedLists>;
  state: RetractionsState;
}

export function retractionsContext(deps: LiveRetractionsDeps): RetractionsContext {
  let shipped: Promise<ShippedLists> | undefined;
  return {
    deps,
    clock: deps.clock ?? (() => new Date()),
    recheckMs: deps.recheckMs ?? RETRACTIONS_RECHECK_MS,
    shippedLists: () => (shipped ??= loadUpdateLists(deps.dataRoot)),
    state: {
      version: 0,
      added: new Map(),
      addedUpdates: new Map(),
      excluded: new Set(),
      all: undefined,
      addedAt: undefined,
      filter: undefined,
      checkedAt: -Infinity,
      flaggedElsewhere: [],
      flaggedCheckedAt: -Infinity,
    },
  };
}

/** Who recorded the notices of a load whose event predates notices naming it: a Retraction Watch CSV, else Crossref. */
export function sourceOfFiles(files: readonly string[]): IntegritySource {
  return files.length > 0 && files.every((f) => /\.csv$/i.test(f)) ? "retraction_watch" : "crossref";
}

/**
 * DOIs (sorted) that one collection's own source record flags retracted (works.retracted) while a collection holds
 * them searchable: the same work under another source that does not flag it. The retraction rule reads every holder,
 * so the search leaves them out too. Reads the few flagged rows through their partial index.
 */
async function sourceFlaggedElsewhere(db: Db, engineKind: string): Promise<string[]> {
  const rows = await db.query<{ doi: string }>(
    `SELECT DISTINCT s.doi FROM works r JOIN works s ON s.doi = r.doi
      WHERE r.retracted AND s.searchable AND starts_with(r.index_key, $1) AND starts_with(s.index_key, $1)
      ORDER BY s.doi`,
    [`${engineKind}/`],
  );
  return rows.map((r) => r.doi);
}

function exclusionOf(state: RetractionsState): FilterNode | undefined {
  const dois = new Set([...state.excluded, ...state.flaggedElsewhere]);
  return dois.size > 0 ? { kind: "not", child: { kind: "in", field: "doi", values: [...dois] } } : undefined;
}

export async function refreshFlagged(ctx: RetractionsContext): Promise<void> {
  const { deps, state } = ctx;
  if (deps.engineKind === undefined) return;
  const now = ctx.clock().getTime();
  if (now - state.flaggedCheckedAt < ctx.recheckMs) return;
  state.flaggedCheckedAt = now;
  const dois = await sourceFlaggedElsewhere(deps.db, deps.engineKind);
  if (dois.join("\n") === state.flaggedElsewhere.join("\n")) return;
  state.flaggedElsewhere = dois;
  state.filter = exclusionOf(state);
}

/** Folds the stream's events past the state's version into it. */
export function fold(ctx: RetractionsContext, events: readonly StoredEvent[]): void {
  const { state } = ctx;
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
    state.addedAt = undefined;
    state.filter = exclusionOf(state);
  }
}

/** Follows the stream when the recheck interval passed (or when forced). */
export async function refresh(ctx: RetractionsContext, force = false): Promise<void> {
  const { deps, state } = ctx;
  const now = ctx.clock().getTime();
  if (!force && now - state.checkedAt < ctx.recheckMs) return;
  state.checkedAt = now;
  const [row] = await deps.db.query<{ v: number | null }>(
    "SELECT max(stream_version) AS v FROM events WHERE stream_id = $1",
    [RETRACTIONS_STREAM],
  );
  if ((row?.v ?? 0) > state.version) fold(ctx, await readStream(deps.db, RETRACTIONS_STREAM));
}

/** Every retracted work's notice by DOI: the shipped lists' and the loaded ones'. */
export async function allNotices(ctx: RetractionsContext): Promise<Map<string, RetractionNotice>> {
  await refresh(ctx);
  const base = (await ctx.shippedLists()).retracted;
  ctx.state.all ??= new Map([...base, ...ctx.state.added]);
  return ctx.state.all;
}

export async function listsInForce(ctx: RetractionsContext): Promise<ListsInForce> {
  const retracted = await allNotices(ctx);
  const { updates, withdrawalsAt } = await ctx.shippedLists();
  const added = ctx.state.addedUpdates;
  const loaded = (ctx.state.addedAt ??= withdrawalsByNoticeDoi(added.values()));
  return {
    noticesAt: (doi) => {
      const notices = (withdrawalsAt.get(doi) ?? []).map((n) => ({ ...n }));
      for (const n of loaded.get(doi) ?? []) addNotice(notices, { ...n });
      return notices;
    },
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
