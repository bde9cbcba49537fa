// Facets of works (POST /api/v1/works/facets, MCP work_facets): how many works per year, journal, subject, author,
// article type, open access and integrity status, over a collection under filters or over the works a query's ranked
// list holds above the recommended relevance threshold. Free, one query of the daily and monthly quota and one slot of
// the per-minute budget. The engines hand over the works (listDocuments, or the search pipeline's ranked list); one
// pure function counts them (facetCounts.ts), so both engines answer the same counts.
import { createHash, randomUUID } from "node:crypto";
import type { Db } from "../../eventstore/db.js";
import type { FilterWarning } from "../../filters/warnings.js";
import { runStreamCommandInOneRead } from "../../../projections/streamCommand.js";
import { worksFacetsStream } from "../../domain/events.js";
import { Rejection } from "../../domain/rejection.js";
import { RECOMMENDED_MIN_RELEVANCE } from "../../retrieval/relevance.js";
import type { AuthContext } from "../auth/context.js";
import { assertQueryQuota, guarded, takeMinuteBudget, usageColumns, usageOfRow } from "../limits/quotas.js";
import {
  prepareRetrieval,
  rankedListRows,
  targetListsOf,
  type PreparedRetrieval,
  type SearchDeps,
} from "../search/pipeline.js";
import type { Integrity } from "../../domain/integrity.js";
import { rowsWithIntegrity, type IntegrityOf, type NoticedWorks } from "./integrityRows.js";
import type { FilterNode } from "../../filters/ast.js";
import { manifestKey } from "../../ingest/manifest.js";
import {
  countFacets,
  distinctWorks,
  FACET_FIELDS,
  FACET_QUERY_DEPTH_CHUNKS,
  FACET_QUERY_MAX_WORKS,
  integrityBuckets,
  worksOfRankedList,
  cutListCounts,
  type FacetBucket,
  type FacetCounts,
  type FacetDocument,
  type FacetName,
} from "./facetCounts.js";
import { decideFacets } from "./facetsFacts.js";
import { ENGINE_FACETS, type EngineFacet } from "../../retrieval/workFacetValues.js";

export interface FacetsRequest {
  /** 1 to 5 collection or meta-collection names */
  collections: string[];
  /** absent: every work of the collections under the filters */
  query?: string;
  filters?: unknown;
  facets: FacetName[];
  /** buckets per facet */
  limit: number;
}

export interface FacetsAnswer extends FacetCounts {
  /** which works were counted: the collections under the filters, or a query's ranked list (its threshold, depth) */
  counted: { by: "collection" } | { by: "query"; minRelevance: number; maxWorks: number; chunksRead: number };
  filtersApplied?: unknown;
  filterWarnings?: FilterWarning[];
  synthetic?: true;
}

interface WorkFacetsDeps {
  search: SearchDeps;
  db: Db;
  integrity: IntegrityOf;
  /** the works a notice may name, by collection: without it the integrity facet lists every work counted */
  noticed?: NoticedWorks;
  clock: () => Date;
}

/** The most works a notice may name that the integrity facet lists in one engine request; more: every work listed. */
const MAX_NOTICED_WORKS = 10_000;

export function createWorkFacets(deps: WorkFacetsDeps) {
  const { db, clock } = deps;

  /** The works a request counts, one per work: a query's ranked list, or every document the filters keep. */
  async function worksOf(auth: AuthContext, prepared: PreparedRetrieval, query: string | undefined) {
    if (query !== undefined) {
      // the list through each collection's FACET_QUERY_MAX_WORKS-th document first: the engine fetches and re-scores
      // only those rows, the same works whenever cutListCounts says so; else the list to its full depth
      const depth = FACET_QUERY_DEPTH_CHUNKS;
      const cut = await rankedListRows(deps.search, auth, prepared, query, depth, FACET_QUERY_MAX_WORKS);
      const works = worksOfRankedList(cut, RECOMMENDED_MIN_RELEVANCE, FACET_QUERY_MAX_WORKS);
      if (cutListCounts(cut, works.length, RECOMMENDED_MIN_RELEVANCE, FACET_QUERY_MAX_WORKS)) return works;
      const rows = await rankedListRows(deps.search, auth, prepared, query, depth);
      return worksOfRankedList(rows, RECOMMENDED_MIN_RELEVANCE, FACET_QUERY_MAX_WORKS);
    }
    const lists = await targetListsOf(deps.search, prepared);
    const perCollection = await Promise.all(
      lists.map(async ({ collection, filter }): Promise<FacetDocument[]> => {
        if (filter === "skip") return [];
        const documents = await unavailableUnless(collection.name, () =>
          deps.search.engine.listDocuments(collection.name, filter, FACET_FIELDS),
        );
        return documents.map((metadata) => ({
          physical: collection.name,
          metadata: collection.openAccessOnly ? { ...metadata, open_access: true } : metadata,
        }));
      }),
    );
    // the collections in the order requested: a work held by two is counted as the first holds it
    return distinctWorks(perCollection.flat());
  }

  /** A request's counts: the engine's own where it counts them exactly, else the listed works counted in Node. */
  async function countsOf(
    auth: AuthContext,
    prepared: PreparedRetrieval,
    request: FacetsRequest,
    facets: readonly FacetName[],
  ): Promise<FacetCounts> {
    const own = request.query === undefined ? await engineCounts(deps, prepared, facets, request.limit) : null;
    return own ?? countListed(await worksOf(auth, prepared, request.query), facets, request.limit, deps.integrity);
  }

  /**
   * One query of the quota, re-checked under the append lock: the event that counts it. Today's and this month's
   * queries, the append head and the usage rows the event's projection moves are read in one statement.
   */
  async function record(auth: AuthContext, request: FacetsRequest, names: string[], requestId?: string) {
    const facetsId = randomUUID();
    await runStreamCommandInOneRead(
      db,
      clock,
      worksFacetsStream(facetsId),
      { kind: "key", id: auth.key.id },
      {
        columns: (param, at) => usageColumns(auth.org.id, at, param),
        touches: (at) => [{ orgId: auth.org.id, keyId: auth.key.id, at: at.toISOString() }],
        state: usageOfRow,
      },
      (usage, at) => ({
        version: 0,
        events: decideFacets(
          {
            type: "RecordWorksFacets",
            orgId: auth.org.id,
            keyId: auth.key.id,
            facetsId,
            collections: names,
            facets: [...request.facets],
            query: request.query !== undefined,
          },
          { limits: auth.org.limits, usage },
          at,
        ),
      }),
      requestId ? { requestId } : {},
    );
  }

  return {
    async facets(auth: AuthContext, request: FacetsRequest, requestId?: string): Promise<FacetsAnswer> {
      const facets = [...new Set(request.facets)];
      // 422 (query, filters), 404, 403 and 503 before any budget, as a search settles them
      const prepared = await prepareRetrieval(
        deps.search,
        auth,
        { collections: request.collections, query: request.query ?? "", limit: 1, filters: request.filters },
        { withoutQuery: request.query === undefined },
      );
      const now = clock();
      await takeMinuteBudget(db, auth.org, now);
      const names = prepared.targets.map((t) => t.requested.name);
      const countedBy: FacetsAnswer["counted"] =
        request.query === undefined
          ? { by: "collection" }
          : {
              by: "query",
              minRelevance: RECOMMENDED_MIN_RELEVANCE,
              maxWorks: FACET_QUERY_MAX_WORKS,
              chunksRead: FACET_QUERY_DEPTH_CHUNKS,
            };
      const applied = prepared.plan
        ? {
            filtersApplied: prepared.plan.filtersApplied,
            ...(prepared.plan.filterWarnings.length > 0
              ? { filterWarnings: prepared.plan.filterWarnings as FilterWarning[] }
              : {}),
          }
        : {};
      // a sandbox key: synthetic buckets in the live shape, no quota, no event
      if (auth.billingMode === "sandbox")
        return { ...syntheticFacets(request, names, facets), counted: countedBy, ...applied, synthetic: true };
      // the count beside the quota's read, neither waiting for the other (the per-minute slot taken above bounds what
      // refused requests cost the engine): a request past the quota is refused all the same, its count dropped
      const counting = countsOf(auth, prepared, request, facets);
      counting.catch(() => undefined);
      await guarded("the quota store", () => assertQueryQuota(db, auth.org, now));
      const counted = await counting;
      await record(auth, { ...request, facets }, names, requestId);
      return { ...counted, counted: countedBy, ...applied };
    },
  };
}

export type WorkFacets = ReturnType<typeof createWorkFacets>;

/**
 * Without a query, over one collection: the facets the engine counts itself, over each document's first chunk (an
 * aggregation, a per-work table), and the integrity facet from the works a notice may name (integrityOver), without
 * listing every work. Null when the engine cannot answer exactly, or several collections are counted (a work two
 * hold is counted once: by listing them).
 */
async function engineCounts(
  deps: WorkFacetsDeps,
  prepared: PreparedRetrieval,
  facets: readonly FacetName[],
  limit: number,
): Promise<FacetCounts | null> {
  const asked = facets.filter(isEngineFacet);
  const integrity = facets.includes("integrity");
  if (asked.length + (integrity ? 1 : 0) !== facets.length || (integrity && !deps.noticed)) return null;
  const lists = (await targetListsOf(deps.search, prepared)).filter((l) => l.filter !== "skip");
  if (lists.length !== 1) return null;
  const { collection, filter } = lists[0]!;
  const narrowed = filter === "skip" ? undefined : filter;
  const counts = await unavailableUnless(collection.name, () =>
    deps.search.engine.facetCounts(collection.name, narrowed, asked, limit),
  );
  if (!counts) return null;
  // an open-access collection: every work it holds is open access, whatever its record says
  if (counts.facets.open_access && collection.openAccessOnly)
    counts.facets.open_access = counts.total > 0 ? [{ value: "true", count: counts.total }] : [];
  if (!integrity) return counts;
  const buckets = await integrityOver(deps, collection.name, narrowed, counts.total, limit);
  if (!buckets) return null;
  return { total: counts.total, facets: ordered({ ...counts.facets, integrity: buckets }, facets) };
}

/**
 * The integrity facet over the `total` works of one collection under a filter: only a work a notice may name can be
 * other than none (NoticedWorks), so those the filter keeps are listed (one engine request) and given their status
 * by the rule, as listed works are; the rest are none. Null when there are more than MAX_NOTICED_WORKS of them.
 */
async function integrityOver(
  deps: WorkFacetsDeps,
  collection: string,
  filter: FilterNode | undefined,
  total: number,
  limit: number,
): Promise<FacetBucket[] | null> {
  const noticed = await deps.noticed!(manifestKey(deps.search.engine.kind, collection));
  if (noticed.length > MAX_NOTICED_WORKS) return null;
  const dois = [...new Set(noticed.flatMap((w) => (w.doi ? [w.doi] : [])))];
  const pmids = [...new Set(noticed.flatMap((w) => (w.pmid ? [w.pmid] : [])))];
  const named: FilterNode[] = [
    ...(dois.length > 0 ? [{ kind: "in" as const, field: "doi", values: dois }] : []),
    ...(pmids.length > 0 ? [{ kind: "in" as const, field: "pmid", values: pmids }] : []),
  ];
  let works: FacetDocument[] = [];
  if (named.length > 0) {
    const either: FilterNode = named.length === 1 ? named[0]! : { kind: "or", children: named };
    const documents = await unavailableUnless(collection, () =>
      deps.search.engine.listDocuments(
        collection,
        filter ? { kind: "and", children: [filter, either] } : either,
        INTEGRITY_FIELDS,
      ),
    );
    works = distinctWorks(documents.map((metadata) => ({ physical: collection, metadata })));
  }
  const statusOf = await worksIntegrity(works, ["integrity"], deps.integrity);
  return integrityBuckets(
    works.map((w) => statusOf(w)?.status ?? "none"),
    total,
    limit,
  );
}

/** The listed works counted in Node (facetCounts.ts), with their integrity when that facet is asked for. */
async function countListed(
  works: readonly FacetDocument[],
  facets: readonly FacetName[],
  limit: number,
  integrity: IntegrityOf,
): Promise<FacetCounts> {
  return countFacets(works, facets, limit, await worksIntegrity(works, facets, integrity));
}

const isEngineFacet = (facet: FacetName): facet is EngineFacet => (ENGINE_FACETS as readonly string[]).includes(facet);

/** The fields the integrity rule reads of a listed work. */
const INTEGRITY_FIELDS = ["doi", "pmid"] as const;

/** The buckets in the order the facets were asked, as every count answers them. */
function ordered(facets: FacetCounts["facets"], asked: readonly FacetName[]): FacetCounts["facets"] {
  const out: FacetCounts["facets"] = {};
  for (const name of asked) if (facets[name]) out[name] = facets[name];
  return out;
}

/**
 * Each work's integrity as a row of it is given it (by its DOI or PMID: rowsWithIntegrity), read only when the
 * integrity facet is asked for.
 */
export async function worksIntegrity(
  works: readonly FacetDocument[],
  facets: readonly FacetName[],
  integrity: IntegrityOf,
): Promise<(work: FacetDocument) => Integrity | undefined> {
  if (!facets.includes("integrity")) return () => undefined;
  const rows = await rowsWithIntegrity(works, integrity);
  const found = new Map(works.map((w, i) => [w, rows[i]!.metadata.integrity as Integrity]));
  return (work) => found.get(work);
}

/** An engine that does not answer: 503, nothing counted. */
async function unavailableUnless<T>(collection: string, run: () => Promise<T>): Promise<T> {
  try {
    return await run();
  } catch (err) {
    throw Object.assign(
      new Rejection(
        "SERVICE_UNAVAILABLE",
        `facets are temporarily unavailable (${collection}); nothing was counted, retry shortly`,
        { retryAfterSeconds: 5 },
      ),
      { cause: err },
    );
  }
}

/** A sandbox key's facets: deterministic from the request, synthetic values, the live shape and limits. */
export function syntheticFacets(request: FacetsRequest, names: string[], facets: readonly FacetName[]): FacetCounts {
  const digest = createHash("sha256")
    .update(JSON.stringify([names, request.query ?? null]))
    .digest();
  const total = 20 + (digest[0]! % 30);
  const values: Record<FacetName, string[]> = {
    publication_year: ["2021", "2019", "2015"],
    journal: ["Sandbox Journal of Synthetic Results", "Synthetic Reports"],
    subject: ["Synthetic subject A", "Synthetic subject B"],
    author: ["Sandbox A", "Sandbox B"],
    article_type: ["research_article", "review"],
    open_access: ["true", "false"],
    integrity: ["none"],
  };
  const out: FacetCounts = { total, facets: {} };
  for (const facet of facets) {
    let left = total;
    const buckets: FacetBucket[] = values[facet].map((value, i, all) => {
      const count = i === all.length - 1 ? left : Math.ceil(left / 2);
      left -= count;
      return { value, count };
    });
    out.facets[facet] = buckets.filter((b) => b.count > 0).slice(0, request.limit);
  }
  return out;
}
