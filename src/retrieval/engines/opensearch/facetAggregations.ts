// works/facets on OpenSearch: the counts of one collection's works under a filter from ONE aggregation request over
// each document's first chunk (size 0, the filter and chunk_index 0 as the query, track_total_hits), on the exact
// `work_facets` keywords written at ingestion (chunkDocuments.ts). One chunk per work is the exact method: a document's
// first chunk carries its document-level metadata, so no cardinality estimate is needed.
import { compileToOpenSearch } from "../../../filters/compileToOpenSearch.js";
import type { FilterNode } from "../../../filters/ast.js";
import {
  authorBuckets,
  authorEntryOf,
  byCountThenValue,
  joiningLinks,
  SAME_PERSON_LINK,
  type EngineFacet,
  type EngineFacetBucket,
  type EngineFacetCounts,
} from "../../workFacetValues.js";
import { authorFacetByPerson, orcidRoleAggregations, peopleAggregation, type PeopleResponse } from "./authorPeople.js";
import { DEFAULT_INDEX_LAYOUT, FIELD, FIRST_CHUNKS, type IndexLayout } from "./indexMapping.js";
import type { SearchEngine } from "../../port.js";
import type { Transport } from "./transport.js";
import { isDocumentLevelFilter } from "../../workFacetValues.js";

/**
 * the aggregations telling whether two counted documents share a DOI or a PMID (then they are one work: counted in
 * Node, which joins documents by either: rowSelection.ts workKeysOf)
 */
const SHARED_DOI = "shared_doi";
const SHARED_PMID = "shared_pmid";
/** the aggregation counting works two of whose author entries share an id or an ORCID (then counted in Node) */
const SAME_PERSON = "author_same_person";
/**
 * The most author entries (distinct name, id, ORCID) one request reads: every entry of the counted works is read, since
 * merging ORCID-only entries into their person can lift a person into the top buckets; more (a collection of over
 * 50,000 authors) leaves the author facet to the listed works. Under OpenSearch's default search.max_buckets (65,535).
 */
const MAX_AUTHOR_ENTRIES = 50_000;

/**
 * The request body. A terms aggregation on one shard is exact (the adapter's indexes have one unless
 * OPENSEARCH_SHARDS says otherwise: then the caller counts the listed documents). Each facet asks for `limit` + 1
 * buckets so the code-unit order of ties (OpenSearch orders keys by UTF-8 bytes) can be settled here.
 */
export function facetAggregationBody(
  filter: FilterNode | undefined,
  facets: readonly EngineFacet[],
  limit: number,
  authors: "by entry" | "by person" = "by entry",
): Record<string, unknown> {
  const aggs: Record<string, unknown> = {
    [SHARED_DOI]: { terms: { field: `${FIELD.metadata}.doi`, min_doc_count: 2, size: 1 } },
    [SHARED_PMID]: { terms: { field: `${FIELD.metadata}.pmid`, min_doc_count: 2, size: 1 } },
  };
  for (const facet of facets) {
    const terms = { field: `${FIELD.workFacets}.${facet}`, size: facet === "author" ? MAX_AUTHOR_ENTRIES : limit + 1 };
    if (facet === "author")
      aggs[SAME_PERSON] = { filter: { term: { [`${FIELD.workFacets}.author_links`]: SAME_PERSON_LINK } } };
    if (facet === "author" && authors === "by person") Object.assign(aggs, orcidRoleAggregations());
    aggs[facet] =
      facet === "author" && authors === "by person"
        ? peopleAggregation(limit + 1)
        : facet === "journal"
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
  aggregations: Record<string, { buckets: TermsBucket[]; sum_other_doc_count?: number; doc_count?: number }>;
}

/**
 * The author facet from its entries' counts: null when a counted work has two entries of one person (authorLinks: a
 * shared id or ORCID, or a link the counted works' ORCIDs resolve), or there are more entries than one request reads.
 * `linked` asks how many counted works carry any of the links given.
 */
async function authorFacetOf(
  body: FacetAggregationResponse,
  limit: number,
  linked: (links: string[]) => Promise<number>,
): Promise<EngineFacetBucket[] | null> {
  const entries = body.aggregations.author;
  if (!entries || (entries.sum_other_doc_count ?? 0) > 0 || (body.aggregations[SAME_PERSON]?.doc_count ?? 0) > 0)
    return null;
  const weighted = entries.buckets.map((b) => ({ entries: [authorEntryOf(b.key)], weight: b.doc_count }));
  const links = joiningLinks(weighted.map((w) => w.entries[0]!));
  if (links.length > 0 && (await linked(links)) > 0) return null;
  return authorBuckets(weighted).sort(byCountThenValue).slice(0, limit);
}

/** The body counting the works under the filter that pass `also` too, with these aggregations. */
function countedWorksBody(
  filter: FilterNode | undefined,
  also: unknown[],
  aggs: Record<string, unknown> = {},
): Record<string, unknown> {
  return {
    size: 0,
    track_total_hits: true,
    query: { bool: { filter: [...(filter ? [compileToOpenSearch(filter)] : []), FIRST_CHUNKS, ...also] } },
    aggs,
  };
}

/**
 * The counts, or null when two counted documents share a DOI or a PMID (one work the caller counts once by listing
 * them).
 */
export function facetCountsOf(
  body: FacetAggregationResponse,
  facets: readonly EngineFacet[],
  limit: number,
): EngineFacetCounts | null {
  if ([SHARED_DOI, SHARED_PMID].some((name) => (body.aggregations[name]?.buckets.length ?? 0) > 0)) return null;
  const out: EngineFacetCounts = { total: body.hits.total.value, facets: {} };
  for (const facet of facets) {
    if (facet === "author") {
      out.facets.author = []; // authorFacetOf's, in the order asked (as every count answers its facets)
      continue;
    }
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
 * Which work_facets an index's first chunks all carry: none (written before mapping version 4), all but the author
 * entries (version 4), the author entries but not their people (`_meta.workFacetAuthors`, version 5), or all
 * (`_meta.workFacetPeople`, version 6).
 */
type FacetFields = "none" | "some" | "author" | "people";

/**
 * SearchEngine.facetCounts on OpenSearch: null for an index written before its first chunks carried work_facets
 * (its `_meta`, read until it says every field is there; a missing index throws as a search does), or before they
 * carried author entries when the author facet is asked, split into several shards (terms aggregations are then
 * approximate), or under a chunk-level filter; else one aggregation request (and, for the author facet when the counted
 * works' ORCIDs could join two entries of one work, a second counting the works that would).
 */
export function facetCountsOver(
  call: Transport["call"],
  indexName: (index: string) => string,
  layout: IndexLayout = DEFAULT_INDEX_LAYOUT,
): SearchEngine["facetCounts"] {
  const withFacets = new Map<string, FacetFields>();
  async function facetFields(name: string): Promise<FacetFields> {
    const known = withFacets.get(name);
    if (known === "people") return known;
    const { body } = await call<Record<string, { mappings: { _meta?: Record<string, unknown> } }>>(
      "GET",
      `/${name}/_mapping`,
    );
    const meta = body[name]?.mappings._meta;
    const fields: FacetFields =
      meta?.workFacets !== true
        ? "none"
        : meta.workFacetPeople === true
          ? "people"
          : meta.workFacetAuthors === true
            ? "author"
            : "some";
    withFacets.set(name, fields);
    return fields;
  }
  return async (index, filter, facets, limit) => {
    const name = indexName(index);
    if (layout.shards > 1 || !isDocumentLevelFilter(filter)) return null;
    const fields = await facetFields(name);
    if (fields === "none" || (fields === "some" && facets.includes("author"))) return null;
    const search = <T>(body: Record<string, unknown>) =>
      call<T>("POST", `/${name}/_search?allow_partial_search_results=false`, body);
    const authors = fields === "people" ? "by person" : "by entry";
    const { body } = await search<FacetAggregationResponse>(facetAggregationBody(filter, facets, limit, authors));
    const counts = facetCountsOf(body, facets, limit);
    if (!counts || !facets.includes("author")) return counts;
    const byEntry = async (first: FacetAggregationResponse) =>
      authorFacetOf(first, limit, async (links) => {
        const linked = await search<FacetAggregationResponse>(
          countedWorksBody(filter, [{ terms: { [`${FIELD.workFacets}.author_links`]: links } }]),
        );
        return linked.body.hits.total.value;
      });
    let author =
      authors === "by person"
        ? await authorFacetByPerson(body, SAME_PERSON, limit, async (also, aggs) => {
            return (await search<PeopleResponse>(countedWorksBody(filter, also, aggs))).body;
          })
        : await byEntry(body);
    if (author === "by entry")
      author = await byEntry(
        (await search<FacetAggregationResponse>(facetAggregationBody(filter, ["author"], limit))).body,
      );
    if (!author) return null;
    counts.facets.author = author;
    return counts;
  };
}
