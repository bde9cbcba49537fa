// works/facets on OpenSearch: the counts of one collection's works under a filter from ONE aggregation request over
// each document's first chunk (size 0, the filter and chunk_index 0 as the query, track_total_hits), on the exact
// `work_facets` keywords written at ingestion (chunkDocuments.ts). One chunk per work is the exact method: a document's
// first chunk carries its document-level metadata, so no cardinality estimate is needed.
import { compileToOpenSearch } from "../../../filters/compileToOpenSearch.js";
import type { FilterNode } from "../../../filters/ast.js";
import {
  byCountThenValue,
  type EngineFacet,
  type EngineFacetBucket,
  type EngineFacetCounts,
} from "../../workFacetValues.js";
import { DEFAULT_INDEX_LAYOUT, FIELD, FIRST_CHUNKS, type IndexLayout } from "./indexMapping.js";
import type { SearchEngine } from "../../port.js";
import type { Transport } from "./transport.js";
import { isDocumentLevelFilter } from "../../workFacetValues.js";

/** the aggregation telling whether two counted documents share a DOI (then they are one work: counted in Node) */
const SHARED_DOI = "shared_doi";

/**
 * The request body. A terms aggregation on one shard is exact (the adapter's indexes have one unless
 * OPENSEARCH_SHARDS says otherwise: then the caller counts the listed documents). Each facet asks for `limit` + 1
 * buckets so the code-unit order of ties (OpenSearch orders keys by UTF-8 bytes) can be settled here.
 */
export function facetAggregationBody(
  filter: FilterNode | undefined,
  facets: readonly EngineFacet[],
  limit: number,
): Record<string, unknown> {
  const aggs: Record<string, unknown> = {
    [SHARED_DOI]: { terms: { field: `${FIELD.metadata}.doi`, min_doc_count: 2, size: 1 } },
  };
  for (const facet of facets) {
    const terms = { field: `${FIELD.workFacets}.${facet}`, size: limit + 1 };
    aggs[facet] =
      facet === "journal"
        ? {
            terms,
            aggs: { issn: { terms: { field: `${FIELD.workFacets}.issn`, size: 1, order: { _key: "asc" } } } },
          }
        : { terms };
  }
  return {
    size: 0,
    track_total_hits: true,
    query: { bool: { filter: [...(filter ? [compileToOpenSearch(filter)] : []), FIRST_CHUNKS] } },
    aggs,
  };
}

interface TermsBucket {
  key: string;
  doc_count: number;
  issn?: { buckets: Array<{ key: string }> };
}

export interface FacetAggregationResponse {
  hits: { total: { value: number } };
  aggregations: Record<string, { buckets: TermsBucket[] }>;
}

/** The counts, or null when two counted documents share a DOI (one work the caller counts once by listing them). */
export function facetCountsOf(
  body: FacetAggregationResponse,
  facets: readonly EngineFacet[],
  limit: number,
): EngineFacetCounts | null {
  if ((body.aggregations[SHARED_DOI]?.buckets.length ?? 0) > 0) return null;
  const out: EngineFacetCounts = { total: body.hits.total.value, facets: {} };
  for (const facet of facets) {
    out.facets[facet] = (body.aggregations[facet]?.buckets ?? [])
      .map((b): EngineFacetBucket => {
        const issn = b.issn?.buckets[0]?.key;
        return issn === undefined
          ? { value: b.key, count: b.doc_count }
          : { value: b.key, count: b.doc_count, id: issn };
      })
      .sort(byCountThenValue)
      .slice(0, limit);
  }
  return out;
}

/**
 * SearchEngine.facetCounts on OpenSearch: null for an index written before its first chunks carried work_facets
 * (its `_meta.workFacets`, read once and kept once true; a missing index throws as a search does), split into several
 * shards (terms aggregations are then approximate), or under a chunk-level filter; else one aggregation request.
 */
export function facetCountsOver(
  call: Transport["call"],
  indexName: (index: string) => string,
  layout: IndexLayout = DEFAULT_INDEX_LAYOUT,
): SearchEngine["facetCounts"] {
  const withFacets = new Set<string>();
  async function hasFacetFields(name: string): Promise<boolean> {
    if (withFacets.has(name)) return true;
    const { body } = await call<Record<string, { mappings: { _meta?: { workFacets?: unknown } } }>>(
      "GET",
      `/${name}/_mapping`,
    );
    if (body[name]?.mappings._meta?.workFacets !== true) return false;
    withFacets.add(name);
    return true;
  }
  return async (index, filter, facets, limit) => {
    const name = indexName(index);
    if (layout.shards > 1 || !isDocumentLevelFilter(filter) || !(await hasFacetFields(name))) return null;
    const { body } = await call<FacetAggregationResponse>(
      "POST",
      `/${name}/_search?allow_partial_search_results=false`,
      facetAggregationBody(filter, facets, limit),
    );
    return facetCountsOf(body, facets, limit);
  };
}
