// works/facets on the embedded engine: a per-work table of facet values, built once per committed segment (the engine
// keeps it beside the segment), so counting the works under a filter reads interned value ids, not every work's
// metadata. The values are workFacetValues of each document's first chunk, as the OpenSearch adapter indexes them.
import {
  authorBuckets,
  authorEntryOf,
  ENGINE_FACETS,
  idsOfOrcids,
  personOf,
  topBuckets,
  workFacetValues,
  type AuthorEntry,
  type EngineFacet,
  type EngineFacetBucket,
  type EngineFacetCounts,
} from "../../workFacetValues.js";
import type { ChunkMetadata } from "../../port.js";
import type { FilterNode } from "../../../filters/ast.js";
import { compileToPredicate } from "../../../filters/compileToPredicate.js";
import { byDocId, pickFields } from "../../documentFields.js";
import { isDocumentLevelFilter } from "../../workFacetValues.js";
import type { IndexSegment } from "./indexSegment.js";

/** One facet's values per work: work i holds ids[offsets[i] .. offsets[i + 1]) into dict. */
interface Column {
  dict: string[];
  offsets: Int32Array;
  ids: Int32Array;
}

interface WorkFacetTable {
  /** ordinals of the segment's first chunks (chunk_index 0), one per document */
  heads: Int32Array;
  /**
   * false when counting first chunks would not count each work once: a document without a first chunk, or two
   * documents sharing a DOI or a PMID (one work, which works/facets counts once)
   */
  exact: boolean;
  columns: Record<EngineFacet, Column>;
  /** per work: its smallest ISSN's rank in issns (code-unit order), -1 when it has none */
  minIssn: Int32Array;
  issns: string[];
  /** the author column's entries, decoded (its dict holds their keys) */
  authorEntries: AuthorEntry[];
}

function interned(values: string[][]): Column {
  const index = new Map<string, number>();
  const dict: string[] = [];
  const offsets = new Int32Array(values.length + 1);
  const ids: number[] = [];
  values.forEach((vs, i) => {
    for (const v of vs) {
      let id = index.get(v);
      if (id === undefined) index.set(v, (id = dict.push(v) - 1));
      ids.push(id);
    }
    offsets[i + 1] = ids.length;
  });
  return { dict, offsets, ids: Int32Array.from(ids) };
}

export function buildWorkFacetTable(chunks: ReadonlyArray<{ metadata: ChunkMetadata }>): WorkFacetTable {
  const heads: number[] = [];
  const documents = new Set<string>();
  const ids = new Set<string>();
  let exact = true;
  for (let ordinal = 0; ordinal < chunks.length; ordinal++) {
    const m = chunks[ordinal]!.metadata;
    documents.add(String(m.doc_id));
    if (m.chunk_index !== 0) continue;
    heads.push(ordinal);
    for (const [field, value] of [
      ["doi", m.doi],
      ["pmid", m.pmid],
    ] as const) {
      if (typeof value !== "string" || value === "") continue;
      const key = `${field}:${value.toLowerCase()}`;
      if (ids.has(key)) exact = false;
      ids.add(key);
    }
  }
  if (documents.size !== heads.length) exact = false;
  const values = heads.map((ordinal) => workFacetValues(chunks[ordinal]!.metadata));
  const columns = Object.fromEntries(
    ENGINE_FACETS.map((facet) => [facet, interned(values.map((v) => v[facet]))] as const),
  ) as Record<EngineFacet, Column>;
  const smallest = values.map((v) => (v.issn.length > 0 ? v.issn.reduce((a, b) => (b < a ? b : a)) : null));
  const issns = [...new Set(smallest.filter((x): x is string => x !== null))].sort((a, b) => (a < b ? -1 : 1));
  const rank = new Map(issns.map((issn, i) => [issn, i]));
  const minIssn = Int32Array.from(smallest, (issn) => (issn === null ? -1 : rank.get(issn)!));
  const authorEntries = columns.author.dict.map(authorEntryOf);
  return { heads: Int32Array.from(heads), exact, columns, minIssn, issns, authorEntries };
}

/**
 * The works whose first chunk passes `passes` (every work when absent) counted per facet: each facet's `limit` largest
 * buckets, count desc then value asc; a journal's id is the smallest ISSN its counted works carry. Null when the table
 * is not exact.
 */
export function countWorkFacets(
  table: WorkFacetTable,
  passes: ((ordinal: number) => boolean) | undefined,
  facets: readonly EngineFacet[],
  limit: number,
): EngineFacetCounts | null {
  if (!table.exact) return null;
  const works: number[] = [];
  for (let i = 0; i < table.heads.length; i++) if (!passes || passes(table.heads[i]!)) works.push(i);
  const out: EngineFacetCounts = { total: works.length, facets: {} };
  for (const facet of facets) {
    const { dict, offsets, ids } = table.columns[facet];
    if (facet === "author") {
      out.facets.author = topBuckets(authorFacet(table, works), limit);
      continue;
    }
    const counts = new Int32Array(dict.length);
    const issn = facet === "journal" ? new Int32Array(dict.length).fill(-1) : undefined;
    for (const work of works)
      for (let k = offsets[work]!; k < offsets[work + 1]!; k++) {
        const id = ids[k]!;
        counts[id]!++;
        const own = table.minIssn[work]!;
        if (issn && own >= 0 && (issn[id]! < 0 || own < issn[id]!)) issn[id] = own;
      }
    const buckets: EngineFacetBucket[] = [];
    counts.forEach((count, id) => {
      if (count === 0) return;
      const rank = issn?.[id] ?? -1;
      buckets.push(rank >= 0 ? { value: dict[id]!, count, id: table.issns[rank]! } : { value: dict[id]!, count });
    });
    out.facets[facet] = topBuckets(buckets, limit);
  }
  return out;
}

/**
 * The author facet of these works (authorBuckets: by person, each work once). Each entry's works are counted in a typed
 * array and the distinct entries handed over with their counts, which gives the same buckets as every work's entries
 * unless a counted work names one person twice (two entries one ORCID joins to an id): then each work's entries.
 */
function authorFacet(table: WorkFacetTable, works: readonly number[]): EngineFacetBucket[] {
  const { offsets, ids } = table.columns.author;
  const weight = new Int32Array(table.authorEntries.length);
  for (const w of works) for (let k = offsets[w]!; k < offsets[w + 1]!; k++) weight[ids[k]!]!++;
  const present: number[] = [];
  weight.forEach((count, id) => count > 0 && present.push(id));
  const idOfOrcid = idsOfOrcids(present.map((id) => table.authorEntries[id]!));
  const personIds = new Map<string, number>();
  const personOfEntry = new Int32Array(weight.length).fill(-1);
  for (const id of present) {
    const { key } = personOf(table.authorEntries[id]!, idOfOrcid);
    let person = personIds.get(key);
    if (person === undefined) personIds.set(key, (person = personIds.size));
    personOfEntry[id] = person;
  }
  if (works.some((w) => namesOnePersonTwice(ids, offsets[w]!, offsets[w + 1]!, personOfEntry)))
    return authorBuckets(
      works.map((w) => ({
        entries: Array.from(ids.subarray(offsets[w]!, offsets[w + 1]!), (id) => table.authorEntries[id]!),
      })),
    );
  return authorBuckets(present.map((id) => ({ entries: [table.authorEntries[id]!], weight: weight[id]! })));
}

function namesOnePersonTwice(ids: Int32Array, from: number, to: number, personOfEntry: Int32Array): boolean {
  for (let i = from; i < to; i++)
    for (let j = i + 1; j < to; j++) if (personOfEntry[ids[i]!] === personOfEntry[ids[j]!]) return true;
  return false;
}

/** each committed segment's per-work facet values, built on the first facets request that reads it */
const tables = new WeakMap<IndexSegment, WorkFacetTable>();

/** SearchEngine.facetCounts over a committed segment (its table built once, then kept with it). */
export function countSegmentFacets(
  segment: IndexSegment,
  filter: FilterNode | undefined,
  facets: readonly EngineFacet[],
  limit: number,
): EngineFacetCounts | null {
  if (!isDocumentLevelFilter(filter)) return null;
  let table = tables.get(segment);
  if (!table) tables.set(segment, (table = buildWorkFacetTable(segment.chunks)));
  const predicate = filter ? compileToPredicate(filter) : undefined;
  return countWorkFacets(
    table,
    predicate && ((ordinal) => predicate(segment.chunks[ordinal]!.metadata)),
    facets,
    limit,
  );
}

/** SearchEngine.listDocuments over a committed segment: what works/facets counts in Node when the table cannot. */
export function listSegmentDocuments(
  segment: IndexSegment,
  filter: FilterNode | undefined,
  fields: readonly string[],
): ChunkMetadata[] {
  const predicate = filter ? compileToPredicate(filter) : () => true;
  const documents = new Map<string, ChunkMetadata>();
  for (const chunk of segment.chunks) {
    const metadata = chunk.metadata;
    if (documents.has(metadata.doc_id) || !predicate(metadata)) continue;
    documents.set(metadata.doc_id, pickFields(metadata, fields));
  }
  return [...documents.values()].sort(byDocId);
}
