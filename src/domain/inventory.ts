// A collection's inventory: how many documents it holds and which journals (ISSNs, titles, publishers) they come from.
// Built at ingest from the documents themselves and stored with the index, so both engines give the same answer.

/** The subject classifications a source carries: OpenAlex concepts, and MeSH descriptors (OpenAlex or MEDLINE). */
export type SubjectScheme = "openalex_concept" | "mesh";

/** One subject a document is classified under, as its source names it. */
export interface DocumentSubject {
  name: string;
  scheme: SubjectScheme;
}

/**
 * A journal is on a subject when at least this share of its documents carries it (the catalogue's topic matching);
 * an entry keeps only the subjects that reach it, which bounds the inventory's size by its entries, not its documents.
 */
export const SUBJECT_MIN_SHARE = 0.25;

/** How many documents of an inventory entry carry one subject. */
export interface SubjectCount extends DocumentSubject {
  documents: number;
}

/** Documents sharing one journal identity: the same ISSN set, journal title and publisher. */
export interface InventoryEntry {
  /** the documents' ISSNs in canonical form ("1234-567X"), sorted; empty when the documents carry none */
  issns: string[];
  /** the journal title as the documents spell it; null when they carry none */
  journal: string | null;
  publisher: string | null;
  /** number of documents (not chunks) with this identity */
  documents: number;
  /**
   * the subjects at least SUBJECT_MIN_SHARE of its documents are classified under, most documents first; absent when
   * none is, and on an entry without ISSN or title (no journal to list)
   */
  subjects?: SubjectCount[];
}

export interface CollectionInventory {
  /** physical collection name */
  collection: string;
  /** documents (not chunks) in the collection */
  documentCount: number;
  /** one entry per distinct (issns, journal, publisher), most documents first */
  entries: InventoryEntry[];
  /** entries past the store's cap are dropped (their documents still count in documentCount) */
  truncated: boolean;
  builtAt: string;
}

/** The most entries kept per collection; a larger inventory is truncated and says so. */
const MAX_INVENTORY_ENTRIES = 50_000;

/** The fields of a document (or of any of its chunks) that decide its journal identity. */
export interface JournalIdentityFields {
  issn?: readonly string[] | null;
  journal?: string | null;
  publisher?: string | null;
  /** not part of the identity: counted per entry (documents read before subjects were kept have none) */
  subjects?: readonly DocumentSubject[] | null;
}

/** Blank titles and publishers say nothing, so they group with the documents that carry none. */
const textOrNull = (value: string | null | undefined): string | null =>
  typeof value === "string" && value.trim() !== "" ? value : null;

const sortedIssns = (issn: readonly string[] | null | undefined): string[] =>
  [...new Set(Array.isArray(issn) ? issn : [])].sort();

/**
 * The key one journal is known by across the catalogue: its smallest ISSN (an entry's `issns[0]`), else its title in
 * lower case; null when the document carries neither. Taking the smallest rather than the first ISSN a document lists
 * keeps documents that list the same ISSNs in another order under one key.
 */
export function journalKey(fields: Pick<JournalIdentityFields, "issn" | "journal">): string | null {
  const issns = sortedIssns(fields.issn);
  if (issns.length > 0) return issns[0];
  return textOrNull(fields.journal)?.toLowerCase() ?? null;
}

const compareText = (a: string | null, b: string | null): number =>
  a === b ? 0 : a === null ? 1 : b === null ? -1 : a < b ? -1 : 1;

/**
 * Most documents first; ties by title (untitled last), ISSNs, publisher, so the order never depends on reading order.
 */
function compareEntries(a: InventoryEntry, b: InventoryEntry): number {
  return (
    b.documents - a.documents ||
    compareText(a.journal, b.journal) ||
    compareText(a.issns.join(" "), b.issns.join(" ")) ||
    compareText(a.publisher, b.publisher)
  );
}

/**
 * Counts documents per journal identity. Ingest adds each indexed document; an engine rebuilding the inventory of an
 * index ingested before inventories were stored adds each document's first chunk (chunk_index 0 carries the document's
 * metadata), so both give the same inventory for the same documents.
 */
export class InventoryTally {
  private readonly entries = new Map<string, InventoryEntry>();
  private readonly subjects = new Map<string, Map<string, SubjectCount>>();
  private documentCount = 0;

  add(document: JournalIdentityFields): void {
    const issns = sortedIssns(document.issn);
    const journal = textOrNull(document.journal);
    const publisher = textOrNull(document.publisher);
    const key = JSON.stringify([issns, journal, publisher]);
    const entry = this.entries.get(key);
    if (entry) entry.documents += 1;
    else this.entries.set(key, { issns, journal, publisher, documents: 1 });
    this.documentCount += 1;
    if (!Array.isArray(document.subjects) || document.subjects.length === 0) return;
    let counts = this.subjects.get(key);
    if (!counts) this.subjects.set(key, (counts = new Map()));
    // a document names a subject once, whatever its source repeats
    for (const subject of new Map(document.subjects.map((s) => [`${s.scheme}\u0000${s.name}`, s])).values()) {
      const id = `${subject.scheme}\u0000${subject.name}`;
      const count = counts.get(id);
      if (count) count.documents += 1;
      else counts.set(id, { name: subject.name, scheme: subject.scheme, documents: 1 });
    }
  }

  inventory(collection: string, builtAt: Date = new Date()): CollectionInventory {
    const entries = [...this.entries.entries()]
      .map(([key, entry]) => {
        const counts = entry.issns.length > 0 || entry.journal !== null ? this.subjects.get(key) : undefined;
        const subjects = counts
          ? [...counts.values()]
              .filter((s) => s.documents >= SUBJECT_MIN_SHARE * entry.documents)
              .sort(
                (a, b) => b.documents - a.documents || compareText(a.name, b.name) || compareText(a.scheme, b.scheme),
              )
          : [];
        return { ...entry, issns: [...entry.issns], ...(subjects.length > 0 ? { subjects } : {}) };
      })
      .sort(compareEntries);
    return {
      collection,
      documentCount: this.documentCount,
      entries: entries.slice(0, MAX_INVENTORY_ENTRIES),
      truncated: entries.length > MAX_INVENTORY_ENTRIES,
      builtAt: builtAt.toISOString(),
    };
  }
}
