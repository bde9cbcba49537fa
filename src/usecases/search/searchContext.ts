// What the search use cases share: the shapes they answer with, and a small context built once from the service's
// dependencies, with the helpers every operation (search, preview, re-fetch) reads through.
import type { VectorsBackfilling } from "../../retrieval/vectorsBackfilling.js";
import type { Db } from "../../eventstore/db.js";
import type { Accounts } from "../accounts/accounts.js";
import type { AuthContext } from "../auth/context.js";
import type { SearchDeps } from "./pipeline.js";
import { loadOwnQueryRecord, type QueryRecord } from "./queryCache.js";
import type { CachedRow } from "../../domain/resultRow.js";
import { sandboxUnlockedIds } from "./sandbox.js";
import type { QuotaStatus } from "../limits/quotas.js";
import type { FigureImageRenderer, FigureImages } from "../figures/figureImages.js";
import type { CatalogueService } from "../catalogue/catalogueService.js";
import type { Discovery } from "../catalogue/discovery.js";

export interface BillingOutcome {
  mode: AuthContext["billingMode"];
  tokens: number;
  costMicros: bigint;
  /** balance after the request */
  balanceMicros: bigint;
}

/**
 * What a response says about its list beyond the rows: the cursor of the next page, and the sort, cap and work it
 * applied.
 */
export interface ListFields {
  /** null when the list has no further page */
  nextCursor: string | null;
  sorted?: { by: string; minRelevance: number; candidates: number };
  costCap?: { withheld: number; nextRowCostMicros: bigint | null };
  like?: { work: string; collection: string; docId: string; title: string | null };
}

/** What a search or preview call asks beyond the pipeline's input. */
export interface ListRequest {
  /** the nextCursor of an earlier page of the same request */
  cursor?: string;
  /** like.work as sent: the works nearest this one instead of a query */
  like?: string;
}

export interface SearchOutcome {
  queryId: string;
  rows: CachedRow[];
  list: ListFields;
  /** rows held back by min_relevance: neither returned nor charged */
  belowMinRelevance: number;
  latencyMs: number;
  filterWarnings?: unknown[];
  journalMetricExpansions?: unknown[];
  filtersApplied?: unknown;
  billing: BillingOutcome;
  quota: QuotaStatus;
  /**
   * the catalogue's answer to a catalogue question sent without filters (then rows are empty and nothing is charged)
   */
  discovery?: Discovery;
  /**
   * until when GET /results/{queryId} re-fetches these rows free (absent for a catalogue answer, which keeps no rows)
   */
  cachedUntil?: Date;
  /** where the time went: limits and money (admission, charge, record) versus retrieval */
  timings: { billingMs: number; retrievalMs: number };
  /** the dense and hybrid collections searched whose vector backfill runs, with their share; absent when none */
  vectorsBackfilling?: VectorsBackfilling[];
}

export interface PreviewOutcome {
  queryId: string;
  rows: CachedRow[];
  list: ListFields;
  /** rows held back by min_relevance: not previewed, so not unlockable */
  belowMinRelevance: number;
  unlocked: Set<string>;
  filterWarnings?: unknown[];
  journalMetricExpansions?: unknown[];
  filtersApplied?: unknown;
  /** set when the request carried an Idempotency-Key */
  idempotency?: "created" | "replayed";
  /** the catalogue's answer to a catalogue question sent without filters */
  discovery?: Discovery;
}

export interface RefetchOutcome {
  record: QueryRecord;
  unlocked: Set<string>;
  /** row id -> figure id -> base64 image, for unlocked rows when figures were asked for */
  images: FigureImages;
  /** until when it is re-fetched free */
  cachedUntil: Date;
}

export interface ServiceDeps extends SearchDeps {
  db: Db;
  accounts: Accounts;
  clock: () => Date;
  figureImages?: FigureImageRenderer;
  /** answers catalogue questions sent without filters; without it every query is searched */
  catalogue?: CatalogueService;
}

/** Built once by the factory and handed to each operation. */
export interface SearchContext {
  deps: ServiceDeps;
  db: Db;
  accounts: Accounts;
  clock: () => Date;
  /** a price question may name a collection ("is scifact expensive?"), by its name or its display name */
  collectionNames: string[];
}

export function searchContextOf(deps: ServiceDeps): SearchContext {
  const collectionNames = [...deps.catalog.collections, ...deps.catalog.metaCollections].flatMap((c) => [
    c.name,
    c.displayName,
  ]);
  return { deps, db: deps.db, accounts: deps.accounts, clock: deps.clock, collectionNames };
}

export function zeroBilling(auth: AuthContext): BillingOutcome {
  return { mode: auth.billingMode, tokens: 0, costMicros: 0n, balanceMicros: auth.org.balanceMicros };
}

export const loadOwnRecord = (ctx: SearchContext, auth: AuthContext, queryId: string): Promise<QueryRecord> =>
  loadOwnQueryRecord(ctx.db, auth.key.id, queryId, ctx.clock());

/**
 * The rows of a record its key may read in full: a search's all; a preview's those unlocked (a sandbox preview's kept
 * with it).
 */
export async function unlockedFor(ctx: Pick<SearchContext, "accounts">, record: QueryRecord): Promise<Set<string>> {
  if (record.kind !== "preview") return new Set(record.payload.rows.map((r) => r.id));
  if (record.payload.synthetic) return sandboxUnlockedIds(record);
  return ctx.accounts.unlockedIds(record.queryId);
}
