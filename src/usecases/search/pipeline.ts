// The search use case behind /query, /{collection} and /preview: resolve, authorize, retrieve, merge, price.
import { randomUUID } from 'node:crypto';
import type { CatalogEntry, CollectionCatalog, PlainCollection } from '../../domain/catalog.js';
import type { CollectionReadiness } from '../../domain/readiness.js';
import type { Embedder } from '../../embedding/port.js';
import type { FilterNode } from '../../filters/ast.js';
import type { FilterPlan, FilterPlanner } from '../../filters/planner.js';
import type { SearchEngine } from '../../retrieval/port.js';
import type { AuthContext } from '../auth/context.js';
import { pricePer1000For } from '../../domain/pricing.js';
import type { CachedRow } from './queryCache.js';
import { teaserOf } from './queryCache.js';
import { assertSearchableQuery } from './queryValidation.js';
import { Rejection } from '../../domain/rejection.js';
import { didYouMean } from '../../domain/didYouMean.js';
import { chargeLines } from '../../domain/organization.js';
import type { CollectionCharge } from '../../domain/events.js';
import { costForTokens } from '../../domain/money.js';
import { mergeByRelevance, type MergedHit, type RankedList } from '../../retrieval/rerank.js';
import { embedQueryCached } from '../../retrieval/queryVectorCache.js';
import { isFragment } from '../../ingest/chunk.js';
import { checkPinnedDois } from '../../filters/doiReach.js';
import { withoutRetracted, type LiveRetractions } from '../../ingest/liveRetractions.js';
import { EVERY_ROW, firstPerDocument, selectRows, type RowSelection } from '../../retrieval/rowSelection.js';

export type { FilterPlan, FilterPlanner } from '../../filters/planner.js';

export interface SearchDeps {
  catalog: CollectionCatalog;
  engine: SearchEngine;
  embedder: Embedder;
  planFilters?: FilterPlanner;
  /** which collections are still ingesting (first start); without it every collection counts as ready */
  readiness?: CollectionReadiness;
  /** the works retraction lists loaded since ingestion name, excluded where a collection excludes retractions */
  retractions?: Pick<LiveRetractions, 'exclusionFilter'>;
}

export interface SearchRequestInput {
  collections: string[];
  query: string;
  limit: number;
  filters: unknown;
  /** more conditions in the filter language, ANDed with `filters` (assisted search: the constraints read off the query) */
  constraints?: unknown;
  /** false: the caller asked for no metadata, and the query record remembers it for re-fetches (default true) */
  includeMetadata?: boolean;
  /** min_relevance and one_per_document; absent: every row, as ranked */
  selection?: RowSelection;
}

export interface RetrievalOutcome {
  queryId: string;
  rows: CachedRow[];
  /** rows of the list held back because their relevance is below min_relevance (neither returned nor charged) */
  belowMinRelevance: number;
  /** billing lines per requested collection, rounded once per collection */
  lines: CollectionCharge[];
  filterWarnings?: unknown[];
  journalMetricExpansions?: unknown[];
  filtersApplied?: unknown;
  requested: CatalogEntry[];
}

function inKeyScope(auth: AuthContext, entry: CatalogEntry): boolean {
  return !auth.key.collections || auth.key.collections.some((c) => c.toLowerCase() === entry.name.toLowerCase());
}

/** The names of the collections (plain and meta) this key may search: what a misspelled name is matched against. */
export function reachableNames(catalog: CollectionCatalog, auth: AuthContext): string[] {
  return [...catalog.collections, ...catalog.metaCollections].filter((entry) => inKeyScope(auth, entry)).map((entry) => entry.name);
}

/** Resolves requested names and enforces the key's scope (403) and existence (404). */
export function resolveTargets(catalog: CollectionCatalog, auth: AuthContext, names: string[]): { requested: CatalogEntry; physical: PlainCollection[] }[] {
  const seen = new Set<string>();
  const out: { requested: CatalogEntry; physical: PlainCollection[] }[] = [];
  for (const name of names) {
    const entry = catalog.resolveCollection(name);
    if (!entry) throw new Rejection('COLLECTION_NOT_FOUND', `collection "${name}" does not exist.${didYouMean(name, reachableNames(catalog, auth))} GET /api/v1/search/collections lists the ones you can search`);
    if (!inKeyScope(auth, entry)) {
      throw new Rejection('NO_COLLECTION_ACCESS', `this API key cannot reach collection "${entry.name}".${didYouMean(name, reachableNames(catalog, auth))} GET /api/v1/search/collections lists the ones it can`);
    }
    if (seen.has(entry.name)) continue;
    seen.add(entry.name);
    out.push({ requested: entry, physical: catalog.physicalMembers(entry) });
  }
  return out;
}

/**
 * 503 SERVICE_UNAVAILABLE, naming the collection, when a requested collection or a member of a requested
 * meta-collection is still being ingested (or its ingestion failed). Callers check it before they take any budget or
 * charge anything. Names that do not resolve or that the key cannot reach are left to resolveTargets (404/403).
 */
export function assertCollectionsReady(deps: Pick<SearchDeps, 'catalog' | 'readiness'>, auth: AuthContext, names: readonly string[]): void {
  if (!deps.readiness) return;
  const physical = names.flatMap((name) => {
    const entry = deps.catalog.resolveCollection(name);
    return entry && inKeyScope(auth, entry) ? deps.catalog.physicalMembers(entry).map((c) => c.name) : [];
  });
  deps.readiness.assertSearchable(physical);
}

function needsVector(c: PlainCollection): boolean {
  return c.retrieval !== 'sparse';
}

const listKey = (requested: CatalogEntry, collection: PlainCollection): string => `${requested.name}\u0000${collection.name}`;

/** One physical collection to search, under the name it was requested by. */
export interface CollectionSearch {
  key: string;
  collection: PlainCollection;
  /** the compiled filter, or 'skip' when the collection cannot take part */
  filter?: FilterNode | 'skip';
}

/**
 * Searches each physical collection in its own retrieval mode (the query embedded once, and only when a mode needs
 * it) and merges the lists with the reranker. A fragment (an isolated heading) is never returned, even from an index
 * built before the chunker dropped them. An engine or model that fails answers 503 SERVICE_UNAVAILABLE.
 */
export async function searchCollections(deps: Pick<SearchDeps, 'engine' | 'embedder'>, searches: readonly CollectionSearch[], query: string, limit: number): Promise<MergedHit[]> {
  let vector: Float32Array | undefined;
  if (searches.some((s) => s.filter !== 'skip' && needsVector(s.collection))) {
    try {
      vector = await embedQueryCached(deps.embedder, query);
    } catch (err) {
      throw Object.assign(new Rejection('SERVICE_UNAVAILABLE', 'the embedding model is not answering right now; nothing was charged, retry shortly', { retryAfterSeconds: 5 }), { cause: err });
    }
  }
  const lists = await Promise.all(
    searches.map(async ({ key, collection, filter }): Promise<RankedList> => {
      const mode = collection.retrieval;
      if (filter === 'skip') return { key, source: collection.name, mode, hits: [] };
      try {
        const hits = await deps.engine.search({ index: collection.name, mode, text: query, vector: needsVector(collection) ? vector : undefined, limit, filter });
        return { key, source: collection.name, mode, hits: hits.filter((hit) => !isFragment(hit.chunk.text, hit.chunk.tokens)) };
      } catch (err) {
        // the engine's own words stay in the log (the error's cause): they name its internals, and a caller cannot act on them
        if (err instanceof Rejection) throw err;
        throw Object.assign(new Rejection('SERVICE_UNAVAILABLE', `search is temporarily unavailable (${collection.name}); nothing was charged, retry shortly`, { retryAfterSeconds: 5 }), { cause: err });
      }
    }),
  );
  return mergeByRelevance(lists, limit);
}

/**
 * A collection that excludes retractions also drops the works retraction lists loaded after its ingestion name (the
 * engine filters them, so a page keeps its length); ingestion dropped those of the lists it read.
 */

async function planOf(deps: SearchDeps, filters: unknown, targets: ReturnType<typeof resolveTargets>): Promise<FilterPlan | undefined> {
  if (filters == null) return undefined;
  if (!deps.planFilters) throw new Rejection('INVALID_FILTER', 'filters are not supported by this deployment', { field: null, filter: filters });
  return deps.planFilters(filters, targets);
}

/** The request's filters and its constraints, each planned on its own (they may be written in different formats) and ANDed per collection. */
async function planBoth(deps: SearchDeps, input: SearchRequestInput, targets: ReturnType<typeof resolveTargets>): Promise<FilterPlan | undefined> {
  const [filters, constraints] = [await planOf(deps, input.filters, targets), await planOf(deps, input.constraints, targets)];
  if (!constraints) return filters;
  if (!filters) return { ...constraints, filterWarnings: [], journalMetricExpansions: [], filtersApplied: undefined };
  const perCollection = new Map<string, FilterNode | 'skip' | undefined>();
  for (const name of new Set([...filters.perCollection.keys(), ...constraints.perCollection.keys()])) {
    const both = [filters.perCollection.get(name), constraints.perCollection.get(name)];
    if (both.includes('skip')) perCollection.set(name, 'skip');
    else {
      const nodes = both.filter((n): n is FilterNode => n !== undefined && n !== 'skip');
      perCollection.set(name, nodes.length > 1 ? { kind: 'and', children: nodes } : nodes[0]);
    }
  }
  return { ...filters, perCollection };
}

/** What a search settles before it runs: the collections it may search and its filters, planned per collection. */
export interface PreparedRetrieval {
  targets: ReturnType<typeof resolveTargets>;
  plan: FilterPlan | undefined;
}

/**
 * The checks of a search that need no budget: a searchable query, collections the key may reach that exist, filters
 * that apply, and collections that are ready (403, 404, 422, 503, in that order). The use cases run them before they take a per-minute slot, a
 * preview of the hour or a query of the quota, so a refused request uses none of those.
 */
export async function prepareRetrieval(deps: SearchDeps, auth: AuthContext, input: SearchRequestInput): Promise<PreparedRetrieval> {
  assertSearchableQuery(input.query);
  const targets = resolveTargets(deps.catalog, auth, input.collections);
  // filters are checked against the collections' configuration, not their contents: a filter refused once is refused
  // the same way while a collection ingests and once it is ready (422 before the 503)
  const plan = await planBoth(deps, input, targets);
  assertCollectionsReady(deps, auth, input.collections);
  return { targets, plan };
}

/** Chunks searched for a one-per-document list: three per row wanted at first, three times more while documents repeat, at most this many. */
export const MAX_DOCUMENT_DEPTH = 270;

/** One physical collection's search as `retrieve` runs it: under which requested entry. */
interface TargetList extends CollectionSearch {
  requested: CatalogEntry;
}

/**
 * The merged hits as rows, best first: the first `limit` chunks; with one_per_document, enough chunks that `limit`
 * documents stand among them when the collections hold that many (deeper searches while documents repeat, up to
 * MAX_DOCUMENT_DEPTH chunks, never past the relevance threshold, under which nothing more would be delivered).
 */
async function rankedRows(deps: SearchDeps, auth: AuthContext, lists: readonly TargetList[], input: SearchRequestInput, selection: RowSelection): Promise<CachedRow[]> {
  const byKey = new Map(lists.map((l) => [l.key, l]));
  const rowOf = ({ listKey: key, hit, relevance }: MergedHit): CachedRow => {
    const l = byKey.get(key)!;
    const price = pricePer1000For(auth.org, l.collection);
    const metadata = { ...hit.chunk.metadata };
    if (l.collection.openAccessOnly) metadata.open_access = true;
    return {
      id: hit.id,
      collection: l.requested.name,
      physical: l.collection.name,
      text: hit.chunk.text,
      teaser: teaserOf(hit.chunk.text),
      metadata,
      relevance,
      tokens: hit.chunk.tokens,
      costMicros: costForTokens(hit.chunk.tokens, price).toString(),
      pricePer1000Micros: price.toString(),
      figureCount: Array.isArray(metadata.figures) ? metadata.figures.length : 0,
    };
  };
  let depth = selection.onePerDocument ? Math.min(MAX_DOCUMENT_DEPTH, input.limit * 3) : input.limit;
  for (;;) {
    const merged = await searchCollections(deps, lists, input.query, depth);
    const rows = merged.map(rowOf);
    if (!selection.onePerDocument) return rows;
    const last = merged[merged.length - 1];
    const exhausted = merged.length < depth || depth >= MAX_DOCUMENT_DEPTH || (last !== undefined && last.relevance < selection.minRelevance);
    if (exhausted || firstPerDocument(rows, (row) => row, input.limit).length >= input.limit) return rows;
    depth = Math.min(MAX_DOCUMENT_DEPTH, depth * 3);
  }
}

export async function retrieve(deps: SearchDeps, auth: AuthContext, input: SearchRequestInput, prepared?: PreparedRetrieval): Promise<RetrievalOutcome> {
  const { targets, plan } = prepared ?? (await prepareRetrieval(deps, auth, input));
  const selection = input.selection ?? EVERY_ROW;

  const retracted = await deps.retractions?.exclusionFilter();
  const lists: TargetList[] = targets.flatMap((t) =>
    t.physical.map((collection) => ({ key: listKey(t.requested, collection), requested: t.requested, collection, filter: withoutRetracted(collection, plan?.perCollection.get(collection.name), retracted) })),
  );
  // best effort beside the search, within its own time budget (spec: doi_not_in_collection)
  const doiWarnings = plan?.pinnedDois?.length
    ? checkPinnedDois({ engine: deps.engine, catalog: deps.catalog, keyScope: auth.key.collections, searched: lists.filter((l) => l.filter !== 'skip').map((l) => l.collection.name), dois: plan.pinnedDois })
    : Promise.resolve([]);
  // only the rows delivered are priced into the charge: those held back by the threshold or as a document's second chunk are not
  const { rows, belowMinRelevance } = selectRows(await rankedRows(deps, auth, lists, input, selection), selection, input.limit);
  const filterWarnings = plan ? [...plan.filterWarnings, ...(await doiWarnings)] : [];
  const lines = chargeLines(rows.map((r) => ({ collection: r.collection, tokens: r.tokens, pricePer1000Micros: BigInt(r.pricePer1000Micros) })));
  return {
    queryId: randomUUID(),
    rows,
    belowMinRelevance,
    lines,
    filterWarnings: filterWarnings.length > 0 ? filterWarnings : undefined,
    journalMetricExpansions: plan && plan.journalMetricExpansions.length > 0 ? plan.journalMetricExpansions : undefined,
    filtersApplied: plan ? plan.filtersApplied : undefined,
    requested: targets.map((t) => t.requested),
  };
}
