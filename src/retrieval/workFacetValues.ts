// The facet values of one work, as both engines index them and as works/facets counts them (facetCounts.ts): one pure
// derivation from a document's metadata, so an OpenSearch aggregation, the embedded engine's per-work table and the
// count in Node read the same values. Also which filters an engine may answer over each document's first chunk.
import type { FilterNode } from "../filters/ast.js";
import type { EngineFacet, EngineFacetBucket, EngineFacetCounts } from "./port.js";
/** a document's metadata as its chunks carry it (the port's ChunkMetadata, which imports this file's types) */
type Metadata = Readonly<Record<string, unknown>>;

/**
 * The facets an engine counts itself (the integrity facet is counted in Node, facetCounts.ts: a work's status comes
 * from the retraction notices the store holds at the request, not from what was indexed).
 */
export const ENGINE_FACETS = [
  "publication_year",
  "journal",
  "subject",
  "author",
  "article_type",
  "open_access",
] as const satisfies readonly EngineFacet[];
export type { EngineFacet, EngineFacetBucket, EngineFacetCounts };

/**
 * One work's values for each engine facet, each once: its ISSNs (a journal bucket's id is the smallest), its authors as
 * entries (authorEntryKey) and the links between its entries that could make two of them one person (authorLinks).
 */
export type WorkFacetValues = Record<EngineFacet | "issn" | "author_links", string[]>;

const text = (v: unknown): string | null => (typeof v === "string" && v.trim() !== "" ? v.trim() : null);
/** trimmed non-empty strings of an array, each once, in their first order */
export const texts = (v: unknown): string[] =>
  Array.isArray(v) ? [...new Set(v.map(text).filter((x): x is string => x !== null))] : [];
const one = (v: string | null | undefined): string[] => (v ? [v] : []);

export function workFacetValues(m: Metadata): WorkFacetValues {
  const authors = workAuthors(m);
  return {
    publication_year: one(/^(\d{4})/.exec(text(m.publication_date) ?? "")?.[1]),
    journal: one(text(m.journal)),
    subject: texts(m.keywords),
    author: authors.map(authorEntryKey),
    author_links: authorLinks(authors),
    article_type: one(text(m.article_type)),
    open_access: typeof m.open_access === "boolean" ? [String(m.open_access)] : [],
    issn: texts(m.issn),
  };
}

/**
 * Filter fields whose values every chunk of a document shares: a document has a chunk passing a filter on these alone
 * exactly when its first chunk passes, so an engine may count works over first chunks. Any other field (section,
 * chunk_index, a book's chapter fields) leaves the count to the documents listed (listDocuments).
 */
const DOCUMENT_LEVEL_FIELDS: ReadonlySet<string> = new Set([
  "doc_id",
  "journal",
  "publisher",
  "keywords",
  "publication_date",
  "doi",
  "issn",
  "article_type",
  "open_access",
  "author_id",
  "authors",
  "title",
  "pmid",
  "pmcid",
  "isbn",
  "topic",
  "url",
  "medical_board_approved",
  "last_updated_date",
  "nct_id",
  "overall_status",
  "phases",
  "has_results",
]);

export function isDocumentLevelFilter(filter: FilterNode | undefined): boolean {
  if (!filter) return true;
  switch (filter.kind) {
    case "and":
    case "or":
      return filter.children.every(isDocumentLevelFilter);
    case "not":
      return isDocumentLevelFilter(filter.child);
    case "all":
    case "none":
      return true;
    default:
      return DOCUMENT_LEVEL_FIELDS.has(filter.field);
  }
}

const codeUnitOrder = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);

/** Count desc, then value asc in code-unit order (the order works/facets documents). */
export function byCountThenValue(a: EngineFacetBucket, b: EngineFacetBucket): number {
  return b.count - a.count || codeUnitOrder(a.value, b.value) || codeUnitOrder(a.id ?? "", b.id ?? "");
}

/**
 * The `limit` first buckets in byCountThenValue order, the same as sorting them all and slicing, without sorting every
 * bucket (tens of thousands of authors for ten answered): one pass keeping the best `limit` in order.
 */
export function topBuckets(buckets: readonly EngineFacetBucket[], limit: number): EngineFacetBucket[] {
  const top: EngineFacetBucket[] = [];
  if (limit <= 0) return top;
  for (const bucket of buckets) {
    if (top.length === limit && byCountThenValue(bucket, top[limit - 1]!) >= 0) continue;
    let at = top.length;
    while (at > 0 && byCountThenValue(bucket, top[at - 1]!) < 0) at--;
    top.splice(at, 0, bucket);
    if (top.length > limit) top.pop();
  }
  return top;
}

/** One authorship as the author facet counts it: a name, and the OpenAlex id and ORCID where the source gives them. */
export interface AuthorEntry {
  name: string;
  id: string | null;
  orcid: string | null;
}

/** The keyword an engine indexes for an entry (and its inverse): JSON [name, id, orcid]. */
const authorEntryKey = (a: AuthorEntry): string => JSON.stringify([a.name, a.id, a.orcid]);
export function authorEntryOf(key: string): AuthorEntry {
  const [name, id, orcid] = JSON.parse(key) as [string, string | null, string | null];
  return { name, id, orcid };
}

/**
 * A work's authors, each entry once in its first order: its authorships where it carries them, else its names (works
 * read before authorships).
 */
export function workAuthors(m: Metadata): AuthorEntry[] {
  const named = Array.isArray(m.authorships)
    ? m.authorships.flatMap((a: { name?: unknown; id?: unknown; orcid?: unknown } | null) => {
        const name = text(a?.name);
        return name === null ? [] : [{ name, id: text(a?.id), orcid: text(a?.orcid) }];
      })
    : [];
  const entries = named.length > 0 ? named : texts(m.authors).map((name) => ({ name, id: null, orcid: null }));
  const seen = new Set<string>();
  return entries.filter((a) => !seen.has(authorEntryKey(a)) && seen.add(authorEntryKey(a)));
}

/** author_links' value of a work two of whose entries share an OpenAlex id or an ORCID (always one person) */
export const SAME_PERSON_LINK = "*";

/**
 * What could make two entries of one work one person once the counted works are known (authorBuckets resolves an
 * ORCID-only entry to the smallest OpenAlex id paired with its ORCID): "ORCID id" for each ORCID-only entry and each
 * other entry's id, "ORCID ORCID" for two ORCID-only entries (in order), or SAME_PERSON_LINK when two entries share an
 * id or an ORCID. An engine counting entries (each work once per entry) counts each person once per work unless the
 * counted works hold a link that its resolution makes real; then it leaves the count to the listing.
 */
function authorLinks(entries: readonly AuthorEntry[]): string[] {
  const ids = entries.flatMap((a) => (a.id !== null ? [a.id] : []));
  const orcids = entries.flatMap((a) => (a.orcid !== null ? [a.orcid] : []));
  if (new Set(ids).size < ids.length || new Set(orcids).size < orcids.length) return [SAME_PERSON_LINK];
  const orcidOnly = entries.flatMap((a) => (a.id === null && a.orcid !== null ? [a.orcid] : [])).sort(codeUnitOrder);
  return orcidOnly.flatMap((orcid, i) => [
    ...ids.map((id) => `${orcid} ${id}`),
    ...orcidOnly.slice(i + 1).map((other) => `${orcid} ${other}`),
  ]);
}

/** The smallest OpenAlex id paired with each ORCID among these entries (authorBuckets' resolution of an ORCID). */
export function idsOfOrcids(entries: Iterable<AuthorEntry>): Map<string, string> {
  const idOfOrcid = new Map<string, string>();
  for (const { id, orcid } of entries) {
    if (id === null || orcid === null) continue;
    const known = idOfOrcid.get(orcid);
    if (known === undefined || id < known) idOfOrcid.set(orcid, id);
  }
  return idOfOrcid;
}

/** The person an entry names: its id, its ORCID's id (else the ORCID), or its exact name. */
export function personOf(a: AuthorEntry, idOfOrcid: ReadonlyMap<string, string>): { key: string; id: string | null } {
  const id = a.id ?? (a.orcid !== null ? (idOfOrcid.get(a.orcid) ?? a.orcid) : null);
  return { key: id !== null ? `id:${id}` : `name:${a.name}`, id };
}

/**
 * The links (authorLinks) that, among works whose entries are these, would join two entries of one work into one
 * person: an engine counting entries must find none of them in the counted works.
 */
export function joiningLinks(entries: readonly AuthorEntry[]): string[] {
  const idOfOrcid = idsOfOrcids(entries);
  const byId = new Map<string, string[]>();
  for (const a of entries)
    if (a.id === null && a.orcid !== null) {
      const id = idOfOrcid.get(a.orcid);
      if (id !== undefined) byId.set(id, [...(byId.get(id) ?? []), a.orcid]);
    }
  return [...byId].flatMap(([id, orcids]) => {
    const sorted = [...new Set(orcids)].sort(codeUnitOrder);
    return sorted.flatMap((orcid, i) => [`${orcid} ${id}`, ...sorted.slice(i + 1).map((o) => `${orcid} ${o}`)]);
  });
}

/**
 * The author facet's buckets (unordered), one per person as the authors routes know them: an authorship with an
 * OpenAlex id is that id; one with an ORCID only is the smallest OpenAlex id whose counted authorships carry that
 * ORCID, else the ORCID; one with neither is its exact name, never joined to an identified person. A bucket's `id` is
 * that id (absent for a name), its count the works naming the person (each work once), its `value` the person's most
 * frequent spelling among those works (each work once per spelling; ties: the smallest). `works` gives each work's
 * entries, or each entry once with how many works carry it (`weight`): the same buckets when no work has two entries
 * of one person.
 */
export function authorBuckets(works: ReadonlyArray<{ entries: readonly AuthorEntry[]; weight?: number }>) {
  const idOfOrcid = idsOfOrcids(works.flatMap((w) => w.entries));
  const people = new Map<string, { id: string | null; names: Map<string, number>; works: number }>();
  for (const { entries, weight = 1 } of works) {
    const named = new Map<string, Set<string>>();
    for (const a of entries) {
      const { key, id } = personOf(a, idOfOrcid);
      if (!people.has(key)) people.set(key, { id, names: new Map(), works: 0 });
      named.set(key, (named.get(key) ?? new Set()).add(a.name));
    }
    for (const [key, spellings] of named) {
      const person = people.get(key)!;
      person.works += weight;
      for (const name of spellings) person.names.set(name, (person.names.get(name) ?? 0) + weight);
    }
  }
  return [...people.values()].map(({ id, names, works: count }): EngineFacetBucket => {
    const [value] = [...names].sort((a, b) => b[1] - a[1] || codeUnitOrder(a[0], b[0]))[0]!;
    return id === null ? { value, count } : { value, count, id };
  });
}

/**
 * What an OpenSearch index writes beside a work's author entries so that the author facet is counted by person in the
 * engine (a terms aggregation of `limit` + 1 buckets, not every entry of the counted works): `author_person`, each
 * entry's person before any ORCID is resolved to an id (personOf's key: `id:` its id, else its ORCID, or `name:` its
 * name); `author_person_name`, that key and the entry's name joined by PERSON_NAME_SEPARATOR (a bucket's spelling);
 * and `author_orcid_role`, `only:` the ORCID of each ORCID-only entry and `paired:` the ORCID of each entry with an id
 * too. The persons are the author facet's exactly when no counted work's ORCID-only ORCID is paired with an id in a
 * counted work (then authorBuckets resolves it) and no work names one person twice (SAME_PERSON_LINK).
 */
export interface AuthorPeopleValues {
  author_person: string[];
  author_person_name: string[];
  author_orcid_role: string[];
}

/** Between a person's key and one of its spellings in `author_person_name` (no name or id holds it). */
export const PERSON_NAME_SEPARATOR = "\u0001";
export const ORCID_ONLY = "only:";
export const ORCID_PAIRED = "paired:";

export function authorPeopleValues(m: Metadata): AuthorPeopleValues {
  const entries = workAuthors(m);
  const unresolved = new Map<string, string>();
  const keys = entries.map((a) => personOf(a, unresolved).key);
  const roles = entries.flatMap((a) =>
    a.orcid === null ? [] : [`${a.id === null ? ORCID_ONLY : ORCID_PAIRED}${a.orcid}`],
  );
  return {
    author_person: [...new Set(keys)],
    author_person_name: [...new Set(entries.map((a, i) => `${keys[i]}${PERSON_NAME_SEPARATOR}${a.name}`))],
    author_orcid_role: [...new Set(roles)],
  };
}

/**
 * One author facet bucket from a person's key (authorPeopleValues) and the works counted per spelling: the most
 * frequent spelling (ties: the smallest in code-unit order), the id where the key is one.
 */
export function personBucket(key: string, count: number, spellings: ReadonlyMap<string, number>): EngineFacetBucket {
  const [value] = [...spellings].sort((a, b) => b[1] - a[1] || codeUnitOrder(a[0], b[0]))[0] ?? [key];
  return key.startsWith("id:") ? { value, count, id: key.slice(3) } : { value, count };
}
