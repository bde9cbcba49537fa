// The author facet on OpenSearch counted by person (mapping version 6, authorPeopleValues): a terms aggregation of the
// counted works' people, `limit` + 1 buckets with each one's spellings, where counting by entry read every author entry
// of the counted works (tens of thousands of buckets: 0.5 to 1 s at 10,000 works) and merged them in Node. The counts
// are authorBuckets' exactly when no counted work names one person twice and no ORCID-only entry's ORCID is paired
// with an id in the counted works (then authorBuckets would resolve it to that id): the first is the same-person count
// the request already asks, the second is checked by two filter counts, and only when both are non-zero by the ORCIDs
// themselves. Where resolution could join people, the caller counts by entry as before.
import {
  byCountThenValue,
  ORCID_ONLY,
  ORCID_PAIRED,
  PERSON_NAME_SEPARATOR,
  personBucket,
  type EngineFacetBucket,
} from "../../workFacetValues.js";
import { FIELD } from "./indexMapping.js";

/** the aggregations counting the works with an ORCID-only entry, and those with an ORCID paired with an id */
const ORCID_ONLY_WORKS = "author_orcid_only";
const ORCID_PAIRED_WORKS = "author_orcid_paired";
const ORCID_ONLY_LIST = "author_orcid_only_list";
/**
 * The most spellings one person bucket reads: a terms sub-aggregation over the bucket's works reads their co-authors'
 * spellings too (a person of 1,000 works and three authors a work: about 3,000); more leaves the facet to the listing.
 */
const SPELLINGS_PER_BUCKET = 10_000;
/** the most people read when ties at the last bucket ask for all people of that count, and the most ORCIDs checked */
const MOST_BUCKETS = 50_000;
const field = (name: string) => `${FIELD.workFacets}.${name}`;

/** The people terms aggregation: `size` people by works counted (at least `minWorks` each), with their spellings. */
export function peopleAggregation(size: number, minWorks = 1): Record<string, unknown> {
  return {
    terms: { field: field("author_person"), size, ...(minWorks > 1 ? { min_doc_count: minWorks } : {}) },
    aggs: { names: { terms: { field: field("author_person_name"), size: SPELLINGS_PER_BUCKET } } },
  };
}

/** The ORCIDs of the counted works' ORCID-only entries (at most MOST_BUCKETS: more are not all checked). */
const orcidOnlyList = () => ({
  terms: { field: field("author_orcid_role"), include: `${ORCID_ONLY}.*`, size: MOST_BUCKETS },
});

/**
 * The filter counts telling whether an ORCID-only entry could be resolved to an id among the counted works, and the
 * ORCID-only entries' ORCIDs themselves: in the first request, where a second one asked for them when both counts were
 * non-zero (a round trip on every author facet of a collection with both kinds of entries).
 */
export function orcidRoleAggregations(): Record<string, unknown> {
  return {
    [ORCID_ONLY_WORKS]: { filter: { prefix: { [field("author_orcid_role")]: ORCID_ONLY } } },
    [ORCID_PAIRED_WORKS]: { filter: { prefix: { [field("author_orcid_role")]: ORCID_PAIRED } } },
    [ORCID_ONLY_LIST]: orcidOnlyList(),
  };
}

interface Terms<B> {
  buckets: B[];
  sum_other_doc_count?: number;
}
interface PersonTermsBucket {
  key: string;
  doc_count: number;
  names?: Terms<{ key: string; doc_count: number }>;
}
/** What the people path reads of an aggregation response. */
export interface PeopleResponse {
  hits: { total: { value: number } };
  aggregations?: Record<string, Partial<Terms<PersonTermsBucket>> & { doc_count?: number }>;
}

/** The people buckets as facet buckets (personBucket), or null when a bucket's spellings were not all read. */
function personBuckets(buckets: readonly PersonTermsBucket[]): EngineFacetBucket[] | null {
  const out: EngineFacetBucket[] = [];
  for (const b of buckets) {
    if ((b.names?.sum_other_doc_count ?? 0) > 0) return null;
    const prefix = `${b.key}${PERSON_NAME_SEPARATOR}`;
    const spellings = new Map<string, number>();
    for (const n of b.names?.buckets ?? [])
      if (n.key.startsWith(prefix)) spellings.set(n.key.slice(prefix.length), n.doc_count);
    out.push(personBucket(b.key, b.doc_count, spellings));
  }
  return out;
}

/**
 * Runs a size-0 request over the counted works (the request's filter and first chunks), narrowed by `also` (filter
 * clauses), with these aggregations.
 */
type CountedWorks = (also: unknown[], aggs: Record<string, unknown>) => Promise<PeopleResponse>;

/** Whether an ORCID-only entry of the counted works has its ORCID paired with an id in a counted work. */
async function orcidsResolve(first: PeopleResponse, counted: CountedWorks): Promise<boolean> {
  const works = (name: string) => first.aggregations?.[name]?.doc_count ?? 0;
  if (works(ORCID_ONLY_WORKS) === 0 || works(ORCID_PAIRED_WORKS) === 0) return false;
  // a first response without the list (none written by orcidRoleAggregations) asks for it
  const orcids =
    first.aggregations?.[ORCID_ONLY_LIST] ??
    (await counted([], { [ORCID_ONLY_LIST]: orcidOnlyList() })).aggregations?.[ORCID_ONLY_LIST];
  if ((orcids?.sum_other_doc_count ?? 0) > 0) return true; // too many to check: counted by entry
  const paired = (orcids?.buckets ?? []).map((b) => `${ORCID_PAIRED}${b.key.slice(ORCID_ONLY.length)}`);
  if (paired.length === 0) return false;
  const joined = await counted([{ terms: { [field("author_orcid_role")]: paired } }], {});
  return joined.hits.total.value > 0;
}

/**
 * The author facet from the first response's people (peopleAggregation of `limit` + 1) and same-person count: null
 * when a counted work names one person twice or the spellings were not all read, "by entry" when an ORCID could be
 * resolved to an id (the caller counts entries), else the `limit` best people. When the last bucket's count ties with
 * the next person's, every person of that count is read (the order of ties is by spelling, not by the engine's key).
 */
export async function authorFacetByPerson(
  first: PeopleResponse,
  samePerson: string,
  limit: number,
  counted: CountedWorks,
): Promise<EngineFacetBucket[] | null | "by entry"> {
  if ((first.aggregations?.[samePerson]?.doc_count ?? 0) > 0) return null;
  if (await orcidsResolve(first, counted)) return "by entry";
  let people = first.aggregations?.author;
  const buckets = people?.buckets ?? [];
  if (buckets.length > limit && buckets[limit]!.doc_count === buckets[limit - 1]!.doc_count) {
    const tied = await counted([], { author: peopleAggregation(MOST_BUCKETS, buckets[limit - 1]!.doc_count) });
    people = tied.aggregations?.author;
    if ((people?.sum_other_doc_count ?? 0) > 0) return null;
  }
  return (
    personBuckets(people?.buckets ?? [])
      ?.sort(byCountThenValue)
      .slice(0, limit) ?? null
  );
}
