// A collection's inventory: how many documents it holds and which journals (ISSNs, titles, publishers) they come from.
// Built at ingest from the documents themselves and stored with the index, so both engines give the same answer.

/** Documents sharing one journal identity: the same ISSN set, journal title and publisher. */
export interface InventoryEntry {
  /** the documents' ISSNs in canonical form ("1234-567X"), sorted; empty when the documents carry none */
  issns: string[];
  /** the journal title as the documents spell it; null when they carry none */
  journal: string | null;
  publisher: string | null;
  /** number of documents (not chunks) with this identity */
  documents: number;
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
export const MAX_INVENTORY_ENTRIES = 50_000;
